package hookrec

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

// An item id is "i-" and 16 hex digits of the SHA-256 of the session
// id, a zero byte and the key, short keys and long (past IDBuf's
// buffer), through ItemID and through one IDBuf used again and again.
func TestItemID(t *testing.T) {
	var b IDBuf
	for _, key := range []string{"", "k", "prompt:abc", strings.Repeat("x", 150), strings.Repeat("y", 400), "a\x00b"} {
		for _, session := range []string{"s-1", "d2987541-2ad6-4a32-81f6-8b84ff72f432"} {
			h := sha256.Sum256([]byte(session + "\x00" + key))
			want := "i-" + hex.EncodeToString(h[:8])
			if got := ItemID(session, key); got != want {
				t.Fatalf("ItemID(%q, %q) = %s, want %s", session, key, got, want)
			}
			if got := string(b.ItemID(session, key)); got != want {
				t.Fatalf("IDBuf.ItemID(%q, %q) = %s, want %s", session, key, got, want)
			}
		}
	}
}
