package term

import (
	"strings"
	"unicode"
)

// pickView is the picker's state without a terminal: the filter, the rows
// it matches, the selected one and the page on screen.
type pickView struct {
	rows   []Row
	filter string
	match  []int // indexes into rows: ranked by the filter, or the tree order without one
	sel    int   // index into match
	top    int   // first match on screen
	height int   // rows on one page, at least 1
	// moved: the user has moved the selection (arrows, paging). Until
	// then the selection is the top match, or without a filter the
	// newest row, also in rows that replace a stale first page: Enter on
	// an untouched picker takes the newest.
	moved bool
	// order is the rows as a tree, forks under their parent (forkTree);
	// depth is each row's depth in it, by row index.
	order []int
	depth []int
	st    *rowStats // the widest cells, once worked out (stats)
}

// setHeight changes the page height (the window was resized), keeping the
// selection on the page.
func (v *pickView) setHeight(h int) {
	v.height = max(1, h)
	v.scroll()
}

func newPickView(rows []Row, height int) *pickView {
	if height < 1 {
		height = 1
	}
	v := &pickView{height: height}
	v.setRowsOnly(rows)
	v.setFilter("")
	return v
}

// setRowsOnly takes rows and their tree, leaving the rest to the caller.
func (v *pickView) setRowsOnly(rows []Row) {
	v.rows = rows
	v.order, v.depth = forkTree(rows)
	v.st = nil
}

// retitled says a row's title changed in place (a rename).
func (v *pickView) retitled() { v.st = nil }

// matches is what filter q matches, best first; without a filter, every
// row, forks under their parent.
func (v *pickView) matches(q string) []int {
	if normalize(q) == "" {
		return v.order
	}
	return matchRows(v.rows, q)
}

// setFilter filters the rows by q and selects the best match, the top row:
// Enter after typing takes what the filter ranks first, whatever was
// selected before. The selection counts as not moved again.
func (v *pickView) setFilter(q string) {
	v.filter = q
	v.match = v.matches(q)
	v.sel, v.top, v.moved = 0, 0, false
	if normalize(q) == "" {
		// The newest row, which a fork's tree may put below its parent.
		for k, i := range v.match {
			if i == 0 {
				v.sel = k
			}
		}
	}
	v.scroll()
}

// treeDepth is how deep row i sits in the tree of forks while no filter is
// typed; 0 when the rows are ranked by a filter.
func (v *pickView) treeDepth(i int) int {
	if normalize(v.filter) != "" || i >= len(v.depth) {
		return 0
	}
	return v.depth[i]
}

// setRows puts rows in the place of the rows shown, keeping the filter and,
// once the user has moved it, the selected row (by id) when it is still
// there, else the position of the selection, and the selection's line on
// the page. A selection never moved is where it would be had these rows
// come first: the first page can be stale (read from index.json), and the
// row it put first may no longer be the newest.
func (v *pickView) setRows(rows []Row) {
	if !v.moved {
		// As if the rows had come first and the filter been typed since.
		v.setRowsOnly(rows)
		v.setFilter(v.filter)
		return
	}
	line := v.sel - v.top
	id := ""
	if i, ok := v.chosen(); ok {
		id = v.rows[i].ID
	}
	sel := v.sel
	v.setRowsOnly(rows)
	v.match = v.matches(v.filter)
	v.sel = clamp(sel, 0, len(v.match)-1)
	for k, i := range v.match {
		if id != "" && rows[i].ID == id {
			v.sel = k
			break
		}
	}
	v.top = v.sel - line
	v.scroll()
}

// move moves the selection by d rows, stopping at the ends.
func (v *pickView) move(d int) {
	v.moved = true
	v.sel = clamp(v.sel+d, 0, len(v.match)-1)
	v.scroll()
}

// page moves the selection and the page by d pages.
func (v *pickView) page(d int) {
	v.top = clamp(v.top+d*v.height, 0, len(v.match)-v.height)
	v.move(d * v.height)
}

// scroll moves the page so the selection is on it.
func (v *pickView) scroll() {
	if v.sel < v.top {
		v.top = v.sel
	}
	if v.sel >= v.top+v.height {
		v.top = v.sel - v.height + 1
	}
	v.top = clamp(v.top, 0, len(v.match)-v.height)
}

// window returns the matches on screen, as indexes into rows.
func (v *pickView) window() []int {
	end := min(v.top+v.height, len(v.match))
	return v.match[v.top:end]
}

// chosen returns the selected row's index into rows; ok is false when
// nothing matches.
func (v *pickView) chosen() (int, bool) {
	if v.sel < 0 || v.sel >= len(v.match) {
		return 0, false
	}
	return v.match[v.sel], true
}

// clamp limits x to [lo, hi]; lo wins when hi < lo.
func clamp(x, lo, hi int) int {
	if x > hi {
		x = hi
	}
	if x < lo {
		x = lo
	}
	return x
}

// killWord deletes the last word of s and the spaces after it (Ctrl-W).
func killWord(s string) string {
	s = strings.TrimRightFunc(s, unicode.IsSpace)
	i := strings.LastIndexFunc(s, unicode.IsSpace)
	return s[:i+1]
}
