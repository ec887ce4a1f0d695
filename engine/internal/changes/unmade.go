package changes

import (
	"context"

	"cairn/engine/internal/fstate"
	"cairn/internal/vfs"
)

// HasPending reports whether the stack's newest change is pending: its
// line the journal's last, nothing after it, its file tool maybe stopped
// before its write.
func (st *Stack) HasPending() bool {
	e := st.pending
	return e != nil && len(st.list) > 0 && st.list[len(st.list)-1] == e && e.Applied
}

// earlierBefores is the pre-images of path in the unsettled changes
// before the pending one (Unsettled; Prev among them): a crash may have
// lost their file changes with the pending one's (a file tool writes its
// line while the folder sync of the one before is under way, and one whose
// new content is in its line leaves that sync to the end of the turn), so
// a file still as the pre-image of any of them is as before the pending
// change too.
func (st *Stack) earlierBefores(path string) []*fstate.State {
	var out []*fstate.State
	for _, e := range st.unsettled {
		if e == st.pending {
			break
		}
		for _, f := range e.Rec.Files {
			if f.Path == path && !f.Before.IsSkipped() && !fstate.Same(f.Before, f.After) {
				out = append(out, f.Before)
			}
		}
	}
	return out
}

// current captures the file of f of the pending change as it is now,
// reading at most what telling its states apart needs, and says whether
// it is as before the change: its pre-image, or that of an unsettled
// change before it (earlierBefores).
func (st *Stack) current(ctx context.Context, fsys vfs.FS, f FileChange) (cur *fstate.State, limit int64, before bool) {
	alts := st.earlierBefores(f.Path)
	limit = fstate.SizeLimit(1, append([]*fstate.State{f.Before, f.After}, alts...)...)
	cur, _ = fstate.Capture(ctx, fsys, fstate.HashSink, f.Path, limit)
	// A file as the change's after state is made, even when that is the
	// pre-image before both.
	before = !f.Before.IsSkipped() && fstate.Same(cur, f.Before)
	for _, alt := range alts {
		before = before || (fstate.Same(cur, alt) && !fstate.Same(cur, f.After))
	}
	return cur, limit, before
}

// Unmade reports whether the pending change was never made: a file tool
// writes its line first and may have stopped before its write. It was not
// made when every file, read through fsys, is still as before and not as
// after; a file that cannot be compared, or that holds anything else,
// counts as made (a hand edit since). Undoing a change wrongly taken as not
// made would have restored what the files already hold. While the change
// before it is unsettled too (Prev), a file it also changed may be as
// before both: the pending change is unmade, and that one is judged next
// (engine: Session.loadChanges). So may a file as before any unsettled
// change further back (earlierBefores): a change whose folder's sync waits
// for the end of the turn may have been lost behind later lines.
func (st *Stack) Unmade(ctx context.Context, fsys vfs.FS) bool {
	if !st.HasPending() {
		return false
	}
	for _, f := range st.pending.Rec.Files {
		if f.Before.IsSkipped() || fstate.Same(f.Before, f.After) {
			return false
		}
		if _, _, before := st.current(ctx, fsys, f); !before {
			return false
		}
	}
	return true
}
