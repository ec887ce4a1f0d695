// Package timefmt holds the one time layout of everything cairn writes:
// RFC 3339 in UTC with milliseconds ("2026-11-29T09:12:03.120Z"). Journals,
// records, the index, workspace.json and JSON answers all use it. Part of
// the format (FORMAT.md). It imports nothing of ours, so every package,
// the bottom ones included, may use it.
package timefmt

import "time"

// Layout is the time layout of the format. Part of the format.
const Layout = "2006-01-02T15:04:05.000Z"

// Format is t in UTC, in Layout.
func Format(t time.Time) string { return t.UTC().Format(Layout) }
