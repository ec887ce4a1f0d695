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
	e := st.Pending
	return e != nil && len(st.List) > 0 && st.List[len(st.List)-1] == e && e.Applied
}

// prevBefore is the pre-image of path in the change before the pending
// one (Prev) while that change is unsettled too, and whether it has one: a
// crash may have lost both of their file changes, so a file still as that
// pre-image is as before the pending change too. It is nil when the
// change before is settled or did not change path.
func (st *Stack) prevBefore(path string) (*fstate.State, bool) {
	n := len(st.List)
	if st.Prev == nil || !st.HasPending() || n < 2 || st.List[n-2] != st.Prev || !st.Prev.Applied {
		return nil, false
	}
	for _, f := range st.Prev.Rec.Files {
		if f.Path == path && !f.Before.IsSkipped() && !fstate.Same(f.Before, f.After) {
			return f.Before, true
		}
	}
	return nil, false
}

// earlierBefores is the pre-images of path in the unsettled changes
// before the pending one (Unsettled): a file tool whose new content is in
// its line leaves its folder's sync to the end of the turn, so a crash may
// lose its file change and those of the changes after it, and a file still
// as the pre-image of any of them is as before the pending change too.
func (st *Stack) earlierBefores(path string) []*fstate.State {
	var out []*fstate.State
	for _, e := range st.Unsettled {
		if e == st.Pending {
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
// change before it (prevBefore, earlierBefores).
func (st *Stack) current(ctx context.Context, fsys vfs.FS, f FileChange) (cur *fstate.State, limit int64, before bool) {
	alts := st.earlierBefores(f.Path)
	if alt, ok := st.prevBefore(f.Path); ok {
		alts = append(alts, alt)
	}
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
	for _, f := range st.Pending.Rec.Files {
		if f.Before.IsSkipped() || fstate.Same(f.Before, f.After) {
			return false
		}
		if _, _, before := st.current(ctx, fsys, f); !before {
			return false
		}
	}
	return true
}
