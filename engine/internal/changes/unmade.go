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

// Unmade reports whether the pending change was never made: a file tool
// writes its line first and may have stopped before its write. It was not
// made when every file, read through fsys, is still as before and not as
// after; a file that cannot be compared, or that holds anything else,
// counts as made (a hand edit since). Undoing a change wrongly taken as not
// made would have restored what the files already hold.
func (st *Stack) Unmade(ctx context.Context, fsys vfs.FS) bool {
	if !st.HasPending() {
		return false
	}
	for _, f := range st.Pending.Rec.Files {
		if f.Before.IsSkipped() || fstate.Same(f.Before, f.After) {
			return false
		}
		cur, _ := fstate.Capture(ctx, fsys, fstate.HashSink, f.Path, fstate.SizeLimit(1, f.Before, f.After))
		if !fstate.Same(cur, f.Before) {
			return false
		}
	}
	return true
}
