package layout

import (
	"testing"

	"github.com/google/uuid"
)

// TestValidSessionID: the hand check says what uuid.Parse says of a
// lowercase, canonical version 4 UUID, and nothing more.
func TestValidSessionID(t *testing.T) {
	v4 := uuid.NewString()
	for s, want := range map[string]bool{
		v4:                                       true,
		"0a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d":   true,
		"0a1b2c3d-4e5f-1a6b-8c7d-0e1f2a3b4c5d":   false, // version 1
		"0A1B2C3D-4E5F-4A6B-8C7D-0E1F2A3B4C5D":   false, // upper case
		"0a1b2c3d4e5f4a6b8c7d0e1f2a3b4c5d":       false, // no dashes
		"{0a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d}": false,
		"0a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5":    false,
		"0a1b2c3d-4e5f-4a6b-8c7d_0e1f2a3b4c5d":   false,
		"../../etc/passwd-aaaaaaaaaaaaaaaaaaa":   false,
		"":                                       false,
	} {
		u, err := uuid.Parse(s)
		parsed := err == nil && u.String() == s && u.Version() == 4
		if got := ValidSessionID(s); got != want || got != parsed {
			t.Errorf("ValidSessionID(%q) = %v, want %v (uuid.Parse says %v)", s, got, want, parsed)
		}
	}
}
