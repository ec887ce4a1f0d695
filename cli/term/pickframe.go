package term

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/clipperhouse/uax29/v2/graphemes"

	"cairn/cli/display"
)

// The picker's picture, from the top:
//
//	filter: TEXT                          what is typed
//	HEADING                               Listing.Heading, when set
//	  TITLE            AGE  ITEMS  ID     the column headers
//	> deploy script    3m       2  2cc4…  the page of rows, the selected one marked and reversed
//	  └ deploy (fork)  1m       3  74a1…  a fork under its parent
//	1 of 3  Enter open · Esc leave · …    the footer: the selected position, the keys or a note
//	── preview ──                         the selected row's preview, below the list in a narrow
//	> the last prompt                     window, beside it (after " │ ") in a wide one
//	  its answer
//
// Columns are left out from the right as the window narrows, the title
// kept first: a title is what people remember of a session.

// besideWidth is the narrowest window that shows the preview beside the list.
const besideWidth = 100

// maxPreviewBelow is the most lines the preview takes below the list.
const maxPreviewBelow = 10

// maxTitleColumn is the widest the title column gets, in cells.
const maxTitleColumn = 60

// beside reports whether the preview goes beside the list.
func (m *pickModel) beside() bool { return m.l.Preview != nil && m.width >= besideWidth }

// fixedLines counts the lines of the picture that are not rows or the
// preview below: the filter line, the heading, the column headers, the
// footer, and one spare line so the picture never scrolls off the top.
func (m *pickModel) fixedLines() int {
	n := 4
	if m.l.Heading != "" {
		n++
	}
	return n
}

// belowLines is how many lines the preview takes below the list in a window
// of lines rows (its rule included): none beside the list, or in a window
// too short for it.
func (m *pickModel) belowLines(lines int) int {
	if m.l.Preview == nil || m.beside() || lines <= 0 {
		return 0
	}
	n := min(maxPreviewBelow, (lines-m.fixedLines())/3)
	if n < 3 {
		return 0
	}
	return n
}

// resize sizes the page to the window.
func (m *pickModel) resize(cols, lines int) {
	m.width, m.height = cols, lines
	h := defaultPageHeight
	if lines > 0 {
		h = lines - m.fixedLines() - m.belowLines(lines)
	}
	m.v.setHeight(h)
}

func (m *pickModel) View() tea.View {
	if m.done {
		return tea.NewView("") // the picture is wiped
	}
	f := m.frame()
	if m.drawn != nil {
		m.drawn.Store(true)
	}
	v := tea.NewView(strings.Join(f, "\n"))
	if m.renaming {
		// The cursor at the end of the name being typed, on the footer.
		v.Cursor = tea.NewCursor(min(cells(m.footer()), max(0, m.width-2)), m.footerAt)
	}
	return v
}

// frame returns the lines of one picture.
func (m *pickModel) frame() []string {
	lines := []string{m.fit("filter: " + drawn(m.v.filter))}
	if m.l.Heading != "" {
		lines = append(lines, m.fit(display.Line(m.l.Heading)))
	}
	lw := m.width
	if m.beside() {
		lw = m.width * 3 / 5
	}
	list := m.listLines(lw)
	if m.beside() {
		// The preview takes the page's height if it needs it, though the
		// rows be fewer.
		pw := m.width - 1 - lw - 3
		pane := m.previewPane(pw, m.v.height)
		for len(pane) > len(list)-1 && pane[len(pane)-1] == "" {
			pane = pane[:len(pane)-1]
		}
		for len(list)-1 < len(pane) {
			list = append(list, "")
		}
		pane = append([]string{"PREVIEW"}, pane...)
		for len(pane) < len(list) {
			pane = append(pane, "")
		}
		for i := range list {
			list[i] = padCells(list[i], lw-1) + " │ " + pane[i]
		}
	}
	lines = append(lines, list...)
	m.footerAt = len(lines)
	lines = append(lines, m.fit(m.footer()))
	if n := m.belowLines(m.height); n > 0 {
		lines = append(lines, m.fit("── preview "+strings.Repeat("─", max(0, m.width))))
		lines = append(lines, m.previewPane(m.width-1, n-1)...)
	}
	return lines
}

// fit cuts s to the window's width by display cells, leaving the last
// column free so that a full line never wraps.
func (m *pickModel) fit(s string) string { return cutTo(s, m.width) }

// cutTo cuts s to width-1 cells (width 0: unknown, s as it is).
func cutTo(s string, width int) string {
	if width <= 1 {
		return s
	}
	return cutCells(s, width-1, "…")
}

// listLines are the column headers and the page of rows, each cut to lw-1
// cells; the selected row is marked "> " and drawn in reverse video.
func (m *pickModel) listLines(lw int) []string {
	v := m.v
	lay := m.layout(lw)
	out := []string{cutTo("  "+lay.header(), lw)}
	sel, _ := v.chosen()
	for _, i := range v.window() {
		mark := "  "
		if i == sel {
			mark = "> "
		}
		s := cutTo(mark+lay.row(v.rows[i], v.treeDepth(i)), lw)
		if i == sel {
			s = "\x1b[7m" + padCells(s, lw-1) + "\x1b[0m"
		}
		out = append(out, s)
	}
	return out
}

