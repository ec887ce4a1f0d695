package engine

import (
	"time"

	"cairn/internal/timefmt"
)

// timeLayout is how every time is written: RFC 3339 in UTC with
// milliseconds (timefmt, the one layout).
const timeLayout = timefmt.Layout

// Time is a time.Time that marshals as RFC 3339 UTC with milliseconds.
type Time = timefmt.Time

func mkTime(t time.Time) Time { return timefmt.Mk(t) }

// A stored time in the future (a clock that was wrong when it was written,
// a hand-edited file) degrades to nothing: it is not activity. Folding a
// journal, a line dated after Store.future does not move updated_at, so a
// record rebuilt from it, and every write after it, carries real times; a
// listing rebuilds a record whose updated_at is after it, and lists one it
// cannot rebuild below every real time (workspace.go); fsck names both.

// futureSkew is how far ahead of the clock a time may be and still count
// as now: two processes, or two machines sharing a state folder, never
// agree to the millisecond.
const futureSkew = time.Minute

// future is the latest time that is not in the future.
func (s *Store) future() time.Time { return s.now().Add(futureSkew) }
