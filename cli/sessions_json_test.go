package cli

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"cairn/engine"
	"cairn/index"
)

// The listing's hand-written JSON is byte for byte what encoding/json
// writes for the same rows.
func TestSessionsJSONMatchesEncoding(t *testing.T) {
	at := time.Date(2026, 11, 29, 9, 12, 3, 120e6, time.UTC)
	sums := []engine.Summary{
		{Entry: index.Entry{ID: "a", Title: "t \"quoted\" <b>\n\xff", CreatedAt: at, UpdatedAt: at.Add(time.Hour), Items: 3, Tier: "full", Path: "/w", Branch: "main"}},
		{Entry: index.Entry{ID: "b", ForkOf: "a", Pinned: true, Tier: "transcript"}, OwnerPID: 4711},
	}
	var got bytes.Buffer
	if err := writeSessionsJSON(&got, sums); err != nil {
		t.Fatal(err)
	}
	rows := []sessionRow{toRow(sums[0]), toRow(sums[1])}
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	enc.Encode(rows)
	if got.String() != want.String() {
		t.Fatalf("got  %s\nwant %s", got.String(), want.String())
	}
	got.Reset()
	writeSessionsJSON(&got, nil)
	if got.String() != "[]\n" {
		t.Fatalf("empty listing: %q", got.String())
	}
}
