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
// SHA-256 of the session id, a zero byte and the item's key.
func ItemID(session, key string) string {
	var b IDBuf
	return string(b.ItemID(session, key))
}

// IDBuf makes item ids as ItemID does without allocating, for a caller
// that makes thousands (a hook's catch-up, once per key of a long
// session's earlier reads).
type IDBuf struct {
	in [192]byte
	id [18]byte
}

// ItemID is ItemID's id, in b: valid until the next call.
func (b *IDBuf) ItemID(session, key string) []byte {
	var h [sha256.Size]byte
	if n := len(session) + 1 + len(key); n <= len(b.in) {
		copy(b.in[copy(b.in[:], session)+1:], key)
		b.in[len(session)] = 0
		h = sha256.Sum256(b.in[:n])
	} else {
		h = sha256.Sum256([]byte(session + "\x00" + key))
	}
	b.id[0], b.id[1] = 'i', '-'
	hex.Encode(b.id[2:], h[:8])
	return b.id[:]
}
