package fsck

import (
	"encoding/json"
	"fmt"
	"time"

	"cairn/engine/internal/layout"
	"cairn/internal/timefmt"
	"cairn/internal/vfs"
	"cairn/journal"
)

// record checks the record of session id in workspace folder dir (name is
// its path): that it reads, and that it is not older than its items
// journal. A stale record is a note, like a torn tail: the expected shape
// of a process killed between two record writes, which a listing or an
// open rebuilds. A session some process owns is left out: its record
// trails its journal by design until it closes.
func (c *Checker) record(dir, id, name string) {
	rec, err := c.Env.Record(dir, id)
	if err != nil {
		c.Bad(name, "unreadable record (rebuilt from the journal on next open): %v", err)
		return
	}
	future := c.Env.Future()
	if rec.UpdatedAt.After(future) {
		c.Note(name, "updated_at %s is in the future: not activity; the next listing rebuilds the record from the journal",
			rec.UpdatedAt.Format(timefmt.Layout))
	}
	items := layout.Items(dir, id)
	fi, err := c.FS.Stat(items)
	if vfs.IsNotExist(err) && !c.Env.Pending()[id] {
		if _, terr := c.FS.Lstat(layout.TrashEntry(id)); vfs.IsNotExist(terr) {
			c.Bad(name, "a record without its items journal: no listing shows it and no open finds it; prune removes it once %d days old", c.TrashDays)
		} // else a session split with the trash: the trash's check names it
		return
	}
	if err != nil {
		return // no items journal to compare with
	}
	c.futureLines(items, future)
	if covered := rec.ItemsBytes; covered != fi.Size() && !c.Env.Owned(dir, id) {
		c.Note(name, "stale record: it reflects %d bytes of %s, which holds %d (its process ended without closing it); rebuilt on the next listing or open",
			covered, items, fi.Size())
	}
}

// futureLines notes the lines of journal name dated after future: they
// do not count as activity.
func (c *Checker) futureLines(name string, future time.Time) {
	n, first, line := 0, 0, 0
	journal.Read(c.FS, name, func(b []byte) error {
		line++
		var l struct {
			At *timefmt.Time `json:"at"`
		}
		if json.Unmarshal(b, &l) == nil && l.At != nil && l.At.After(future) {
			if n++; n == 1 {
				first = line
			}
		}
		return nil
	})
	if n > 0 {
		c.Note(fmt.Sprintf("%s:%d", name, first), "%d line(s) dated in the future, the first here: not counted as activity", n)
	}
}

// Owned reports whether a process holds the lock file name, without
// changing anything (fsck only reads). A missing lock file is owned by
// no one: the session was never opened for writing.
func Owned(fsys vfs.FS, name string) bool {
	if _, err := fsys.Stat(name); err != nil {
		return false
	}
	l, err := fsys.Lock(name)
	if err != nil {
		return true // held, or cannot tell: say nothing
	}
	l.Release()
	return false
}
