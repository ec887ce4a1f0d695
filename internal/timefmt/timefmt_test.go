package timefmt

import (
	"encoding/json"
	"testing"
	"time"
)

// TestFormat: UTC, milliseconds, a Z; parsed back by RFC 3339.
func TestFormat(t *testing.T) {
	in := time.Date(2026, 11, 29, 10, 12, 3, 120_456_789, time.FixedZone("x", 3600))
	got := Format(in)
	if got != "2026-11-29T09:12:03.120Z" {
		t.Fatalf("Format = %q", got)
	}
	back, err := time.Parse(time.RFC3339Nano, got)
	if err != nil || !back.Equal(in.Truncate(time.Millisecond)) {
		t.Fatalf("parsed back %v, %v", back, err)
	}
}

// TestTimeJSON: a Time writes Layout, the zero time null, and reads both.
func TestTimeJSON(t *testing.T) {
	in := Mk(time.Date(2026, 11, 29, 9, 12, 3, 120_999_999, time.UTC))
	b, err := in.MarshalJSON()
	if err != nil || string(b) != `"2026-11-29T09:12:03.120Z"` {
		t.Fatalf("marshal: %s, %v", b, err)
	}
	var back Time
	if err := back.UnmarshalJSON(b); err != nil || !back.Equal(in.Time) {
		t.Fatalf("unmarshal: %v, %v", back, err)
	}
	if b, _ := (Time{}).MarshalJSON(); string(b) != "null" {
		t.Fatalf("zero marshals as %s", b)
	}
	if err := back.UnmarshalJSON([]byte("null")); err != nil || !back.IsZero() {
		t.Fatalf("null reads as %v, %v", back, err)
	}
}

// FuzzUnmarshalAsString: a time reads as RFC 3339 parses the string
// encoding/json decodes from it (the plain ones without a decoder, the
// rest with one), or fails where that fails.
func FuzzUnmarshalAsString(f *testing.F) {
	for _, s := range []string{`"2026-11-29T09:12:03.120Z"`, `"2026-11-29T10:12:03+01:00"`, `null`, `"\u0032026-11-29T09:12:03Z"`,
		`"2026-11-29T09:12:03.1234567891Z"`, `"2026-11-29 09:12:03Z"`, "\"2026-11-29T09:12:03Z\xff\"", `""`, `"`, `1`, `"2026-11-29T09:12:03Z`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var want time.Time
		var s string
		werr := json.Unmarshal(b, &s)
		if werr == nil {
			var v time.Time
			v, werr = time.Parse(time.RFC3339Nano, s)
			want = v.UTC()
		}
		if string(b) == "null" {
			want, werr = time.Time{}, nil
		}
		var got Time
		gerr := got.UnmarshalJSON(b)
		if (werr == nil) != (gerr == nil) || (werr == nil && !got.Time.Equal(want)) || got.Location() != want.Location() {
			t.Fatalf("%q: %v (%v), want %v (%v)", b, got.Time, gerr, want, werr)
		}
	})
}
