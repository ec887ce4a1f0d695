package wskey

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/quick"
)

func TestEncodeExamples(t *testing.T) {
	long := "/" + strings.Repeat("d", 250)
	sum := sha256.Sum256([]byte(long))
	for _, tc := range []struct{ path, key string }{
		{"/home/me/my-proj", "-home-me-my%2Dproj"},
		{"/a/b", "-a-b"},
		{"/a-b", "-a%2Db"},
		{"/a b", "-a%20b"},
		{"/100%/x", "-100%25-x"},
		{"/a~b", "-a%7Eb"},
		{"/.hidden/v1.2_x", "-.hidden-v1.2_x"},
		{"/tmp/é", "-tmp-%C3%A9"},
		{"/日", "-%E6%97%A5"},
		{"/x\x00y\xff", "-x%00y%FF"},
		{"/", "-"},
		{long, "-" + strings.Repeat("d", 179) + "~" + hex.EncodeToString(sum[:])[:16]},
	} {
		if got := Key(tc.path); got != tc.key {
			t.Errorf("Key(%q) = %q, want %q", tc.path, got, tc.key)
		}
		got, err := Decode(tc.key)
		if tc.path == long {
			if !errors.Is(err, ErrNotReversible) {
				t.Errorf("Decode(hashed) = %q, %v; want ErrNotReversible", got, err)
			}
			continue
		}
		if err != nil || got != tc.path {
			t.Errorf("Decode(%q) = %q, %v; want %q", tc.key, got, err, tc.path)
		}
	}
	if a, b, c := Key("/a/b"), Key("/a-b"), Key("/a b"); a == b || b == c || a == c {
		t.Errorf("three paths share a key: %q %q %q", a, b, c)
	}
}

// The cut before the hash never splits a %XX escape.
func TestKeyCutsBeforeEscape(t *testing.T) {
	for pad := 170; pad < 185; pad++ {
		p := "/" + strings.Repeat("a", pad) + strings.Repeat("-", 30)
		k := Key(p)
		if len(k) > MaxKeyLen+1+HashLen {
			t.Fatalf("len(Key) = %d", len(k))
		}
		head, _, ok := strings.Cut(k, "~")
		if !ok {
			t.Fatalf("long key %q has no hash", k)
		}
		if len(head) > KeepLen || len(head) < KeepLen-2 {
			t.Errorf("pad %d: kept %d bytes, want %d-%d", pad, len(head), KeepLen-2, KeepLen)
		}
		if !strings.HasPrefix(Encode(p), head) {
			t.Errorf("pad %d: kept part is not a prefix of the encoding", pad)
		}
		if _, err := decode(head); err != nil {
			t.Errorf("pad %d: kept part %q does not decode: %v", pad, head[len(head)-6:], err)
		}
		if _, err := Decode(k); !errors.Is(err, ErrNotReversible) {
			t.Errorf("Decode(long key) err = %v, want ErrNotReversible", err)
		}
	}
	// Exactly MaxKeyLen is kept whole; one more is hashed.
	p := "/" + strings.Repeat("x", MaxKeyLen-1)
	if k := Key(p); k != Encode(p) {
		t.Errorf("a %d-byte key was shortened", MaxKeyLen)
	}
	if k := Key(p + "x"); strings.IndexByte(k, '~') != KeepLen {
		t.Errorf("a %d-byte key was not shortened: %q", MaxKeyLen+1, k)
	}
}

func TestDecodeRejects(t *testing.T) {
	for _, tc := range []struct {
		key  string
		want error
	}{
		{"", ErrBadKey},
		{"-a%2db", ErrBadKey}, // lowercase hex
		{"-a%41", ErrBadKey},  // 'A' needs no escape
		{"-a%2F", ErrBadKey},  // '/' is '-'
		{"-a%2", ErrBadKey},   // cut escape
		{"-a%", ErrBadKey},    // cut escape
		{"-a b", ErrBadKey},   // raw space
		{"-a%ZZ", ErrBadKey},  // not hex
		{"-a/b", ErrBadKey},   // raw slash
		{"-a~", ErrBadKey},    // empty tail
		{"~2", ErrBadKey},     // no head
		{"-a~1", ErrBadKey},   // ~1 is never used
		{"-a~02", ErrBadKey},  // leading zero
		{"-a~x", ErrBadKey},   // not a suffix
		{"-a%2~2", ErrBadKey}, // bad head
		{"-a~2", ErrNotReversible},
		{"-a~17", ErrNotReversible},
		{"-a~0123456789abcdef", ErrNotReversible},
		{"-a~0123456789abcdef~3", ErrNotReversible},
		{"-a~0123456789ABCDEF", ErrBadKey},
		{"-a~0123456789abcdef~", ErrBadKey},
	} {
		got, err := Decode(tc.key)
		if !errors.Is(err, tc.want) {
			t.Errorf("Decode(%q) = %q, %v; want %v", tc.key, got, err, tc.want)
		}
	}
}

func randomPath(r *rand.Rand, maxLen int) string {
	n := r.IntN(maxLen)
	b := make([]byte, 1, n+1)
	b[0] = '/'
	for range n {
		switch r.IntN(4) {
		case 0:
			b = append(b, byte(r.UintN(256)))
		case 1:
			b = append(b, "/-%~. _aZ9"[r.IntN(10)])
		default:
			b = append(b, byte('a'+r.IntN(26)))
		}
	}
	return string(b)
}

func TestPropertyRoundTrip(t *testing.T) {
	f := func(tail []byte) bool {
		p := "/" + string(tail)
		got, err := Decode(Encode(p))
		return err == nil && got == p
	}
	if err := quick.Check(f, &quick.Config{MaxCount: 5000}); err != nil {
		t.Error(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		p := randomPath(r, 120)
		if got, err := Decode(Encode(p)); err != nil || got != p {
			t.Fatalf("Decode(Encode(%q)) = %q, %v", p, got, err)
		}
	}
}

func TestPropertyKeysDistinct(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	seen := make(map[string]string)
	add := func(p string) {
		k := Key(p)
		if len(k) > MaxKeyLen+1+HashLen {
			t.Fatalf("len(Key(%q)) = %d", p, len(k))
		}
		if strings.IndexByte(k, '~') >= 0 != (len(Encode(p)) > MaxKeyLen) {
			t.Fatalf("Key(%q) = %q: hash rule misapplied", p, k)
		}
		if q, ok := seen[k]; ok && q != p {
			t.Fatalf("paths %q and %q share key %q", p, q, k)
		}
		seen[k] = p
	}
	for range 20000 {
		add(randomPath(r, 300))
	}
	// Long paths that share their first 180 key bytes differ by the hash.
	prefix := "/" + strings.Repeat("p", 200)
	for i := range 2000 {
		add(prefix + "/" + strings.Repeat("q", i%7) + string(rune('a'+i%26)) + string(rune('0'+i/26%10)) + string(rune('A'+i/260)))
	}
	// Paths that differ only in case or in separators.
	for _, p := range []string{"/A", "/a", "/a/b", "/a-b", "/a b", "/a%2Db", "/a_b", "/a.b", "/a~b"} {
		add(p)
	}
}
