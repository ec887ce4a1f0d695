package changes

import "cairn/internal/timefmt"

// Limits are the undo stack's limits (snapshots.max_per_session and
// max_bytes_per_session): the oldest snapshots over them are dropped when
// a change is made.
type Limits struct {
	MaxPerSession int
	MaxBytes      int64
}

// NewChange is the lines a new change of files writes, in order: the
// discard of the undone branch, the change line, and the drop of the oldest
// snapshots over the limits; live is the stack they leave.
func (st *Stack) NewChange(now timefmt.Time, tool, call string, item ItemRef, files []FileChange, c Limits) (rec ChangeLine, lines []any, live []*Entry) {
	rec = st.NewRecord(now, tool, call, item, files)
	if ids := st.Undone(); len(ids) > 0 {
		lines = append(lines, ListLine{V: 1, Kind: KindDiscard, IDs: ids, At: now})
	}
	rest, live := st.AfterChange(rec, c)
	return rec, append(append(lines, rec), rest...), live
}

// NewRecord is the change line of a new change of files, written when item
// was the newest item.
func (st *Stack) NewRecord(now timefmt.Time, tool, call string, item ItemRef, files []FileChange) ChangeLine {
	return ChangeLine{V: 1, Kind: KindChange, ID: NewSnapID(now.Time), Seq: st.seq + 1, At: now,
		Tool: tool, Call: call, Item: item, Scope: "paths", Files: files}
}

// AfterChange is what change rec, once made, does to the stack: the undone
// branch ends and the oldest snapshots over the limits are dropped. lines
// records the drop; live is the stack left.
func (st *Stack) AfterChange(rec ChangeLine, c Limits) (lines []any, live []*Entry) {
	live = append(append([]*Entry(nil), st.list[:st.Cursor()]...), &Entry{Rec: rec, Applied: true})
	drops, why := overLimits(live, c)
	if len(drops) > 0 {
		lines = append(lines, ListLine{V: 1, Kind: KindDrop, IDs: drops, At: rec.At, Why: why})
		live = live[len(drops):]
	}
	return lines, live
}

// overLimits returns the oldest snapshots of list to drop so that at most
// max_per_session remain and they refer to at most max_bytes_per_session.
// The newest one is always kept.
func overLimits(list []*Entry, c Limits) ([]string, string) {
	var total int64
	for _, e := range list {
		total += e.Bytes()
	}
	var drops []string
	why := ""
	for i := 0; i < len(list)-1; i++ {
		switch {
		case len(list)-i > c.MaxPerSession:
			if why == "" {
				why = "max_per_session"
			}
		case total > c.MaxBytes:
			if why == "" {
				why = "max_bytes_per_session"
			}
		default:
			return drops, why
		}
		drops = append(drops, list[i].Rec.ID)
		total -= list[i].Bytes()
	}
	return drops, why
}
