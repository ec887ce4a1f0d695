package hookmark

import (
	"cairn/engine/internal/changes"
	"cairn/engine/internal/fstate"
	"cairn/engine/internal/overlap"
	"cairn/internal/timefmt"
)

// Change is a file edit whose pre-images are captured and whose
// after states are not recorded yet: the marker's content.
type Change struct {
	V       int                  `json:"v"`
	Tool    string               `json:"tool"`
	Call    string               `json:"call,omitempty"`
	Item    changes.ItemRef      `json:"item,omitzero"` // where the call began (began)
	At      timefmt.Time         `json:"at"`
	Files   []changes.FileChange `json:"files"`
	Skipped fstate.Names         `json:"skipped,omitempty"`
	Off     bool                 `json:"off,omitempty"`
	// The unit of calls running at the same time it belongs to.
	overlap.Mark
}

// Exec is a shell command whose scope is captured and whose record
// is not written yet: an exec marker's content.
type Exec struct {
	V     int             `json:"v"`
	Kind  string          `json:"kind"`
	Tool  string          `json:"tool"`
	Call  string          `json:"call,omitempty"`
	Item  changes.ItemRef `json:"item,omitzero"` // where the call began (began)
	ID    string          `json:"id"`
	At    timefmt.Time    `json:"at"`
	Scope string          `json:"scope"`
	Paths fstate.Names    `json:"paths,omitempty"`
	Tree  struct {
		SHA256  string `json:"sha256"`
		Entries int    `json:"entries"`
	} `json:"tree"`
	// Unrecorded (not in the marker) is why the command runs without a
	// record, when the store refused one.
	Unrecorded string `json:"-"`
	// The unit of calls running at the same time it belongs to.
	overlap.Mark
}
