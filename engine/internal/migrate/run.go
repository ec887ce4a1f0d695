package migrate

import (
	"context"
	"errors"
	"fmt"

	"cairn/engine/internal/errs"
	"cairn/engine/internal/layout"
	"cairn/internal/vfs"
	"cairn/objects"
)

// Owner is what a move needs of the engine: a session's ownership lock in
// the source (dst false) or destination folder of a plan, each folder's
// object store, and the rebuild of the record at the destination.
type Owner interface {
	// Acquire takes p's session's lock; one another process holds is an
	// error wrapping errs.ErrBusy.
	Acquire(p Plan, dst bool) (vfs.Lock, error)
	// Release lets go of a lock Acquire took, and the owner's hint.
	Release(p Plan, dst bool, l vfs.Lock)
	Objects(p Plan, dst bool) *objects.Store
	// Rebuild rebuilds the record of p's session at the destination; it
	// is derived, and a listing rebuilds it if this fails.
	Rebuild(ctx context.Context, p Plan)
}

// Move moves the session of p, whose source lock srcLock the caller holds,
// through the steps in order (WritePlan, Copy, RemoveSource), and lets the
// lock go. Before the commit a failure rolls the move back; after it, the
// plan stays for the next open to finish.
func Move(ctx context.Context, fsys vfs.FS, o Owner, p Plan, srcLock vfs.Lock, retarget Retarget) error {
	if err := WritePlan(fsys, p); err != nil {
		o.Release(p, false, srcLock)
		return err
	}
	dstLock, err := o.Acquire(p, true)
	if err != nil {
		o.Release(p, false, srcLock)
		RollBack(fsys, p)
		return err
	}
	if err := Copy(ctx, fsys, o.Objects(p, false), o.Objects(p, true), p, retarget); err != nil {
		// Nothing is committed: the copies go, the session stays.
		o.Release(p, true, dstLock)
		o.Release(p, false, srcLock)
		RollBack(fsys, p)
		return err
	}
	return finish(ctx, fsys, o, p, srcLock, dstLock)
}

// finish removes the source's files once the items journal is at the
// destination, lets both locks go, and then the plan.
func finish(ctx context.Context, fsys vfs.FS, o Owner, p Plan, srcLock, dstLock vfs.Lock) error {
	err := RemoveSource(ctx, fsys, p)
	srcLock.Release() // the source's files, its owner hint too, are gone
	if err != nil {
		o.Release(p, true, dstLock)
		return err // the plan stays: the next open finishes
	}
	o.Rebuild(ctx, p)
	o.Release(p, true, dstLock)
	return DropPlan(fsys, p.Session)
}

// Recover finishes or rolls back the moves a crash interrupted (their
// plans are left in moves/), skipping one whose session lock is held (a
// move running in another process). fail is told what fails, by the
// file holding it, for the engine to keep: it is tried again at the next
// open.
func Recover(fsys vfs.FS, o Owner, fail func(name string, err error)) {
	plans, err := Plans(fsys)
	if err != nil {
		fail(layout.Moves, err)
		return
	}
	for _, p := range plans {
		id := p.Session
		srcLock, err := o.Acquire(p, false)
		if err != nil {
			if !errors.Is(err, errs.ErrBusy) { // busy: a move running now
				fail(PlanName(id), err)
			}
			continue
		}
		if _, err := fsys.Stat(layout.Items(p.Dst(), id)); err == nil {
			dstLock, err := o.Acquire(p, true)
			if err != nil {
				o.Release(p, false, srcLock)
				if !errors.Is(err, errs.ErrBusy) {
					fail(PlanName(id), err)
				}
				continue
			}
			if err := finish(context.Background(), fsys, o, p, srcLock, dstLock); err != nil {
				fail(PlanName(id), fmt.Errorf("finish moving session %s to %s: %w", id, p.ToPath, err))
			}
			continue
		}
		if err := RollBack(fsys, p); err != nil {
			fail(PlanName(id), fmt.Errorf("undo moving session %s to %s: %w", id, p.ToPath, err))
		}
		o.Release(p, false, srcLock)
	}
}
