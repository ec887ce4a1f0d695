package term

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/charmbracelet/x/ansi"

	"cairn/cli/display"
)

// Row is one session as the pickers show it.
type Row struct {
	ID, Title, Age, Branch string
	Items                  int
	Owner                  int // the pid of the process that has it open, 0 = free
	// Checkout names the other checkout of the repository the session
	// belongs to; "" for this directory's own.
	Checkout string
	// ForkOf is the id of the session this one was forked from: the
	// picker lists a fork under it.
	ForkOf string
	// Dir is the directory the session belongs to, set in a listing of
	// every directory (the picker shows it then).
	Dir string
	// Current marks the session this process has open (the REPL's
	// /resume).
	Current bool
	// Remote is host:path of the remote workspace the session's files
	// are on, "" for a local session.
	Remote string
}

// titleWidth is the title column of a row, in cells.
const titleWidth = 40

// formatRow is a row as one line of text (every field escaped by
// display.Line, so stored text cannot move the cursor or forge a row):
// title, age, items, branch,
// "[open in pid N]" for an owned row, "[on host:/path]" for a session on a
// remote workspace, and the id last, so that a narrow
// screen cuts the id first.
func formatRow(r Row) string {
	title := display.Title(r.Title)
	branch := display.Line(r.Branch)
	if branch == "" {
		branch = "-"
	}
	items := "items"
	if r.Items == 1 {
		items = "item "
	}
	s := fmt.Sprintf("%s  %-8s  %5d %s  %-12s", pad(cut(title, titleWidth), titleWidth),
		display.Line(r.Age), r.Items, items, branch)
	if r.Owner != 0 {
		s += fmt.Sprintf("  [open in pid %d]", r.Owner)
	}
	if r.Checkout != "" {
		s += "  [checkout " + display.Line(r.Checkout) + "]"
	}
	if r.Remote != "" {
		s += "  [on " + display.Line(r.Remote) + "]"
	}
	s += "  " + display.Line(r.ID)
	return s
}

// plainHeader is the line of column heads above formatRow's rows.
func plainHeader() string {
	return fmt.Sprintf("%s  %-8s  %-11s  %-12s  %s", pad("TITLE", titleWidth), "AGE", "ITEMS", "BRANCH", "ID")
}

// cut shortens s to at most n cells, ending it with "…" when cut; a
// grapheme cluster is never split.
func cut(s string, n int) string {
	if n <= 0 {
		return ""
	}
	return ansi.Truncate(s, n, "…")
}

// pad fills s with spaces to n cells, so that a column after a title in
// CJK or with emoji lines up with the others.
func pad(s string, n int) string {
	if k := n - textWidth(s); k > 0 {
		return s + strings.Repeat(" ", k)
	}
	return s
}

// drawn is a filter being typed as drawn: control characters as '?', so
// that they cannot move the cursor.
func drawn(s string) string {
	return strings.Map(func(r rune) rune {
		if !unicode.IsPrint(r) && r != ' ' {
			return '?'
		}
		return r
	}, s)
}
