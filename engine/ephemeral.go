package engine

import (
	"fmt"
	"os"
)

// OpenEphemeral opens a private temporary state root under $XDG_RUNTIME_DIR
// (else the temp folder) for a session that leaves no record behind. Spend
// still goes to the usage ledger of the persistent state folder home,
// labelled ephemeral. Close removes the temporary root; a forced kill can
// leave it for the operating system to clean up.
func OpenEphemeral(home string, opts ...Option) (*Store, error) {
	base := os.Getenv("XDG_RUNTIME_DIR")
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
