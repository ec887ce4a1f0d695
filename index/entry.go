package index

import (
	"cmp"
	"strings"
	"time"
)

// Entry is what the index keeps of one session record.
type Entry struct {
	ID          string
	Title       string
	TitleSource string // prompt, generated or user
	CreatedAt   time.Time
	UpdatedAt   time.Time // what the picker sorts on
	OpenedAt    time.Time
	Items       int
	Bytes       int64
	Branch      string
	Tier        string // full or transcript
	Pinned      bool
	ForkOf      string
	Path        string // the workspace path the record names
	// Remote is host:path of the remote workspace the session's files
	// are on (cairn --ssh), "" for a local session.
	Remote string
	// Journal is the size of the items journal the record says it
	// reflects (its "journals":{"items":N}), -1 when it does not say. A
	// journal of another size was written since, or damaged: its record
	// is behind it.
	Journal int64
}

// Problem is a record that could not be read or parsed. It is skipped by the
// listing, never fatal.
type Problem struct {
	Name string // the record's path in the workspace folder: sessions/<id>.json
	Err  string
}

// compareEntries orders newest UpdatedAt first, ties by ID.
func compareEntries(a, b *Entry) int {
	if c := b.UpdatedAt.Compare(a.UpdatedAt); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

func compareProblems(a, b Problem) int { return cmp.Compare(a.Name, b.Name) }
