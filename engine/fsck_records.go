package engine

import (
	"encoding/json"
	"fmt"
	"time"

	"cairn/engine/internal/trash"
	"cairn/internal/vfs"
	"cairn/journal"
)

// fsckRecord checks the record of session id in workspace folder dir (name
// is its path): that it reads, and that it is not older than its items
// journal. A stale record is a note, like a torn tail: the expected shape
// of a process killed between two record writes, which a listing or an
// open rebuilds. A session some process owns is left out: its record
// trails its journal by design until it closes.
func (s *Store) fsckRecord(dir, id, name string, bad, note reporter) {
	rec, err := readRecord(s.fsys, dir, id)
	if err != nil {
		bad(name, "unreadable record (rebuilt from the journal on next open): %v", err)
		return
	}
	future := s.future()
	if rec.UpdatedAt.After(future) {
		note(name, "updated_at %s is in the future: not activity; the next listing rebuilds the record from the journal",
			rec.UpdatedAt.Format(timeLayout))
	}
	fi, err := s.fsys.Stat(itemsName(dir, id))
	if vfs.IsNotExist(err) && !s.pendingPlans()[id] {
		if _, terr := s.fsys.Lstat(trash.Entry(id)); vfs.IsNotExist(terr) {
			bad(name, "a record without its items journal: no listing shows it and no open finds it; prune removes it once %d days old", TrashDays)
		} // else a session split with the trash: fsckTrash names it
		return
	}
	if err != nil {
		return // no items journal to compare with
	}
	s.fsckFutureLines(itemsName(dir, id), future, note)
	if covered := rec.Journals["items"]; covered != fi.Size() && !s.ownedNow(dir, id) {
		note(name, "stale record: it reflects %d bytes of %s, which holds %d (its process ended without closing it); rebuilt on the next listing or open",
			covered, itemsName(dir, id), fi.Size())
	}
}

// ownedNow reports whether a process holds session id's lock, without
// changing anything (fsck only reads).
func (s *Store) ownedNow(dir, id string) bool {
	if _, err := s.fsys.Stat(lockName(dir, id)); err != nil {
		return false // never opened for writing: no lock file to make
	}
	l, err := s.fsys.Lock(lockName(dir, id))
	if err != nil {
		return true // held, or cannot tell: say nothing
	}
	l.Release()
	return false
}

// fsckFutureLines notes the lines of journal name dated after future: they
// do not count as activity (times.go).
func (s *Store) fsckFutureLines(name string, future time.Time, note reporter) {
	n, first, line := 0, 0, 0
	journal.Read(s.fsys, name, func(b []byte) error {
		line++
		var l struct {
			At *Time `json:"at"`
		}
		if json.Unmarshal(b, &l) == nil && l.At != nil && l.At.After(future) {
			if n++; n == 1 {
				first = line
			}
		}
		return nil
	})
	if n > 0 {
		note(fmt.Sprintf("%s:%d", name, first), "%d line(s) dated in the future, the first here: not counted as activity", n)
	}
}
