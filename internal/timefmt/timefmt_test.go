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
