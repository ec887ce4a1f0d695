package migrate

import (
	"context"
	"fmt"

	"cairn/engine/internal/errs"
	"cairn/internal/timefmt"
	"cairn/internal/vfs"
)

// Request is a move of the sessions of one stored directory, as the engine
// found them: the source directory as stored and its folder's key ("" when
// no workspace folder names it), the sessions saved there, and the
// destination's directory and key.
type Request struct {
	From, FromKey string
	To, ToKey     string
	IDs           []string
	Retarget      Retarget
	Options
}

// Host is what Sessions needs of the engine beyond an Owner.
type Host interface {
	Owner
	// Resolve finds the session of the source that ref (an id or unique
	// prefix) names.
	Resolve(ctx context.Context, ref string) (string, error)
	// SourceThere reports whether the source directory is there (or
	// cannot be opened for another reason than being gone).
	SourceThere() bool
	// RevertPending reports whether session id has a file revert pending.
	RevertPending(id string) bool
	// EnsureDst makes the destination's workspace folder.
	EnsureDst() error
	// Usage says what reattributing the source's usage to the
	// destination would move, and moves it when write is set.
	Usage(ctx context.Context, write bool) (*UsageMove, error)
	Now() timefmt.Time
}

// Sessions moves the sessions of r (all of them, or r.Session alone) and
// then the usage ledger's lines. It refuses (errs.ErrBusy) when another
// process owns any of them, and (errs.ErrRefused) while the source is there
// and any of them has a file revert pending, and moves none then: every
// lock is taken before the first move.
func Sessions(ctx context.Context, fsys vfs.FS, h Host, r Request) (*Result, error) {
	res := &Result{From: r.From, To: r.To, Sessions: []string{}}
	ids := r.IDs
	if r.Session != "" {
		if r.FromKey == "" {
			return nil, errs.NotFoundf("no sessions were saved in %s", r.From)
		}
		id, err := h.Resolve(ctx, r.Session)
		if err != nil {
			return nil, err
		}
		ids = []string{id}
	}
	if len(ids) == 0 && (r.Session != "" || r.NoUsage) {
		return nil, errs.NotFoundf("no sessions were saved in %s", r.From)
	}
	if len(ids) == 0 {
		// Only the ledger could move: nothing at all is a mistake (a
		// directory never used, or moved already).
		u, err := h.Usage(ctx, false)
		if err != nil {
			return nil, err
		}
		if u.Empty {
			return nil, errs.NotFoundf("no sessions were saved in %s, and the usage ledger holds nothing for it", r.From)
		}
	}
	if err := refusePendingReverts(h, ids); err != nil {
		return nil, err
	}
	moveUsage := r.Session == "" && !r.NoUsage
	if r.DryRun {
		res.Sessions = append(res.Sessions, ids...)
		if moveUsage {
			u, err := h.Usage(ctx, false)
			if err != nil {
				return nil, err
			}
			res.Usage = u
		}
		return res, nil
	}
	plan := func(id string) Plan {
		return Plan{V: 1, Kind: "move", Session: id, From: r.FromKey, To: r.ToKey, FromPath: r.From, ToPath: r.To, At: h.Now()}
	}
	// Every lock first: a move refused as busy moves nothing.
	locks := map[string]vfs.Lock{}
	defer func() {
		for id, l := range locks {
			h.Release(plan(id), false, l)
		}
	}()
	for _, id := range ids {
		l, err := h.Acquire(plan(id), false)
		if err != nil {
			return nil, err
		}
		locks[id] = l
	}
	// Again under the locks: a revert may have come since the first look.
	if err := refusePendingReverts(h, ids); err != nil {
		return nil, err
	}
	if len(ids) > 0 {
		if err := h.EnsureDst(); err != nil {
			return nil, err
		}
		if err := EnsureDir(fsys); err != nil {
			return nil, fmt.Errorf("engine: move: %w", err)
		}
	}
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		l := locks[id]
		delete(locks, id) // Move lets it go
		if err := Move(ctx, fsys, h, plan(id), l, r.Retarget); err != nil {
			return res, fmt.Errorf("engine: move session %s: %w", id, err)
		}
		res.Sessions = append(res.Sessions, id)
	}
	if moveUsage {
		u, err := h.Usage(ctx, true)
		if err != nil {
			return res, err
		}
		res.Usage = u
	}
	return res, nil
}

// refusePendingReverts refuses a move of sessions ids when one has a file
// revert pending. Its changes journal keeps what unrevert puts back; a move
// starts that journal again, so the reverted files could never be put
// back. While the directory is there the move is refused (the user
// unreverts, or sends new work to keep the files as they are); once it is
// gone, so are the files to put back.
func refusePendingReverts(h Host, ids []string) error {
	if len(ids) == 0 || !h.SourceThere() {
		return nil
	}
	for _, id := range ids {
		if h.RevertPending(id) {
			return errs.Refusedf("session %s has a file revert pending: unrevert it (cairn unrevert %s), or send new work to keep the files as they are, then move it", id, id)
		}
	}
	return nil
}
