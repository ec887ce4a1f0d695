package fsck

import (
	"fmt"
	"path"
	"strings"

	"cairn/engine/internal/layout"
	"cairn/index"
	"cairn/internal/vfs"
	"cairn/journal"
)

// items folds items journal name of workspace folder dir as a load does,
// and names each line the fold passes over without a word: a line of
// another version or of an unknown kind, one that breaks the tree (an item
// without id or with an unknown type, a head moved to an unknown item), an
// item whose parent no earlier line holds, an item written again, a second
// session line (the journal was copied onto itself, or spliced). A journal
// that cannot be read at all is Journal's to report.
func (c *Checker) items(dir, name string) {
	id, ok := strings.CutSuffix(path.Base(name), layout.ItemsSuffix)
	if !ok || !layout.ValidSessionID(id) {
		return
	}
	st := ItemsTree(id)
	type skip struct {
		good int    // the good-th line read
		ref  int    // another line read, named by the one %d of why (0: none)
		why  string // what is wrong
	}
	var skips []skip
	first := map[string]int{} // item id -> the line that wrote it first
	sessionAt, good := 0, 0
	jst, err := journal.Read(c.FS, name, func(b []byte) error {
		good++
		why := func(format string, a ...any) { skips = append(skips, skip{good, 0, fmt.Sprintf(format, a...)}) }
		l, err := st.Decode(b)
		if err != nil {
			why("not an items line, skipped by a load: %v", err)
			return nil
		}
		if l.V != 1 {
			why("a line of version %d, skipped by a load (this build reads version 1)", l.V)
			return nil
		}
		switch l.Role {
		case Session:
			if sessionAt != 0 {
				skips = append(skips, skip{good, sessionAt, "a second session line (the first is line %d): the journal holds another copy of a session's lines"})
				return nil
			}
			sessionAt = good
		case Item:
			if at, again := first[l.ID]; again && l.ID != "" {
				skips = append(skips, skip{good, at, "item " + l.ID + " written again (first at line %d): a load keeps this one"})
			} else if l.ID != "" {
				first[l.ID] = good
			}
			if l.Parent != "" && !st.Has(l.Parent) {
				why("item %s names parent %s, which no earlier line holds", l.ID, l.Parent)
			}
		case Turn:
			if l.Spend != "" {
				why("turn %d's spend is not counted in the session's total: %s", l.Turn, l.Spend)
			}
		case Known:
		default:
			why("a line of unknown kind %q, skipped by a load", l.Kind)
			return nil
		}
		if err := st.Apply(); err != nil {
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
			why = fmt.Sprintf(why, FileLine(k.ref, jst.Bad))
		}
		c.Bad(fmt.Sprintf("%s:%d", name, FileLine(k.good, jst.Bad)), "%s", why)
	}
	if sessionAt == 0 && good > 0 {
		c.Bad(name, "no session line: a listing leaves the session out and an open refuses it")
	}
	c.recordAgrees(dir, id, st)
}

// recordAgrees names a record that says it reflects the whole items
// journal (its size) but disagrees with the journal's fold on what a
// listing shows: the title, the item count, the head. Listings trust the
// record; only an open rebuilds it. A stale record, or one a live owner is
// still to update, is record's to note.
func (c *Checker) recordAgrees(dir, id string, st Tree) {
	rec, err := c.Env.Record(dir, id)
	if err != nil {
		return
	}
	fi, err := c.FS.Stat(layout.Items(dir, id))
	if err != nil || rec.ItemsBytes != fi.Size() || c.Env.Owned(dir, id) {
		return
	}
	title, items, head := st.Shows()
	if rec.Title != title || rec.Items != items || rec.Head != head {
		c.Bad(layout.Record(dir, id), "the record disagrees with its journal, which it says it reflects whole: it says %q, %d items, head %q; "+
			"the journal holds %q, %d items, head %q; listings show the record until an open of the session rebuilds it",
			rec.Title, rec.Items, rec.Head, title, items, head)
	}
}

// folderFiles checks the files of workspace folder dir that are not
// journals or records: index.json, which a listing rebuilds when it cannot
// use it (a note), and the sessions' lock files, which must be regular
// files for a session to be opened for writing.
func (c *Checker) folderFiles(dir string) {
	if err := index.CheckFile(c.FS, dir); err != nil {
		c.Note(path.Join(dir, layout.IndexFile), "unusable (%v): the next listing rebuilds it from the records", err)
	}
	ents, err := c.FS.ReadDir(layout.SessionsDir(dir))
	if err != nil {
		return
	}
	for _, e := range ents {
		if id, ok := strings.CutSuffix(e.Name(), layout.LockSuffix); ok && layout.ValidSessionID(id) && !e.Type().IsRegular() {
			c.Bad(layout.Lock(dir, id), "not a regular file (%v): the session cannot be opened for writing until it is removed", e.Type())
		}
	}
}

// emptySessions names the sessions of workspace folder dir that hold
// nothing (empty): the picker lists them with no title and no item.
func (c *Checker) emptySessions(dir string) {
	ents, err := c.FS.ReadDir(layout.SessionsDir(dir))
	if err != nil {
		return
	}
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), layout.ItemsSuffix)
		if !ok || !layout.ValidSessionID(id) || !c.empty(dir, id) {
			continue
		}
		c.Bad(layout.Items(dir, id), "empty session: it holds no item and nothing else (left by a creation that failed); remove %s to drop it",
			path.Join(dir, layout.Sessions, id+".*"))
	}
}

// empty reports whether session id of workspace folder dir holds nothing:
// its items journal has no line but its session line (and open and repair
// lines), or no complete line at all (a line that is not JSON is damage,
// not emptiness: Journal names it), and it has no change records, trail,
// shell history, tool outputs or tasks. Older builds left such sessions
// behind when their creation failed (a full disk); cairn now makes a
// session by one rename, with its first line, and removes one that ends
// up holding nothing.
func (c *Checker) empty(dir, id string) bool {
	for _, n := range []string{layout.Changes(dir, id), layout.Audit(dir, id), layout.Shell(dir, id),
		layout.SessionFolder(dir, layout.Outputs, id), layout.SessionFolder(dir, layout.Tasks, id)} {
		if _, err := c.FS.Lstat(n); !vfs.IsNotExist(err) {
			return false
		}
	}
	st := ItemsTree(id)
	empty := true
	jst, err := journal.Read(c.FS, layout.Items(dir, id), func(b []byte) error {
		l, err := st.Decode(b)
		if err != nil || !l.Empty {
			empty = false // a bad line is damage, reported as such
		}
		return nil
	})
	return err == nil && empty && len(jst.Bad) == 0
}
