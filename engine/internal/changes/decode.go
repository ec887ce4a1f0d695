package changes

import (
	"errors"

	json "github.com/segmentio/encoding/json"

	"cairn/engine/internal/fstate"
	"cairn/internal/timefmt"
)

// Line is any line of the changes journal as read: the fields of every
// kind, each fold taking those of the kinds it reads. Decode reads one,
// once, and the folds (Stack, Timeline, Records) each take it in turn.
// The shapes for writing are the kinds' own (ChangeLine, UndoLine, ...).
type Line struct {
	V     int          `json:"v"`
	Kind  string       `json:"kind"`
	ID    string       `json:"id"`
	IDs   []string     `json:"ids"`
	Seq   int          `json:"seq"`
	At    timefmt.Time `json:"at"`
	Tool  string       `json:"tool"`
	Call  string       `json:"call"`
	Item  ItemRef      `json:"item"`
	Scope string       `json:"scope"`
	Why   string       `json:"why"`
	// Paths: a call line's (records.go).
	Paths fstate.Names `json:"paths"`
	// Part, Parts, To: a revert line's; Left a reverted or unreverted
	// line's (timeline_revert.go).
	Part  int          `json:"part"`
	Parts int          `json:"parts"`
	To    string       `json:"to"`
	Left  fstate.Names `json:"left"`
	// Members: an overlap line's (overlap.go).
	Members []OverlapMember `json:"members"`
	Files   []RawFile       `json:"files"`
}

// RawFile is one file of a line as read: "before" and "after" (a change
// or record line), "kept" (an undo line), "kept" and "put" (a revert
// line).
type RawFile struct {
	Path   fstate.Name   `json:"path"`
	Before *fstate.State `json:"before"`
	After  *fstate.State `json:"after"`
	Kept   *fstate.State `json:"kept"`
	Put    *fstate.State `json:"put"`
}

// errNotLine is a line that is not JSON of version 1.
var errNotLine = errors.New("not a change line")

// Decode reads one line of the changes journal. A line that is not JSON,
// or not of version 1, is an error: every fold skips it (fsck names it).
// Every hook folds the whole journal, so it decodes with
// segmentio/encoding/json, as the items journal's fold does: less CPU per
// line and less reflection set up per process than encoding/json, whose
// verdict and Line it gives for any line (TestDecodeAsEncodingJSON,
// FuzzChangesDecodeAsEncodingJSON; engine:
// TestChangesJournalDecodesAsEncodingJSON).
func Decode(b []byte) (*Line, error) {
	l := new(Line)
	if err := json.Unmarshal(b, l); err != nil || l.V != 1 {
		return nil, errNotLine
	}
	return l, nil
}
