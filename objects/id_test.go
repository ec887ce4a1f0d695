package objects

import (
	"errors"
	"strings"
	"testing"
)

const emptySHA = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

func TestParseID(t *testing.T) {
	cases := []struct {
		s  string
		ok bool
	}{
		{emptySHA, true},
		{strings.Repeat("0", 64), true},
		{strings.Repeat("f", 64), true},
		{"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", true},
		{"", false},
		{emptySHA[:63], false},
		{emptySHA + "0", false},
		{strings.ToUpper(emptySHA), false},
		{"E" + emptySHA[1:], false},
		{" " + emptySHA[1:], false},
		{emptySHA[:63] + "\n", false},
		{emptySHA[:63] + "g", false},
		{"0x" + emptySHA[2:], false},
		{emptySHA[:62] + ".z", false},
		{emptySHA[:32], false},
		{strings.Repeat("é", 32), false},
		{emptySHA[:63] + "\x00", false},
	}
	for _, c := range cases {
		id, err := ParseID(c.s)
		if c.ok {
			if err != nil || id.String() != c.s {
				t.Errorf("ParseID(%q) = %s, %v", c.s, id, err)
			}
		} else if !errors.Is(err, ErrBadID) || id != (ID{}) {
			t.Errorf("ParseID(%q) = %s, %v; want ErrBadID", c.s, id, err)
		}
	}
	if Sum(nil).String() != emptySHA {
		t.Errorf("Sum(nil) = %s", Sum(nil))
	}
}

func FuzzParseID(f *testing.F) {
	f.Add(emptySHA)
	f.Add(strings.ToUpper(emptySHA))
	f.Add(emptySHA[:63])
	f.Add(emptySHA + "\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		id, err := ParseID(s)
		if err != nil {
			if !errors.Is(err, ErrBadID) {
				t.Fatalf("ParseID(%q): %v", s, err)
			}
			return
		}
		if id.String() != s {
			t.Fatalf("ParseID(%q) = %s", s, id)
		}
		again, err := ParseID(id.String())
		if err != nil || again != id {
			t.Fatalf("round trip of %s: %s %v", id, again, err)
		}
	})
}
