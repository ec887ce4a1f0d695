package migrate

import "cairn/internal/timefmt"

// UsageMove is a reattribution of the usage ledger: its buckets are
// (directory, model); a bucket moved had no counterpart at the
// destination, a bucket merged was added to the destination's. Empty: the
// ledger holds nothing for the source directory.
type UsageMove struct {
	Lines  int  `json:"lines"`
	Moved  int  `json:"moved"`
	Merged int  `json:"merged"`
	Empty  bool `json:"empty"`
}

// Bucket is one (directory, model) sum of the usage ledger and how many
// turns it counts.
type Bucket struct {
	Path, Model string
	Turns       int
}

// UsageOf says what reattributing from's buckets to to would move.
func UsageOf(sums []Bucket, from, to string) *UsageMove {
	u := &UsageMove{}
	at := map[string]bool{}
	for _, x := range sums {
		if x.Path == to {
			at[x.Model] = true
		}
	}
	for _, x := range sums {
		if x.Path != from {
			continue
		}
		u.Lines += x.Turns
		if at[x.Model] {
			u.Merged++
		} else {
			u.Moved++
		}
	}
	u.Empty = u.Moved+u.Merged == 0
	return u
}

// UsageLine is the ledger's reattribution line. Part of the format:
//
//	{"v":1,"kind":"move","at":T,"from":DIR,"to":DIR}
//
// A reader applies it to every line before it: each (from, model) bucket
// is added to (to, model). The ledger stays append-only — one write to a
// file opened for appending, so no other process's line is lost or
// rewritten, and a crash leaves the line whole or absent — and the lines
// written after it (new work at the old directory) stay where they are.
type UsageLine struct {
	V    int          `json:"v"`
	Kind string       `json:"kind"`
	At   timefmt.Time `json:"at"`
	From string       `json:"from"`
	To   string       `json:"to"`
}

// Options choose what a move takes.
type Options struct {
	// Session moves one session only (an id or unique id prefix of the
	// source): it keeps its own counters, and the usage ledger is left
	// attributed to the source (it cannot tell one session's share).
	Session string
	// NoUsage leaves the usage ledger as it is.
	NoUsage bool
	// DryRun says what the move would do, and writes nothing.
	DryRun bool
}

// Result says what a move did.
type Result struct {
	From     string   `json:"from"`
	To       string   `json:"to"`
	Sessions []string `json:"sessions"` // the ids moved
	// Usage is what the ledger reattribution did; nil when it was not
	// asked for (a single-session move, NoUsage).
	Usage *UsageMove `json:"usage"`
}
