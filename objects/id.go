package objects

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// ID names an object: the SHA-256 of its uncompressed content.
type ID [32]byte

// ParseID parses 64 lowercase hex digits, and nothing else.
func ParseID(s string) (ID, error) {
	var id ID
	if len(s) != 2*len(id) || !lowerHex(s) {
		return ID{}, fmt.Errorf("%w: %q", ErrBadID, s)
	}
	hex.Decode(id[:], []byte(s))
	return id, nil
}

// String is the ID as 64 lowercase hex digits.
func (id ID) String() string { return hex.EncodeToString(id[:]) }

// Sum is the ID of content b.
func Sum(b []byte) ID { return sha256.Sum256(b) }

func lowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
