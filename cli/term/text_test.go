package term

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// Pieces of text people type and paste: clusters of several code points
// among them (an emoji with a skin tone, a ZWJ family, a flag, a letter
// with combining marks, a Hangul syllable from its jamo), wide ones, tabs,
// blanks and line feeds.
var pieces = []string{
	"a", "b", "Z", "0", " ", " ", "\t", "\n", "日", "本", "語", "テ",
	"👍🏽", "👨\u200d👩\u200d👧", "🇫🇷", "e\u0301", "o\u0308\u0323", "\u1100\u1161\u11a8", "🎉", "x",
}

func randomText(r *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

// isBoundary reports whether offset i of s falls between two clusters.
func isBoundary(s string, i int) bool {
	if i == 0 || i == len(s) {
		return true
	}
	for p := 0; p < len(s); p = clusterEnd(s, p) {
		if p == i {
			return true
		}
		if p > i {
			return false
		}
	}
	return false
}

// The segmentation steps over whole clusters: each piece of the list is
// one cluster, forwards and backwards.
func TestClusters(t *testing.T) {
	s := strings.Join(pieces, "")
	var got []string
	for p := 0; p < len(s); p = clusterEnd(s, p) {
		got = append(got, s[p:clusterEnd(s, p)])
	}
	if strings.Join(got, "|") != strings.Join(pieces, "|") {
		t.Fatalf("forwards: %q", got)
	}
	var back []string
	for p := len(s); p > 0; p = clusterStart(s, p) {
		back = append([]string{s[clusterStart(s, p):p]}, back...)
	}
	if strings.Join(back, "|") != strings.Join(pieces, "|") {
		t.Fatalf("backwards: %q", back)
	}
}

// Whatever is done to the text, the cursor stays between two clusters, and
// an insertion that joins its neighbours into one cluster puts the cursor
// after it.
func TestTextBufCursorOnBoundary(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 300 {
		var b textBuf
		b.set(randomText(r, r.IntN(12)))
		for step := range 40 {
			b.beginKey()
			switch r.IntN(14) {
			case 0:
				b.insert(randomText(r, 1+r.IntN(3)))
			case 1:
				b.insert("\u200d") // joins what is on either side
			case 2:
				b.insert("\u0301")
			case 3:
				b.left()
			case 4:
				b.right()
			case 5:
				b.backspace()
			case 6:
				b.del()
			case 7:
				b.killToEnd()
			case 8:
				b.killToStart()
			case 9:
				b.yankLast()
			case 10:
				b.pos = wordLeft(b.s, b.pos)
			case 11:
				b.pos = wordRight(b.s, b.pos)
			case 12:
				b.kill(spaceWordLeft(b.s, b.pos), b.pos, true)
			case 13:
				b.transpose()
			}
			if !isBoundary(b.s, b.pos) {
				t.Fatalf("round %d step %d: cursor %d inside a cluster of %q", round, step, b.pos, b.s)
			}
		}
	}
}

func TestTextBufEdits(t *testing.T) {
	var b textBuf
	b.set("a👨\u200d👩\u200d👧b")
	b.left()
	b.left()
	b.insert("X")
	if b.s != "aX👨\u200d👩\u200d👧b" {
		t.Fatalf("insert before the family: %q", b.s)
	}
	b.set("abe\u0301cd")
	b.left()
	b.left()
	b.left()
	b.insert("Y")
	if b.s != "abYe\u0301cd" {
		t.Fatalf("insert before e with its accent: %q", b.s)
	}
	b.set("a👍🏽")
	b.backspace()
	if b.s != "a" {
		t.Fatalf("backspace after a skin tone: %q", b.s)
	}
	b.set("x🇫🇷y")
	b.pos = 1
	b.del()
	if b.s != "xy" {
		t.Fatalf("delete a flag: %q", b.s)
	}
	b.set("ab👍🏽")
	b.transpose()
	if b.s != "a👍🏽b" {
		t.Fatalf("transpose at the end: %q", b.s)
	}
}

// Kills go to the ring; kills one after another join into one piece,
// backwards in front; Ctrl-Y puts the newest back, Alt+Y right after it
// the one before.
func TestTextBufKillRing(t *testing.T) {
	var b textBuf
	key := func(f func()) { b.beginKey(); f() }
	b.set("one two three")
	key(func() { b.kill(spaceWordLeft(b.s, b.pos), b.pos, true) })
	key(func() { b.kill(spaceWordLeft(b.s, b.pos), b.pos, true) })
	if b.s != "one " {
		t.Fatalf("after two Ctrl-W: %q", b.s)
	}
	key(b.yankLast)
	if b.s != "one two three" {
		t.Fatalf("yank of two joined kills: %q", b.s)
	}
	key(func() { b.pos = 0 })
	key(b.killToEnd) // the whole line: a new kill (a move came between)
	if b.s != "" || len(b.kills) != 2 {
		t.Fatalf("Ctrl-K: %q, ring %q", b.s, b.kills)
	}
	key(b.yankLast)
	key(b.yankPop)
	if b.s != "two three" {
		t.Fatalf("Alt+Y after Ctrl-Y: %q", b.s)
	}
	key(func() { b.insert("!") })
	key(b.yankPop) // not right after a yank: nothing
	if b.s != "two three!" {
		t.Fatalf("Alt+Y after typing: %q", b.s)
	}
}

// Pasted text keeps its tabs and line feeds; other control characters
// (which could drive the terminal) are taken out, and a pasted CR LF or
// CR is a line feed.
func TestCleanText(t *testing.T) {
	in := "all:\r\n\techo hi\rx\x1b[2Jy\x07\u009b\xff"
	if got, want := cleanText(in), "all:\n\techo hi\nx[2Jy\uFFFD"; got != want {
		t.Fatalf("cleanText(%q) = %q, want %q", in, got, want)
	}
}

// The layout never splits a cluster, never makes a row wider than the
// room, keeps every byte of the text in order, and starts a row at every
// line feed.
func TestLayoutKeepsClusters(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for round := range 500 {
		text := randomText(r, r.IntN(60))
		width := 2 + r.IntN(30)
		rows := layoutText(text, width)
		var got strings.Builder
		for i, row := range rows {
			if row.w > width {
				t.Fatalf("round %d: row %d is %d cells in a room of %d: %q", round, i, row.w, width, text[row.start:row.end])
			}
			if !isBoundary(text, row.start) || !isBoundary(text, row.end) {
				t.Fatalf("round %d: row %d [%d,%d) splits a cluster of %q", round, i, row.start, row.end, text)
			}
			if i > 0 {
				if prev := rows[i-1]; prev.soft {
					if prev.end != row.start {
						t.Fatalf("round %d: a gap after wrapped row %d", round, i-1)
					}
				} else {
					if text[prev.end:row.start] != "\n" {
						t.Fatalf("round %d: row %d does not start after a line feed", round, i)
					}
					got.WriteByte('\n')
				}
			}
			w := 0
			for _, c := range row.cl {
				if c.col != w {
					t.Fatalf("round %d: cluster at cell %d, want %d", round, c.col, w)
				}
				w += c.w
			}
			if w != row.w {
				t.Fatalf("round %d: row %d adds to %d cells, says %d", round, i, w, row.w)
			}
			got.WriteString(text[row.start:row.end])
		}
		if got.String() != text {
			t.Fatalf("round %d: the rows hold %q, the text is %q", round, got.String(), text)
		}
	}
}

// A tab takes the cells to the next tab stop; a row that would split a
// word wraps after the last blank.
func TestLayoutTabsAndWords(t *testing.T) {
	rows := layoutText("a\tbc\td", 20)
	if got := rowText("a\tbc\td", rows[0]); got != "a   bc  d" {
		t.Fatalf("tabs: %q", got)
	}
	text := "alpha beta gamma"
	rows = layoutText(text, 12)
	if len(rows) != 2 || rowText(text, rows[0]) != "alpha beta " || rowText(text, rows[1]) != "gamma" {
		t.Fatalf("word wrap: %+v", rows)
	}
	// The emoji with its skin tone ends a row of 12 whole.
	text = "abcdefghij👍🏽xy"
	rows = layoutText(text, 12)
	if len(rows) != 2 || rowText(text, rows[0]) != "abcdefghij👍🏽" || rowText(text, rows[1]) != "xy" {
		t.Fatalf("cluster at a row's end: %q, %q", rowText(text, rows[0]), rowText(text, rows[1]))
	}
}

// Emoji clusters are two cells by the grapheme cluster rule (width.go),
// in the editor's layout and in the prompt's measure alike: a library
// update that changed either would move the cursor on every terminal that
// follows the rule.
func TestClusterWidths(t *testing.T) {
	for _, c := range []struct {
		s string
		w int
	}{
		{"\U0001F468\u200D\U0001F469\u200D\U0001F467", 2}, // ZWJ family
		{"\U0001F44D\U0001F3FD", 2},                       // thumbs up, skin tone
		{"\u2764\uFE0F", 2},                               // heart made emoji by U+FE0F
		{"\U0001F1EF\U0001F1F5", 2},                       // a flag
		{"e\u0301", 1},                                    // e and a combining acute
		{"日", 2},
		{"a", 1},
	} {
		rows := layoutText(c.s, 80)
		if len(rows) != 1 || rows[0].w != c.w {
			t.Errorf("%q: the editor lays it out as %+v, want one row of %d cells", c.s, rows, c.w)
		}
		if w := textWidth(c.s); w != c.w {
			t.Errorf("%q: textWidth %d, want %d", c.s, w, c.w)
		}
	}
}