// footer is the line under the list: where the selection is, then a note
// or the keys; while renaming, the rename input.
func (m *pickModel) footer() string {
	if m.renaming {
		return "rename (Enter saves, Esc cancels): " + drawn(m.name)
	}
	v := m.v
	n := 0
	if len(v.match) > 0 {
		n = v.sel + 1
	}
	all := len(v.rows)
	if m.loading && !m.showingEvery() {
		all = max(all, m.total)
	}
	var foot string
	switch {
	case v.filter != "":
		foot = fmt.Sprintf("%d of %d (%d in all)", n, len(v.match), all)
	default:
		foot = fmt.Sprintf("%d of %d", n, all)
	}
	switch {
	case m.showingEvery():
		foot += " in every directory"
	case m.listingEvery:
		foot += ", listing every directory"
	}
	switch {
	case m.pending != "":
		foot += ", checking the choice"
	case m.loading && !m.showingEvery():
		foot += ", listing"
	}
	if m.note != "" {
		return foot + ": " + display.Line(m.note)
	}
	return foot + "  " + m.keysHelp()
}

// keysHelp names the keys, shorter in a narrow window.
func (m *pickModel) keysHelp() string {
	narrow := m.width > 0 && m.width < 80
	if m.l.Kind == Shells {
		return "Ctrl-K stop it · Esc leave"
	}
	if m.l.Kind == Prompts {
		if narrow {
			return "Enter go back · Esc leave"
		}
		return "Enter go back to before it · Esc leave"
	}
	keys := []string{"Enter open", "Esc leave"}
	if m.l.Rename != nil {
		keys = append(keys, map[bool]string{false: "Ctrl-R rename", true: "^R rename"}[narrow])
	}
	if m.l.Every != nil {
		switch {
		case m.showEvery && narrow:
			keys = append(keys, "^A here")
		case m.showEvery:
			keys = append(keys, "Ctrl-A this directory")
		case narrow:
			keys = append(keys, "^A all")
		default:
			keys = append(keys, "Ctrl-A every directory")
		}
	}
	if narrow {
		keys = slices.Delete(keys, 1, 2) // Esc is the one to guess
	}
	return strings.Join(keys, " · ")
}

// pickCol is a column after the title. A column with least > 0 may be
// narrowed to as little as least when the window is short of room.
type pickCol struct {
	head  string
	width int
	least int
	right bool
	cell  func(r Row, width int) string
}

// pickLayout is how rows are drawn at one width.
type pickLayout struct {
	kind  Kind
	title int // the title column's width
	cols  []pickCol
	trail bool // the row's state ("open in pid N") comes last
}

// rowStats are the widest cells of the rows, for the columns' widths.
type rowStats struct {
	title, age, items, branch, dir, trail int
}

// layout fits the columns to lw cells (0: unknown, every column): the
// title keeps at least half of the room (or its widest), and the other
// columns are taken in order of use (age, directory, items, branch, id)
// while they fit, the directory narrowed if need be; what is left goes to
// the row's state.
func (m *pickModel) layout(lw int) pickLayout {
	st := m.v.stats()
	lay := pickLayout{kind: m.l.Kind}
	var cands []pickCol
	age := pickCol{head: "AGE", width: max(3, st.age), cell: func(r Row, _ int) string { return display.Line(r.Age) }}
	items := func(head string) pickCol {
		return pickCol{head: head, width: max(len(head), st.items), right: true, cell: func(r Row, _ int) string { return strconv.Itoa(r.Items) }}
	}
	switch m.l.Kind {
	case Shells:
		job := 3
		for _, r := range m.v.rows {
			job = max(job, min(32, cells(display.Line(r.ID))))
		}
		cands = []pickCol{age, {head: "JOB", width: job, cell: func(r Row, _ int) string { return display.Line(r.ID) }}}
	case Prompts:
		cands = []pickCol{items("ITEM"), age}
	default:
		cands = []pickCol{age}
		if st.dir > 0 {
			// Listing every directory, where a session is matters more
			// than its size; the end of its path says the most.
			cands = append(cands, pickCol{head: "DIRECTORY", width: min(32, max(9, st.dir)), least: 9,
				cell: func(r Row, w int) string { return cutLeft(display.Line(r.Dir), w) }})
		}
		cands = append(cands, items("ITEMS"))
		if st.branch > 0 {
			cands = append(cands, pickCol{head: "BRANCH", width: min(16, max(6, st.branch)), cell: func(r Row, _ int) string { return display.Line(r.Branch) }})
		}
		cands = append(cands, pickCol{head: "ID", width: 8, cell: func(r Row, _ int) string { return cutCells(display.Line(r.ID), 8, "") }})
	}
	want := max(cells(lay.titleHead()), min(maxTitleColumn, st.title))
	if lw <= 1 {
		lay.cols, lay.title, lay.trail = cands, want, st.trail > 0
		return lay.ordered()
	}
	avail := lw - 1 - 2
	minTitle := min(want, max(12, avail/2))
	used := 0
	for _, c := range cands {
		if left := avail - used - 2 - minTitle; c.width > left && c.least > 0 && c.least <= left {
			c.width = left
		}
		if avail-used-2-c.width < minTitle {
			break
		}
		lay.cols = append(lay.cols, c)
		used += 2 + c.width
	}
	lay.title = max(1, min(want, avail-used))
	lay.trail = st.trail > 0 && avail-used-lay.title >= 2+min(st.trail, 12)
	return lay.ordered()
}

