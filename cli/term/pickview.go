package term

import (
	"slices"
	"strings"
	"unicode"

	"github.com/sahilm/fuzzy"
)

// pickView is the picker's state without a terminal: the filter, the rows
// it matches, the selected one and the page on screen.
type pickView struct {
	rows   []Row
	filter string
	match  []int // indexes into rows, in row order
	sel    int   // index into match
	top    int   // first match on screen
	height int   // rows on one page, at least 1
	// moved: the user has moved the selection (arrows, paging). Until
	// then the selection is the first match, also in rows that replace a
	// stale first page: Enter on an untouched picker takes the newest.
	moved bool
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
	v := &pickView{rows: rows, height: height}
	v.setFilter("")
	return v
}

// matchRows returns the indexes of the rows whose title and id match q
// fuzzily (its characters in order, ignoring case and the spaces in q),
// best match first and rows of equal score in row order; every row when q
// is empty.
func matchRows(rows []Row, q string) []int {
	m := make([]int, 0, len(rows))
	if q == "" {
		for i := range rows {
			m = append(m, i)
		}
		return m
	}
	// Spaces in the filter separate what was remembered of the words:
	// "dep aud" finds "dependency-audit".
	pattern := strings.Join(strings.Fields(strings.ToLower(q)), "")
	if pattern == "" {
		return matchRows(rows, "")
	}
	found := fuzzy.FindFromNoSort(pattern, rowSource(rows))
	slices.SortStableFunc(found, func(a, b fuzzy.Match) int { return b.Score - a.Score })
	for _, f := range found {
		m = append(m, f.Index)
	}
	return m
}

// rowSource is what the filter matches: a row's title and id.
type rowSource []Row

func (r rowSource) String(i int) string { return strings.ToLower(r[i].Title + "  " + r[i].ID) }
func (r rowSource) Len() int            { return len(r) }

// setFilter filters the rows by q. The selected row stays selected when it
// still matches; otherwise the first match is.
func (v *pickView) setFilter(q string) {
	prev, had := v.chosen()
	v.filter = q
	v.match = matchRows(v.rows, q)
	v.sel, v.top = 0, 0
	if had {
		for i, r := range v.match {
			if r == prev {
				v.sel = i
				break
			}
		}
	}
	v.scroll()
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
		q := v.filter
		v.rows, v.filter = rows, ""
		v.match = matchRows(rows, "")
		v.sel, v.top = 0, 0
		v.setFilter(q)
		return
	}
	line := v.sel - v.top
	id := ""
	if i, ok := v.chosen(); ok {
		id = v.rows[i].ID
	}
	sel := v.sel
	v.rows = rows
	v.match = matchRows(rows, v.filter)
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
