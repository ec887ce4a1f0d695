package hookrec

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/google/uuid"
)

// SessionID is the cairn session id of an agent's session, the same for a
// hook and an import: a version 4 UUID made from the SHA-256 of the
// agent's name and the source id.
func SessionID(agent, sourceID string) string {
	h := sha256.Sum256([]byte("cairn import\x00" + agent + "\x00" + sourceID))
	h[6] = h[6]&0x0f | 0x40 // version 4
	h[8] = h[8]&0x3f | 0x80 // RFC 4122 variant
	u, _ := uuid.FromBytes(h[:16])
	return u.String()
}

// ItemID is the item id of a source item: "i-" and 16 hex digits of the
// SHA-256 of the session id and the item's key.
func ItemID(session, key string) string {
	h := sha256.Sum256([]byte(session + "\x00" + key))
	return "i-" + hex.EncodeToString(h[:8])
}
