package wskey

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// Length rule of keys; part of the format.
const (
	// MaxKeyLen is the longest key kept whole.
	MaxKeyLen = 200
	// KeepLen is how many bytes of a longer key are kept before the hash.
	KeepLen = 180
	// HashLen is how many hex digits of the path's SHA-256 follow the '~'.
	HashLen = 16
)

const hexDigits = "0123456789ABCDEF"

// plain reports whether b stands for itself in a key.
func plain(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || b == '.' || b == '_'
}

// Encode returns the reversible encoding of path, without the length rule:
// '/' becomes '-', bytes in [A-Za-z0-9._] stay, every other byte becomes %XX.
func Encode(path string) string {
	n := 0
	for i := 0; i < len(path); i++ {
		if c := path[i]; c == '/' || plain(c) {
			n++
		} else {
			n += 3
		}
	}
	var b strings.Builder
	b.Grow(n)
	for i := 0; i < len(path); i++ {
		switch c := path[i]; {
		case c == '/':
			b.WriteByte('-')
		case plain(c):
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
		}
	}
	return b.String()
}

// Key returns the workspace key of path: Encode, then the length rule (a key
// over MaxKeyLen bytes keeps KeepLen bytes, never cut inside an escape, and
// ends in '~' and HashLen hex digits of the path's SHA-256).
func Key(path string) string {
	k := Encode(path)
	if len(k) <= MaxKeyLen {
		return k
	}
	cut := KeepLen
	switch {
	case k[cut-1] == '%':
		cut--
	case k[cut-2] == '%':
		cut -= 2
	}
	sum := sha256.Sum256([]byte(path))
	return k[:cut] + "~" + hex.EncodeToString(sum[:])[:HashLen]
}

// Decode returns the path that Encode turned into key. It fails with
// ErrNotReversible for a well-formed hashed or suffixed key, and with ErrBadKey
// for anything Encode cannot produce; when it succeeds, Encode of the result
// is key.
func Decode(key string) (string, error) {
	if key == "" {
		return "", fmt.Errorf("%w: empty", ErrBadKey)
	}
	if i := strings.IndexByte(key, '~'); i >= 0 {
		if _, err := decode(key[:i]); err != nil {
			return "", err
		}
		if !validTail(key[i:], i > 0) {
			return "", fmt.Errorf("%w: %q", ErrBadKey, key)
		}
		return "", fmt.Errorf("%w: %q", ErrNotReversible, key)
	}
	return decode(key)
}

func decode(key string) (string, error) {
	b := make([]byte, 0, len(key))
	for i := 0; i < len(key); i++ {
		switch c := key[i]; {
		case c == '-':
			b = append(b, '/')
		case plain(c):
			b = append(b, c)
		case c == '%':
			if i+2 >= len(key) {
				return "", fmt.Errorf("%w: %q: cut escape at byte %d", ErrBadKey, key, i)
			}
			hi, lo := unhex(key[i+1]), unhex(key[i+2])
			if hi < 0 || lo < 0 {
				return "", fmt.Errorf("%w: %q: bad escape at byte %d", ErrBadKey, key, i)
			}
			v := byte(hi<<4 | lo)
			if v == '/' || plain(v) {
				return "", fmt.Errorf("%w: %q: needless escape at byte %d", ErrBadKey, key, i)
			}
			b = append(b, v)
			i += 2
		default:
			return "", fmt.Errorf("%w: %q: byte %#x at %d", ErrBadKey, key, c, i)
		}
	}
	return string(b), nil
}

// unhex decodes one uppercase hex digit, or returns -1.
func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// validTail reports whether t is what Key and Resolve append to a key:
// an optional "~" + HashLen lowercase hex digits, then an optional "~N" with
// N >= 2 and no leading zero. There must be something before it (hasHead).
func validTail(t string, hasHead bool) bool {
	if !hasHead || t == "" {
		return false
	}
	if len(t) >= 1+HashLen && isLowerHex(t[1:1+HashLen]) && (len(t) == 1+HashLen || t[1+HashLen] == '~') {
		t = t[1+HashLen:]
		if t == "" {
			return true
		}
	}
	return validSuffix(t)
}

// validSuffix reports whether t is "~N", N a decimal >= 2 without a leading zero.
func validSuffix(t string) bool {
	if len(t) < 2 || t[0] != '~' || t[1] == '0' || t == "~1" {
		return false
	}
	for i := 1; i < len(t); i++ {
		if t[i] < '0' || t[i] > '9' {
			return false
		}
	}
	return true
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
