package engine

import (
	"crypto/rand"
	"encoding/hex"

	"cairn/engine/internal/layout"

	"github.com/google/uuid"
)

// newSessionID is a random version 4 UUID: two sessions cannot collide
// however many run, and the name says nothing about its content.
func newSessionID() string { return uuid.NewString() }

// IsSessionID reports whether s is a session id as cairn writes them: a
// lowercase version 4 UUID.
func IsSessionID(s string) bool { return validSessionID(s) }

// validSessionID reports whether s is a session id as cairn writes them: a
// lowercase version 4 UUID. Anything else is never used to build a path.
func validSessionID(s string) bool { return layout.ValidSessionID(s) }

// newItemID is an item id: "i-" and 16 random hex digits.
func newItemID() string { return "i-" + randHex(8) }

func randHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
