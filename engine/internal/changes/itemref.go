package changes

import "encoding/json"

// ItemRef is the "item" of a changes-journal line: where the line lies
// among the conversation's items, by the newest item when it was written.
// File revert's boundary places a line by it (engine: revertAfter), never
// by comparing times, which tie within a millisecond. Part of the format:
//
//	"item":ITEM   the newest item of the conversation when the line was written
//	"item":""     the conversation had no item yet: the line is before every item
//	(absent)      a line written before its kind recorded "item": placed by its time
//
// Known is false for the last (the zero ItemRef, which a line omits).
type ItemRef struct {
	ID    string
	Known bool
}

// NewestItem is the ItemRef of a line written when id was the newest item
// ("" for none).
func NewestItem(id string) ItemRef { return ItemRef{ID: id, Known: true} }

// MarshalJSON writes the item's id ("" included); a line omits an unknown
// one (its field is tagged omitzero).
func (r ItemRef) MarshalJSON() ([]byte, error) { return json.Marshal(r.ID) }

// UnmarshalJSON reads a present "item" as known; null reads as absent.
func (r *ItemRef) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*r = ItemRef{}
		return nil
	}
	if id, ok := plainString(b); ok {
		*r = NewestItem(id)
		return nil
	}
	var id string
	if err := json.Unmarshal(b, &id); err != nil {
		return err
	}
	*r = NewestItem(id)
	return nil
}

// plainString is the string JSON value b holds when it is printable ASCII
// without escapes, as every id is: its bytes are the string, as
// encoding/json would decode it, without a decoder set up per value.
func plainString(b []byte) (string, bool) {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return "", false
	}
	for _, c := range b[1 : len(b)-1] {
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return "", false
		}
	}
	return string(b[1 : len(b)-1]), true
}
