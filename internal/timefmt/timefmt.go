// Package timefmt holds the one time layout of everything cairn writes:
// RFC 3339 in UTC with milliseconds ("2026-11-29T09:12:03.120Z"). Journals,
// records, the index, workspace.json and JSON answers all use it. Part of
// the format (drawn in engine/doc.go). It imports nothing of ours, so every package,
// the bottom ones included, may use it.
package timefmt

import (
	"bytes"
	"encoding/json"
	"time"
)

// Layout is the time layout of the format. Part of the format.
const Layout = "2006-01-02T15:04:05.000Z"

// Format is t in UTC, in Layout.
func Format(t time.Time) string { return t.UTC().Format(Layout) }

// Time is a time.Time that marshals as Layout (null when zero) and reads
// any RFC 3339 time, in UTC.
type Time struct{ time.Time }

// MarshalJSON writes t in Layout, or null for the zero time.
func (t Time) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return json.Marshal(Format(t.Time))
}

// UnmarshalJSON reads an RFC 3339 time, or null (the zero time).
func (t *Time) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		t.Time = time.Time{}
		return nil
	}
	// The common case, a string with no escapes that parses: every byte
	// of it is one of the layout's, so it is the string encoding/json
	// would decode. Anything else goes the long way, for its error.
	if len(b) > 1 && b[0] == '"' && b[len(b)-1] == '"' && bytes.IndexByte(b[1:len(b)-1], '\\') < 0 {
		if v, err := time.Parse(time.RFC3339Nano, string(b[1:len(b)-1])); err == nil {
			t.Time = v.UTC()
			return nil
		}
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return err
	}
	t.Time = v.UTC()
	return nil
}

// Mk is t as the format keeps it: UTC, cut to the millisecond.
func Mk(t time.Time) Time { return Time{t.UTC().Truncate(time.Millisecond)} }
