package migrate

import (
	"context"

	"cairn/engine/internal/durable"
	"cairn/engine/internal/layout"
	"cairn/internal/vfs"
)

// RemoveSource does step 3 once the items journal is at the destination:
// the source's files go, the items journal first, then its owner's hint
// and lock file (the caller holds that lock, and lets it go after). The
// plan stays: on an error the next open finishes.
func RemoveSource(ctx context.Context, fsys vfs.FS, p Plan) error {
	id, src := p.Session, p.Src()
	err := durable.Remove(fsys, layout.Items(src, id))
	for _, n := range []string{layout.Record(src, id), layout.Changes(src, id), layout.Audit(src, id), layout.Shell(src, id)} {
		if rerr := fsys.Remove(n); rerr != nil && !vfs.IsNotExist(rerr) && err == nil {
			err = rerr
		}
	}
	for _, dir := range []string{layout.SessionFolder(src, layout.Outputs, id), layout.SessionFolder(src, layout.Tasks, id)} {
		if rerr := durable.RemoveFolder(ctx, fsys, dir); rerr != nil && err == nil {
			err = rerr
		}
	}
	if err == nil {
		err = fsys.SyncDir(layout.SessionsDir(src))
	}
	fsys.Remove(layout.Owner(src, id))
	fsys.Remove(layout.Lock(src, id)) // held by the caller: no one else can be using it
	return err
}

// RollBack takes away what an uncommitted move copied to the destination
// (the objects stay), then the plan. The caller holds the session's lock
// at the source, not at the destination: the destination's lock file and
// hint go too.
func RollBack(fsys vfs.FS, p Plan) error {
	id, dst := p.Session, p.Dst()
	var err error
	for _, n := range []string{layout.Items(dst, id), layout.Record(dst, id), layout.Changes(dst, id), layout.Audit(dst, id), layout.Shell(dst, id), layout.Owner(dst, id), layout.Lock(dst, id)} {
		if rerr := fsys.Remove(n); rerr != nil && !vfs.IsNotExist(rerr) && err == nil {
			err = rerr
		}
	}
	for _, d := range []string{layout.SessionFolder(dst, layout.Outputs, id), layout.SessionFolder(dst, layout.Tasks, id)} {
		if rerr := durable.RemoveFolder(context.Background(), fsys, d); rerr != nil && err == nil {
			err = rerr
		}
	}
	if err == nil {
		err = fsys.SyncDir(layout.SessionsDir(dst))
	}
	if err != nil {
		return err
	}
	return DropPlan(fsys, id)
}
