package engine

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"cairn/engine/internal/migrate"
	"cairn/index"
	"cairn/journal"
)

// fsckItems folds the items journal name of workspace folder dir as a load
// does, and names each line the fold passes over without a word: a line of
// another version or of an unknown kind, one that breaks the tree (an item
// without id or with an unknown type, a head moved to an unknown item), an
// item whose parent no earlier line holds, an item written again, a second
// session line (the journal was copied onto itself, or spliced). A journal
// that cannot be read at all is fsckJournal's to report.
func (s *Store) fsckItems(dir, name string, bad reporter) {
	id, ok := strings.CutSuffix(path.Base(name), ".items.jsonl")
	if !ok || !validSessionID(id) {
		return
	}
	st := newState(id, "")
	type skip struct {
		good int    // the good-th line read
		ref  int    // another line read, named by the one %d of why (0: none)
		why  string // what is wrong
	}
	var skips []skip
	first := map[string]int{} // item id -> the line that wrote it first
	sessionAt, good := 0, 0
	jst, err := journal.Read(s.fsys, name, func(b []byte) error {
		good++
		why := func(format string, a ...any) { skips = append(skips, skip{good, 0, fmt.Sprintf(format, a...)}) }
		var l itemLine
		if err := json.Unmarshal(b, &l); err != nil {
			why("not an items line, skipped by a load: %v", err)
			return nil
		}
		if l.V != 1 {
			why("a line of version %d, skipped by a load (this build reads version 1)", l.V)
			return nil
		}
		switch l.Kind {
		case kindSession:
			if sessionAt != 0 {
				skips = append(skips, skip{good, sessionAt, "a second session line (the first is line %d): the journal holds another copy of a session's lines"})
				return nil
			}
			sessionAt = good
		case kindItem:
			if at, again := first[l.ID]; again && l.ID != "" {
				skips = append(skips, skip{good, at, "item " + l.ID + " written again (first at line %d): a load keeps this one"})
			} else if l.ID != "" {
				first[l.ID] = good
			}
			if l.Parent != nil && *l.Parent != "" && st.items[*l.Parent] == nil {
				why("item %s names parent %s, which no earlier line holds", l.ID, *l.Parent)
			}
		case kindTurn:
			if l.Turn != nil {
				if p := l.Turn.Spend.problem(); p != "" {
					why("turn %d's spend is not counted in the session's total: %s", l.Turn.N, p)
				}
			}
		case kindHead, kindTitle, kindOpen, kindMeta, kindDraft, migrate.KindMoved, journal.KindRepair:
		default:
			why("a line of unknown kind %q, skipped by a load", l.Kind)
			return nil
		}
		if err := st.apply(&l); err != nil {
			why("skipped by a load: %v", err)
		}
		return nil
	})
	if err != nil {
		return
	}
	for _, k := range skips {
		why := k.why
		if k.ref > 0 {
			why = fmt.Sprintf(why, fileLine(k.ref, jst.Bad))
		}
		bad(fmt.Sprintf("%s:%d", name, fileLine(k.good, jst.Bad)), "%s", why)
	}
	if sessionAt == 0 && good > 0 {
		bad(name, "no session line: a listing leaves the session out and an open refuses it")
	}
	s.fsckRecordAgrees(dir, id, st, bad)
}

// fsckRecordAgrees names a record that says it reflects the whole items
// journal (its size) but disagrees with the journal's fold on what a
// listing shows: the title, the item count, the head. Listings trust the
// record; only an open rebuilds it. A stale record, or one a live owner is
// still to update, is fsckRecord's to note.
func (s *Store) fsckRecordAgrees(dir, id string, st *state, bad reporter) {
	rec, err := readRecord(s.fsys, dir, id)
	if err != nil {
		return
	}
	fi, err := s.fsys.Stat(itemsName(dir, id))
	if err != nil || rec.Journals["items"] != fi.Size() || s.ownedNow(dir, id) {
		return
	}
	if rec.Title != st.title || rec.Counts.Items != len(st.items) || rec.Head != st.head {
		bad(recordName(dir, id), "the record disagrees with its journal, which it says it reflects whole: it says %q, %d items, head %q; "+
			"the journal holds %q, %d items, head %q; listings show the record until an open of the session rebuilds it",
			rec.Title, rec.Counts.Items, rec.Head, st.title, len(st.items), st.head)
	}
}

// fsckFolderFiles checks the files of workspace folder dir that are not
// journals or records: index.json, which a listing rebuilds when it cannot
// use it (a note), and the sessions' lock files, which must be regular
// files for a session to be opened for writing.
func (s *Store) fsckFolderFiles(dir string, bad, note reporter) {
	if err := index.CheckFile(s.fsys, dir); err != nil {
		note(path.Join(dir, "index.json"), "unusable (%v): the next listing rebuilds it from the records", err)
	}
	ents, err := s.fsys.ReadDir(path.Join(dir, "sessions"))
	if err != nil {
		return
	}
	for _, e := range ents {
		if id, ok := strings.CutSuffix(e.Name(), ".lock"); ok && validSessionID(id) && !e.Type().IsRegular() {
			bad(lockName(dir, id), "not a regular file (%v): the session cannot be opened for writing until it is removed", e.Type())
		}
	}
}
