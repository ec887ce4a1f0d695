package bgwork

import (
	"fmt"
	"slices"
)

// LiveWorks is the live work (running or cancelling), oldest first.
func (s *State) LiveWorks() []Work {
	var out []Work
	for _, w := range s.Works() {
		if w.Live() {
			out = append(out, w)
		}
	}
	return out
}

// ShellIDs is the ids of the shell jobs of ws.
func ShellIDs(ws []Work) []string {
	var out []string
	for _, w := range ws {
		if w.Type == TypeShell {
			out = append(out, w.ID)
		}
	}
	return out
}

// HeldShells is the live held shell jobs (running or cancelling where
// they run, elsewhere), oldest first.
func (s *State) HeldShells() []Work {
	out := s.LiveWorks()
	return slices.DeleteFunc(out, func(w Work) bool { return !w.Held || w.Type != TypeShell })
}

// SettleHeld settles held shell job id with how it ended where it ran
// (r.Outcome set), owing its result as a local job's is. It reports
// false, changing nothing, when the job is settled already: the same
// outcome may be told twice.
func (l *Ledger) SettleHeld(id string, r Result) (bool, error) {
	if r.Outcome == "" {
		return false, fmt.Errorf("%w: a held job settles with an outcome", ErrInvalid)
	}
	w, ok := l.Work(id)
	switch {
	case !ok:
		return false, fmt.Errorf("%w: %s", ErrNotFound, id)
	case !w.Held || w.Type != TypeShell:
		return false, refused("%s is not a shell job run elsewhere", id)
	case !w.Live():
		return false, nil
	}
	_, err := l.Settle(id, r)
	return err == nil, err
}
