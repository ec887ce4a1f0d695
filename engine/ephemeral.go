package engine

import (
	"fmt"
	"os"

	"cairn/engine/internal/ephroot"
)

// WithEphemeralRoot makes OpenEphemeral put its temporary root in dir (the
// cairn command passes $XDG_RUNTIME_DIR); "" is the temp folder.
func WithEphemeralRoot(dir string) Option { return func(s *Store) { s.ephemeralRoot = dir } }

// OpenEphemeral opens a private temporary state root (under
// WithEphemeralRoot, else the temp folder) whose sessions leave no record;
// spend goes to home's usage ledger. Close removes the root.
func OpenEphemeral(home string, opts ...Option) (*Store, error) {
	base := ephemeralBase(opts)
	ephroot.Sweep(base) // what dead owners left; SweepEphemeral says what failed
	r, err := ephroot.Make(base)
	if err != nil {
		return nil, fmt.Errorf("engine: ephemeral state root: %w", err)
	}
	s, err := Open(r.Dir(), opts...)
	if err != nil {
		r.Remove()
		return nil, err
	}
	s.ephemeral, s.ephRoot = true, r
	if home != "" {
		if ls, err := Open(home, opts...); err == nil {
			s.ledger = ls
		}
	}
	return s, nil
}

// SweepEphemeral removes the temporary roots that ephemeral stores whose
// process died left in the folder WithEphemeralRoot names (else the temp
// folder), and says how many. A root whose owner lives is never touched.
func SweepEphemeral(opts ...Option) (int, error) {
	removed, err := ephroot.Sweep(ephemeralBase(opts))
	if err != nil {
		return len(removed), fmt.Errorf("engine: remove a temporary state folder an ephemeral run left: %w", err)
	}
	return len(removed), nil
}

// ephemeralBase is the folder ephemeral roots are made in under opts.
func ephemeralBase(opts []Option) string {
	var o Store
	for _, opt := range opts {
		opt(&o)
	}
	return o.ephemeralBase()
}

// ephemeralBase is the folder the store's options make ephemeral roots in.
func (s *Store) ephemeralBase() string {
	if s.ephemeralRoot != "" {
		return s.ephemeralRoot
	}
	return os.TempDir()
}

// fsckEphemeral names the temporary roots of ephemeral runs whose process
// died, in the folder this store's options make them in: each holds a
// conversation the run meant to leave nowhere.
func (s *Store) fsckEphemeral(note reporter) {
	stale, err := ephroot.Stale(s.ephemeralBase())
	if err != nil {
		note(s.ephemeralBase(), "temporary state folders of ephemeral runs could not all be checked: %v", err)
	}
	for _, dir := range stale {
		note(dir, "the temporary state folder of an ephemeral run whose process died (its conversation included); the next cairn REPL to start removes it")
	}
}

// Ephemeral reports whether the store is a temporary root.
func (s *Store) Ephemeral() bool { return s.ephemeral }
