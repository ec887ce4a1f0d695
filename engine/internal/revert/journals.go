package revert

import (
	"fmt"
	"strings"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/errs"
	"cairn/internal/timefmt"
	"cairn/internal/vfs"
	"cairn/journal"
)

// What a file revert reads besides its own journal's fold: the records
// another session's store budget dropped, and the changes other sessions
// made to the same files.

// ReadTimeline folds the changes journal name for file revert; lines it
// cannot fold are skipped (fsck names them). A journal that does not exist
// folds to an empty timeline.
func ReadTimeline(fsys vfs.FS, name string) (*changes.Timeline, error) {
	tl := &changes.Timeline{}
	_, err := journal.Read(fsys, name, func(b []byte) error {
		if l, err := changes.Decode(b); err == nil {
			tl.Fold(l)
		}
		return nil
	})
	if err != nil && !vfs.IsNotExist(err) {
		return nil, fmt.Errorf("engine: read %s: %w", name, err)
	}
	return tl, nil
}

// BudgetDrops is the records the store budget dropped, as the workspace's
// drops journal (name) names them (any session's: a fork holds its
// parent's). A journal that cannot be read refuses the revert: which
// records it needs were dropped cannot be told.
func BudgetDrops(fsys vfs.FS, name string) (map[string]bool, error) {
	out := map[string]bool{}
	_, err := journal.Read(fsys, name, func(b []byte) error {
		tl := changes.Timeline{}
		if l, err := changes.Decode(b); err == nil && tl.Fold(l) == nil {
			for id := range tl.Dropped {
				out[id] = true
			}
		}
		return nil
	})
	if err != nil && !vfs.IsNotExist(err) {
		return nil, cannotCheck("whether the records it needs were dropped", name, err)
	}
	return out, nil
}

// cannotCheck refuses a file revert whose check of what (a file of the
// state folder, name) could not be made: it cannot tell, so it does not
// go ahead.
func cannotCheck(what, name string, err error) error {
	return errs.Refusedf("cannot revert files: cannot check %s (%s: %w); nothing was changed", what, name, err)
}

// Sessions is where a workspace's sessions keep their changes journals: the
// folder, whether a name is a session id, and the name of a session's
// changes journal.
type Sessions struct {
	Dir     string
	Valid   func(id string) bool
	Changes func(id string) string
}

// Foreign is what the other sessions of the workspace changed, for the
// interleaving check: each of their steps that this session's (self)
// journal, folded to mine, does not hold too (a fork and its parent share
// lines). A sessions folder or another session's changes journal that
// cannot be read refuses the revert: whether another session changed the
// files cannot be told.
func Foreign(fsys vfs.FS, ss Sessions, self string, mine *changes.Timeline) (changes.Foreign, error) {
	key := func(st *changes.Step) string { return st.Kind + " " + st.ID + " " + timefmt.Format(st.At.Time) }
	own := map[string]bool{}
	for _, st := range mine.Steps {
		own[key(st)] = true
	}
	at := map[string][]timefmt.Time{}
	ents, err := fsys.ReadDir(ss.Dir)
	if err != nil {
		return nil, cannotCheck("whether another session changed the same files", ss.Dir, err)
	}
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".changes.jsonl")
		if !ok || id == self || !ss.Valid(id) {
			continue
		}
		tl, err := ReadTimeline(fsys, ss.Changes(id))
		if err != nil {
			return nil, cannotCheck("whether another session changed the same files", ss.Changes(id), err)
		}
		for _, st := range tl.Steps {
			if own[key(st)] {
				continue
			}
			for _, m := range st.Moves {
				at[m.Path] = append(at[m.Path], st.At)
			}
		}
	}
	return func(p string, lo, hi timefmt.Time) bool {
		for _, t := range at[p] {
			if !t.Before(lo.Time) && !t.After(hi.Time) {
				return true
			}
		}
		return false
	}, nil
}
