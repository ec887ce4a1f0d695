package engine

import (
	"time"

	"cairn/journal"
)

// The conversation log: a session's part that holds its conversation. It
// is the folded state (state.go: the items, their tree, the head and the
// standing state the record summarises), the items journal that state is
// folded from and appended to (session_write.go), the trail
// (<id>.audit.jsonl, audit.go), the record derived from both (record.go,
// written by commit.go), and Degrade mode's lines kept in memory until
// they can be written (degrade.go, over engine/internal/convlog).
//
// Lock: every field is guarded by Session.mu (doc_map.go, "Locks, in full", 3). The
// session's other parts keep their own: the changes log (snaps) its
// stack's mutexes, the shell and task logs theirs, the usage queue
// Session.mu as well.

// convLog is the conversation log of one session, embedded in Session so
// that its methods read its fields as their own.
type convLog struct {
	st    *state
	items *journal.Writer // the items journal, nil until the session is recorded
	audit *journal.Writer // the trail, nil until its first line

	// recorded: the session's files exist. unrecorded: writing failed and
	// the session goes on in memory (Degrade mode), keeping what it could
	// not write until it can (degrade.go).
	recorded   bool
	unrecorded error
	kept       degraded

	recordOff     int64 // items journal size the record reflects
	recordDurable bool  // the record at recordOff was synced
	recordStale   bool  // the last record write failed (writeRecordLocked)
	recordTitle   string
	recordAt      time.Time
	recordSettled int // the settled turn the last record written says
	// bareSize is the size of the items journal this process created with
	// nothing but its session line (0 otherwise): a session that still
	// holds only that when it closes is removed (discardBare).
	bareSize int64
	// trailPending counts turns whose trail lines are not synced yet
	// (turn_settle.go).
	trailPending int

	genTitled     bool
	ceilingWarned bool
	ceiling       int64 // the eager-load ceiling in bytes, read once
}

// newConvLog is the conversation log of a session whose state is st.
func newConvLog(st *state) convLog { return convLog{st: st} }

// head is the id of the head item ("" for an empty conversation).
func (c *convLog) head() string { return c.st.Head }

// transcript is the conversation on the head path, oldest first.
func (c *convLog) transcript() []Item { return copyItems(c.st.HeadPath()) }

// allItems is every item of every branch, in the order they were written.
func (c *convLog) allItems() []Item { return copyItems(c.st.All()) }

func copyItems(in []*Item) []Item {
	out := make([]Item, len(in))
	for i, it := range in {
		out[i] = *it
	}
	return out
}
