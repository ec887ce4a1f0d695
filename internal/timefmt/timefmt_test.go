package timefmt

import (
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
