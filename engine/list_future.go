package engine

import (
	"time"

	"cairn/index"
)

// futureIDs are the sessions of a listing (newest first) whose updated_at
// is after limit: their records are rebuilt from their journals, whose
// future-dated lines do not count as activity.
func futureIDs(ents []index.Entry, limit time.Time) []string {
	var ids []string
	for _, e := range ents {
		if !e.UpdatedAt.After(limit) {
			break
		}
		ids = append(ids, e.ID)
	}
	return ids
}

// futureLast moves the entries dated after limit, which a newest-first
// listing puts first, below every other one (in their own order): a time in
// the future never outranks real activity. ents is not modified.
func futureLast(ents []index.Entry, limit time.Time) []index.Entry {
	k := len(futureIDs(ents, limit))
	if k == 0 {
		return ents
	}
	out := make([]index.Entry, 0, len(ents))
	out = append(out, ents[k:]...)
	return append(out, ents[:k]...)
}
