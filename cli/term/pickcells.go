package term

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// The picker measures, cuts and wraps its text as the terminal library's
// renderer lays a picture out: one grapheme cluster at a time, each as
// wide as wcwidth counts its code points (a CJK character 2, an emoji with
// a skin tone 4). Its columns then land where the renderer draws them,
// whatever a given terminal makes of an emoji sequence. The text cut here
// holds no escape sequences: display.Line has escaped them.

// cells is the width of s (escape sequences, such as the reverse video of
// the selected row, take none).
func cells(s string) int { return ansi.StringWidthWc(s) }

// eachCluster calls fn with each grapheme cluster of s and its width, until
// fn returns false.
func eachCluster(s string, fn func(c string, w int) bool) {
	for s != "" {
		c, w := ansi.FirstGraphemeCluster(s, ansi.WcWidth)
		if c == "" || !fn(c, w) {
			return
		}
		s = s[len(c):]
	}
}

// cutCells keeps s to n cells, ending it with tail when cut.
func cutCells(s string, n int, tail string) string {
	if cells(s) <= n {
		return s
	}
	room := n - cells(tail)
	var b strings.Builder
	w := 0
	eachCluster(s, func(c string, cw int) bool {
		if w+cw > room {
			return false
		}
		b.WriteString(c)
		w += cw
		return true
	})
	if room < 0 {
		return ""
	}
	return b.String() + tail
}

// cutLeft keeps the end of s in n cells, starting it with "…" when cut:
// the end of a path says the most.
func cutLeft(s string, n int) string {
	w := cells(s)
	if w <= n {
		return s
	}
	drop := w - n + 1 // the cells to lose, "…" included
	rest := s
	eachCluster(s, func(c string, cw int) bool {
		if drop <= 0 {
			return false
		}
		drop -= cw
		rest = rest[len(c):]
		return true
	})
	return "…" + rest
}

// wrapCells breaks s into lines of at most n cells, at spaces where it can,
// else inside a word (between clusters). The spaces at a break are dropped.
func wrapCells(s string, n int) []string {
	n = max(1, n)
	var lines []string
	line, w := "", 0
	for _, word := range strings.Fields(s) {
		ww := cells(word)
		switch {
		case w > 0 && w+1+ww <= n:
			line, w = line+" "+word, w+1+ww
			continue
		case w > 0:
			lines = append(lines, line)
			line, w = "", 0
		}
		for ww > n {
			// A word longer than a line: as much of it as fits.
			head := cutCells(word, n, "")
			if head == "" {
				head, _ = ansi.FirstGraphemeCluster(word, ansi.WcWidth)
			}
			lines = append(lines, head)
			word = word[len(head):]
			ww = cells(word)
		}
		line, w = word, ww
	}
	if w > 0 || len(lines) == 0 {
		lines = append(lines, line)
	}
	return lines
}