// ordered puts the columns in their order on screen: the directory first,
// the id last.
func (lay pickLayout) ordered() pickLayout {
	rank := map[string]int{"DIRECTORY": 0, "ITEM": 1, "AGE": 2, "ITEMS": 3, "BRANCH": 4, "ID": 5, "JOB": 5}
	slices.SortStableFunc(lay.cols, func(a, b pickCol) int { return rank[a.head] - rank[b.head] })
	return lay
}

// titleHead is the title column's header.
func (lay pickLayout) titleHead() string {
	switch lay.kind {
	case Prompts:
		return "PROMPT"
	case Shells:
		return "COMMAND"
	}
	return "TITLE"
}

func (lay pickLayout) header() string {
	var b strings.Builder
	b.WriteString(padCells(lay.titleHead(), lay.title))
	for _, c := range lay.cols {
		b.WriteString("  ")
		b.WriteString(alignCells(c.head, c.width, c.right))
	}
	return strings.TrimRight(b.String(), " ")
}

// row draws r, a fork at depth in the tree of forks.
func (lay pickLayout) row(r Row, depth int) string {
	title := display.Title(r.Title)
	if lay.kind == Prompts || lay.kind == Shells {
		title = display.Line(strings.Join(strings.Fields(r.Title), " "))
	}
	state := rowState(r)
	if state != "" && !lay.trail {
		// No room for the state column: the title says the most of it.
		switch {
		case r.Current:
			title = "(this) " + title
		case r.Owner != 0:
			title = "(open) " + title
		}
	}
	if depth > 0 {
		title = strings.Repeat("  ", depth-1) + "└ " + title
	}
	var b strings.Builder
	b.WriteString(padCells(cutCells(title, lay.title, "…"), lay.title))
	for _, c := range lay.cols {
		b.WriteString("  ")
		b.WriteString(alignCells(cutCells(c.cell(r, c.width), c.width, "…"), c.width, c.right))
	}
	if lay.trail && state != "" {
		b.WriteString("  ")
		b.WriteString(state)
	}
	return strings.TrimRight(b.String(), " ")
}

// rowState is what the state column says of r: that it is the session open
// here, or open in another process, or of another checkout, or on a remote
// workspace.
func rowState(r Row) string {
	var s []string
	switch {
	case r.Current:
		s = append(s, "this session")
	case r.Owner != 0:
		s = append(s, fmt.Sprintf("open in pid %d", r.Owner))
	}
	if r.Checkout != "" {
		s = append(s, "checkout "+cutCells(display.Line(r.Checkout), 24, "…"))
	}
	if r.Remote != "" {
		s = append(s, "on "+cutCells(display.Line(r.Remote), 32, "…"))
	}
	return strings.Join(s, ", ")
}

// stats are the widest cells of v's rows, worked out once per set of rows.
func (v *pickView) stats() rowStats {
	if v.st != nil {
		return *v.st
	}
	var st rowStats
	most := 0
	for i, r := range v.rows {
		st.title = max(st.title, min(maxTitleColumn, cells(display.Title(r.Title))+2*v.depth[i]))
		st.age = max(st.age, cells(display.Line(r.Age)))
		st.branch = max(st.branch, cells(display.Line(r.Branch)))
		st.dir = max(st.dir, cells(display.Line(r.Dir)))
		st.trail = max(st.trail, cells(rowState(r)))
		most = max(most, r.Items)
	}
	st.items = len(strconv.Itoa(most))
	v.st = &st
	return st
}

// padCells fills s with spaces to n cells.
func padCells(s string, n int) string {
	if k := n - cells(s); k > 0 {
		return s + strings.Repeat(" ", k)
	}
	return s
}

// alignCells pads s to n cells, on the left when right is set.
func alignCells(s string, n int, right bool) string {
	if !right {
		return padCells(s, n)
	}
	if k := n - cells(s); k > 0 {
		return strings.Repeat(" ", k) + s
	}
	return s
}

// dropLastGrapheme is s without its last grapheme cluster (Backspace): a
// letter with its combining marks, an emoji with its modifiers, go whole.
func dropLastGrapheme(s string) string {
	end := 0
	g := graphemes.FromString(s)
	for g.Next() {
		end = g.Start()
	}
	return s[:end]
}
