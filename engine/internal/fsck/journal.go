package fsck

import (
	"encoding/json"
	"fmt"
	"strings"

	"cairn/engine/internal/changes"
	"cairn/journal"
)

// Journal reads journal name, counting it and its lines; named, when not
// nil, collects the objects its lines name. A changes journal goes through
// changes instead.
func (c *Checker) Journal(name string, named map[string][]string) {
	if strings.HasSuffix(name, ".changes.jsonl") {
		c.changes(name, named, nil)
		return
	}
	c.journal(name, nil, func(b []byte, line int) {
		if named != nil {
			for _, oid := range OIDsIn(b) {
				named[oid] = append(named[oid], fmt.Sprintf("%s:%d", name, line))
			}
		}
	})
}

// changes reads a changes journal: its lines must fold into the undo
// stack, the records and the file revert timeline. Its records that are
// dropped (by its own drop lines, or dead: the workspace's drops.jsonl)
// name nothing, since prune frees their objects; their lines are held back
// until the journal is read.
func (c *Checker) changes(name string, named map[string][]string, dead map[string]bool) {
	stack, recs, reverts := &changes.Stack{}, &changes.Records{}, &revertFsck{}
	type held struct {
		record string
		oids   []string
		where  string
	}
	var pending []held
	gone := map[string]bool{}
	for rec := range dead {
		gone[rec] = true
	}
	fold := func(b []byte) error {
		l, err := changes.Decode(b)
		why := reverts.check(l)
		if err != nil {
			return err
		} else if err := stack.Fold(l); err != nil {
			return err
		} else if err := recs.Fold(l); err != nil {
			return err
		} else if why != "" {
			return fmt.Errorf("file revert line: %s", why)
		}
		return nil
	}
	c.journal(name, fold, func(b []byte, line int) {
		if named == nil {
			return
		}
		where := fmt.Sprintf("%s:%d", name, line)
		var l struct {
			Kind string   `json:"kind"`
			ID   string   `json:"id"`
			IDs  []string `json:"ids"`
		}
		if json.Unmarshal(b, &l) == nil {
			switch l.Kind {
			case changes.KindDrop:
				for _, id := range l.IDs {
					gone[id] = true
				}
			case changes.KindChange, changes.KindRecord:
				pending = append(pending, held{l.ID, OIDsIn(b), where})
				return
			}
		}
		for _, oid := range OIDsIn(b) {
			named[oid] = append(named[oid], where)
		}
	})
	for _, h := range pending {
		if gone[h.record] {
			continue
		}
		for _, oid := range h.oids {
			named[oid] = append(named[oid], h.where)
		}
	}
}

// journal reads journal name: fold, when not nil, says why the undo stack
// skips a line; each is called with each line and its number among the
// lines read (the file's numbering when no bad line comes before).
func (c *Checker) journal(name string, fold func(b []byte) error, each func(b []byte, line int)) {
	c.R.Journals++
	line := 0
	var skipped []string // why the stack skipped the good line at[i]
	var at []int
	st, err := journal.Read(c.FS, name, func(b []byte) error {
		line++
		if fold != nil {
			if err := fold(b); err != nil {
				skipped, at = append(skipped, err.Error()), append(at, line)
			}
		}
		each(b, line)
		return nil
	})
	if err != nil {
		c.Bad(name, "%v", err)
		return
	}
	c.R.Lines += st.Lines
	for i, why := range skipped {
		c.Bad(fmt.Sprintf("%s:%d", name, FileLine(at[i], st.Bad)), "change record skipped by the undo stack: %s", why)
	}
	for _, l := range st.Bad {
		c.Bad(fmt.Sprintf("%s:%d", name, l.Line), "not a JSON line (offset %d): %s", l.Offset, l.Err)
	}
	if st.Torn > 0 {
		c.Note(name, "torn last line of %d bytes (a crash); the next writer cuts it", st.Torn)
	}
}

// FileLine is the line number in the file of the good-th line a
// journal.Read handed its callback, given the lines it skipped (bad, in
// file order).
func FileLine(good int, bad []journal.BadLine) int {
	n := good
	for _, b := range bad {
		if b.Line > n {
			break
		}
		n++
	}
	return n
}

// revertFsck folds a changes journal's lines into a timeline and says why
// a file revert line (revert, reverted, unrevert, unreverted, overlap)
// does not fit: a revert line well formed, a "reverted" naming a revert
// the journal holds, an unrevert naming the stack of reverts, an overlap
// line well formed. "" when it fits, or is not one: the undo stack's
// fold, which passes over them, names the others.
type revertFsck struct{ tl changes.Timeline }

func (r *revertFsck) check(l *changes.Line) string {
	if l == nil {
		return "" // not a line: the undo stack's fold names it
	}
	err := r.tl.Fold(l)
	if err == nil {
		return ""
	}
	switch l.Kind {
	case changes.KindRevert, changes.KindReverted, changes.KindUnrevert, changes.KindUnreverted, changes.KindOverlap:
		return err.Error()
	}
	return ""
}

// lines calls fn with each complete line of journal name that reads; what
// fn says is wrong is reported at the line's number in the file. A
// journal that cannot be read is Journal's to report.
func (c *Checker) lines(name string, fn func(b []byte, why func(format string, a ...any))) {
	type problem struct {
		good int
		msg  string
	}
	var probs []problem
	good := 0
	jst, err := journal.Read(c.FS, name, func(b []byte) error {
		good++
		fn(b, func(format string, a ...any) { probs = append(probs, problem{good, fmt.Sprintf(format, a...)}) })
		return nil
	})
	if err != nil {
		return
	}
	for _, p := range probs {
		c.Bad(fmt.Sprintf("%s:%d", name, FileLine(p.good, jst.Bad)), "%s", p.msg)
	}
}
