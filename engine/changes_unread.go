package engine

import (
	"fmt"
	"strings"

	"cairn/journal"
)

// Lines of the changes journal the undo stack could not read: a damaged
// line (not JSON, an inline pre-image that does not hash to its name) or
// one that does not fit the stack (a snapshot named twice, an undo of one
// that is not the newest). The stack goes on without them; the answers of
// /snapshots, undo and redo name them, as cairn storage fsck does.

// fileLine is the line number in the file of the good-th line a
// journal.Read handed its callback, given the lines it skipped (bad, in
// file order).
func fileLine(good int, bad []journal.BadLine) int {
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
func unreadLines(name string, bad []journal.BadLine, skipped []UnreadRecord, at []int) []UnreadRecord {
	var out []UnreadRecord
	i := 0
	for k, u := range skipped {
		line := fileLine(at[k], bad)
		for ; i < len(bad) && bad[i].Line < line; i++ {
			out = append(out, UnreadRecord{Where: fmt.Sprintf("%s:%d", name, bad[i].Line), Error: "not a JSON line: " + bad[i].Err})
		}
		u.Where = fmt.Sprintf("%s:%d", name, line)
		out = append(out, u)
	}
	for ; i < len(bad); i++ {
		out = append(out, UnreadRecord{Where: fmt.Sprintf("%s:%d", name, bad[i].Line), Error: "not a JSON line: " + bad[i].Err})
	}
	return out
}

// unreadNote is what an answer that found nothing to do adds about the
// lines the stack skipped: "" when none.
func unreadNote(unread []UnreadRecord) string {
	if len(unread) == 0 {
		return ""
	}
	return " (" + UnreadSummary(unread) + ")"
}

// UnreadSummary says in one line which change records the undo stack could
// not read: how many, the first three with why, and where to look.
func UnreadSummary(unread []UnreadRecord) string {
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
