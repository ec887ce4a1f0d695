package changes

import (
	"bytes"
	"fmt"
	"strings"

	"cairn/internal/vfs"
	"cairn/journal"
)

// Lines of the changes journal the undo stack could not read: a damaged
// line (not JSON, an inline pre-image that does not hash to its name) or
// one that does not fit the stack (a snapshot named twice, an undo of one
// that is not the newest). The stack goes on without them; the answers of
// /snapshots, undo and redo name them, as cairn storage fsck does.

// Unread is a line a fold skipped: where ("<journal>:<line>", numbered
// from 1) and why.
type Unread struct {
	Where, Error string
}

// Folded is what FoldJournal read besides the stack and the records.
type Folded struct {
	// Unread is the lines the fold skipped, in file order.
	Unread []Unread
	// Reverts: the journal may hold a file revert's or unrevert's lines
	// (mayRevert); without them there is none to settle.
	Reverts bool
}

// mayRevert reports whether changes line b may be a file revert's or
// unrevert's ("revert", "reverted", "unrevert", "unreverted"): its kind is
// one of those words, or spelled with \u escapes. A superset: a path
// holding the word says yes too.
func mayRevert(b []byte) bool {
	return bytes.Contains(b, []byte("revert")) || bytes.Contains(b, []byte(`\u`))
}

// FoldJournal reads changes journal name into st and recs, each line
// decoded once. A missing journal is an empty stack. A line that is not
// JSON or does not fit the stack is skipped, and named in Unread.
func FoldJournal(fsys vfs.FS, name string, st *Stack, recs *Records) (Folded, error) {
	var f Folded
	var skipped []Unread
	var at []int // the index among the lines read of each skipped one
	n := 0
	stats, err := journal.Read(fsys, name, func(b []byte) error {
		n++
		f.Reverts = f.Reverts || mayRevert(b)
		l, err := Decode(b)
		if err == nil {
			err = st.Fold(l)
			recs.Fold(l) // a bad record line is fsck's to name
		}
		if err != nil {
			skipped = append(skipped, Unread{Error: err.Error()})
			at = append(at, n)
		}
		return nil
	})
	if err != nil && !vfs.IsNotExist(err) {
		return f, fmt.Errorf("engine: read %s: %w", name, err)
	}
	f.Unread = unreadLines(name, stats.Bad, skipped, at)
	return f, nil
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

// unreadLines names the lines of journal name a fold skipped: those the
// read skipped (bad) and those the stack did (skipped, the at[i]-th line
// read), in file order.
func unreadLines(name string, bad []journal.BadLine, skipped []Unread, at []int) []Unread {
	var out []Unread
	i := 0
	for k, u := range skipped {
		line := FileLine(at[k], bad)
		for ; i < len(bad) && bad[i].Line < line; i++ {
			out = append(out, Unread{Where: fmt.Sprintf("%s:%d", name, bad[i].Line), Error: "not a JSON line: " + bad[i].Err})
		}
		u.Where = fmt.Sprintf("%s:%d", name, line)
		out = append(out, u)
	}
	for ; i < len(bad); i++ {
		out = append(out, Unread{Where: fmt.Sprintf("%s:%d", name, bad[i].Line), Error: "not a JSON line: " + bad[i].Err})
	}
	return out
}

// UnreadSummary says in one line which change records the undo stack
// could not read: how many, the first three with why, and where to look.
func UnreadSummary(unread []Unread) string {
	var parts []string
	for i, u := range unread {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(unread)-3))
			break
		}
		parts = append(parts, u.Where+" ("+u.Error+")")
	}
	noun := "change record"
	if len(unread) > 1 {
		noun += "s"
	}
	return fmt.Sprintf("%d %s could not be read: %s; see cairn storage fsck", len(unread), noun, strings.Join(parts, ", "))
}
