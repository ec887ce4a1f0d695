package engine

import (
	"fmt"
	"os"
)

// WithEphemeralRoot makes OpenEphemeral put its temporary root in dir (the
// cairn command passes $XDG_RUNTIME_DIR); "" is the temp folder.
func WithEphemeralRoot(dir string) Option { return func(s *Store) { s.ephemeralRoot = dir } }

// OpenEphemeral opens a private temporary state root in the folder
// WithEphemeralRoot names (else the temp folder) for a session that leaves
// no record behind. Spend still goes to the usage ledger of the persistent
// state folder home, labelled ephemeral. Close removes the temporary root;
// a forced kill can leave it for the operating system to clean up.
func OpenEphemeral(home string, opts ...Option) (*Store, error) {
	var o Store
	for _, opt := range opts {
		opt(&o)
	}
	base := o.ephemeralRoot
	if base == "" {
		base = os.TempDir()
	}
	dir, err := os.MkdirTemp(base, "cairn-ephemeral-")
	if err != nil {
		return nil, fmt.Errorf("engine: ephemeral state root: %w", err)
	}
	s, err := Open(dir, opts...)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s.ephemeral = true
	if home != "" {
		if ls, err := Open(home, opts...); err == nil {
			s.ledger = ls
		}
	}
	return s, nil
}

// Ephemeral reports whether the store is a temporary root.
func (s *Store) Ephemeral() bool { return s.ephemeral }
