package revert

import "cairn/internal/timefmt"

// Point is the boundary of a file revert to an item of a conversation
// kept elsewhere: the item (a compaction already followed to its
// original), whether it is a user prompt, its time, and the
// conversation's items in the order written, which place the records.
type Point struct {
	Item   string       `json:"item"`
	Prompt bool         `json:"prompt,omitempty"`
	At     timefmt.Time `json:"at"`
	Order  []string     `json:"order"`
}
