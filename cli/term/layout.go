package term

import (
	"strings"

	"github.com/clipperhouse/displaywidth"
)

// The layout puts the prompt and the text on screen rows: the prompt
// starts the first row, every other row is indented by the prompt's width,
// each line of the text starts a row, and a line wider than the room left
// wraps after its last blank that fits, else between two clusters, never
// inside one. A tab takes the cells to the next multiple of tabWidth (at
// least one). The rows are one cell narrower than the window, so the
// cursor after a full row still has a cell and the terminal never wraps a
// row itself.

// tabWidth is the distance between tab stops, counted from the text's own
// left edge.
const tabWidth = 4

// cluster is one grapheme cluster of the text on a row.
type cluster struct {
	start, end int // bytes of the text
	col, w     int // cells from the row's left edge of the text
}

// row is one screen row of the text.
type row struct {
	start, end int       // bytes of the text on the row
	cl         []cluster // its clusters
	w          int       // cells its text takes
	soft       bool      // the text goes on on the next row (a wrap, not a line feed)
}

// layoutText wraps text into rows of at most width cells.
func layoutText(text string, width int) []row {
	width = max(width, 2)
	var rows []row
	lineFrom := 0
	for {
		end := lineEnd(text, lineFrom)
		rows = append(rows, wrapLine(text, lineFrom, end, width)...)
		if end == len(text) {
			return rows
		}
		lineFrom = end + 1
	}
}

// wrapLine lays out text[from:to], which holds no line feed.
func wrapLine(text string, from, to, width int) []row {
	var rows []row
	cur := row{start: from}
	g := displaywidth.StringGraphemes(text[from:to])
	p := from
	var pending []cluster // clusters read but not placed (after a wrap at a blank)
	next := func() (cluster, bool) {
		if len(pending) > 0 {
			c := pending[0]
			pending = pending[1:]
			return c, true
		}
		if !g.Next() {
			return cluster{}, false
		}
		v := g.Value()
		c := cluster{start: p, end: p + len(v), w: g.Width()}
		if v == "\t" {
			c.w = -1 // measured where it lands
		}
		p = c.end
		return c, true
	}
	for {
		c, ok := next()
		if !ok {
			break
		}
		w := c.w
		if w < 0 {
			w = tabWidth - cur.w%tabWidth
			if cur.w+w > width {
				w = width - cur.w
			}
		}
		if cur.w+w > width || w == 0 && cur.w == width && text[c.start:c.end] == "\t" {
			// It does not fit: wrap after the last blank on the row, when
			// there is one with something after it, else before c.
			cut := len(cur.cl)
			for i := len(cur.cl) - 1; i > 0; i-- {
				if b := text[cur.cl[i-1].start:cur.cl[i-1].end]; b == " " || b == "\t" {
					cut = i
					break
				}
			}
			if len(cur.cl) == 0 {
				// Nothing fits, not even alone (a wide cluster in a
				// window of one cell): it takes the row by itself.
				c.col, c.w = 0, max(w, 1)
				cur.cl = append(cur.cl, c)
				cur.end, cur.w, cur.soft = c.end, c.w, true
				rows = append(rows, cur)
				cur = row{start: c.end}
				continue
			}
			back := append([]cluster(nil), cur.cl[cut:]...)
			cur.cl = cur.cl[:cut]
			cur.end, cur.w, cur.soft = from, 0, true
			if cut > 0 {
				last := cur.cl[cut-1]
				cur.end, cur.w = last.end, last.col+last.w
			}
			rows = append(rows, cur)
			cur = row{start: cur.end}
			// The clusters moved down are measured again: a tab's width
			// depends on where it lands.
			for i := range back {
				if text[back[i].start:back[i].end] == "\t" {
					back[i].w = -1
				}
			}
			pending = append(append(back, c), pending...)
			continue
		}
		c.col, c.w = cur.w, w
		cur.cl = append(cur.cl, c)
		cur.end, cur.w = c.end, cur.w+w
	}
	cur.end = max(cur.end, to)
	if len(cur.cl) == 0 {
		cur.end = cur.start
	}
	rows = append(rows, cur)
	return rows
}

// rowText is what a row shows: its clusters, a tab as blanks.
func rowText(text string, r row) string {
	var b strings.Builder
	for _, c := range r.cl {
		s := text[c.start:c.end]
		if s == "\t" {
			b.WriteString(strings.Repeat(" ", c.w))
			continue
		}
		b.WriteString(s)
	}
	return b.String()
}

// cursorAt is the row and cell of offset pos. At the end of a wrapped row
// the cursor shows at the start of the next one, where typing goes.
func cursorAt(rows []row, pos int) (y, x int) {
	for i, r := range rows {
		if pos < r.start || pos > r.end {
			continue
		}
		if pos == r.end && r.soft && i+1 < len(rows) {
			continue
		}
		for _, c := range r.cl {
			if c.start >= pos {
				return i, c.col
			}
		}
		return i, r.w
	}
	last := len(rows) - 1
	return last, rows[last].w
}

// offsetAt is the offset nearest cell x of row y, at or before it: where
// Up and Down land. A wrapped row's end is the next row's start, so the
// last place on it is before its last cluster.
func offsetAt(rows []row, y, x int) int {
	r := rows[y]
	for i, c := range r.cl {
		if c.col+c.w > x {
			return c.start
		}
		if i == len(r.cl)-1 && r.soft {
			return c.start
		}
	}
	return r.end
}
