package engine

import (
	"crypto/rand"
	"encoding/hex"
	"strings"

	"github.com/google/uuid"
)

// newSessionID is a random version 4 UUID: two sessions cannot collide
// however many run, and the name says nothing about its content.
func newSessionID() string { return uuid.NewString() }

// validSessionID reports whether s is a session id as cairn writes them: a
// lowercase version 4 UUID. Anything else is never used to build a path.
func validSessionID(s string) bool {
	u, err := uuid.Parse(s)
	return err == nil && u.String() == s && u.Version() == 4
}

// newItemID is an item id: "i-" and 16 random hex digits.
func newItemID() string { return "i-" + randHex(8) }

func randHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// validItemID reports whether s looks like an item id.
func validItemID(s string) bool {
	if !strings.HasPrefix(s, "i-") || len(s) < 3 || len(s) > 64 {
		return false
	}
	for _, c := range s[2:] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c == '-') {
			return false
		}
	}
	return true
}
