package changes

import (
	"context"

	"cairn/engine/internal/fstate"
	"cairn/internal/vfs"
)

// PartlyMade returns the plan that unmakes the pending change when its tool
// stopped between its files (apply_patch changes several, each swap atomic
// but not all of them together): every file it changes is, read through
// fsys, still as before or already as after, some of each. The plan gives
// the files as after their pre-image back, each checked to hold after
// still; once it has run, the change is unmade (Unmade) and its abort line
// may be written. It is not partly made (ok false) when a file holds
// anything else (a hand edit since: the change counts as made, as Unmade
// says), or when a file as after has a pre-image canPut says cannot be
// put back (absent, it is removed).
func (st *Stack) PartlyMade(ctx context.Context, fsys vfs.FS, canPut func(*fstate.State) bool) (p Plan, ok bool) {
	if !st.HasPending() {
		return Plan{}, false
	}
	files := st.pending.Rec.Files
	p.Files = make([]File, len(files))
	made, unmade := 0, 0
	for i, f := range files {
		p.Files[i] = File{Path: f.Path, Leave: true}
		if fstate.Same(f.Before, f.After) || f.After.IsSkipped() {
			continue
		}
		cur, limit, before := st.current(ctx, fsys, f)
		switch {
		case fstate.Same(cur, f.After):
			if f.Before.IsSkipped() || (f.Before != nil && !canPut(f.Before)) {
				return Plan{}, false
			}
			made++
			p.Files[i] = File{Path: f.Path, To: f.Before, Check: true, Expect: f.After, MaxRead: limit}
		case f.Before.IsSkipped() || before:
			// Not reached by the tool (a skipped pre-image cannot be
			// compared, and was not written either).
			unmade++
		default:
			return Plan{}, false
		}
	}
	return p, made > 0 && unmade > 0
}
