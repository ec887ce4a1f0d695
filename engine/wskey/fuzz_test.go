package wskey

import (
	"errors"
	"strings"
	"testing"
)

func FuzzEncodeDecode(f *testing.F) {
	for _, s := range []string{"/", "/home/me/my-proj", "/a b", "/100%", "/é/日", "/a~b", "/" + strings.Repeat("z-", 150)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		got, err := Decode(Encode(p))
		if p == "" {
			if !errors.Is(err, ErrBadKey) {
				t.Fatalf("Decode(\"\") err = %v", err)
			}
			return
		}
		if err != nil || got != p {
			t.Fatalf("Decode(Encode(%q)) = %q, %v", p, got, err)
		}
		k := Key(p)
		if len(k) > MaxKeyLen+1+HashLen {
			t.Fatalf("len(Key) = %d", len(k))
		}
		if len(Encode(p)) <= MaxKeyLen && k != Encode(p) {
			t.Fatalf("short key changed")
		}
		if _, err := Decode(k); len(Encode(p)) > MaxKeyLen && !errors.Is(err, ErrNotReversible) {
			t.Fatalf("Decode(long key) err = %v", err)
		}
	})
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{"-", "-a%2Db", "-a~2", "-a~0123456789abcdef", "%", "-%2", "-%41", "~", "-a%7E", "-a~02"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, key string) {
		p, err := Decode(key)
		if err != nil {
			if !errors.Is(err, ErrBadKey) && !errors.Is(err, ErrNotReversible) {
				t.Fatalf("Decode(%q): unexpected error %v", key, err)
			}
			return
		}
		if Encode(p) != key {
			t.Fatalf("Decode(%q) = %q, but Encode gives %q", key, p, Encode(p))
		}
	})
}
