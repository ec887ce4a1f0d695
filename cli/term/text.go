package term

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/clipperhouse/displaywidth"
)

// The editor's text is a string edited at a cursor, a byte offset that
// always falls between two grapheme clusters (what a person sees as one
// character: an emoji with its skin tone or its ZWJ family, a letter with
// its combining marks). Every move and every deletion steps over whole
// clusters, found by the segmenter of the Unicode text segmentation rules
// (clipperhouse/uax29, through displaywidth, which also gives each
// cluster's width in cells). A line feed is always a boundary.

// cleanText is s as the editor keeps it: line ends as line feeds, tabs
// kept, every other control character taken out (so no text can drive the
// terminal), and bytes that are not UTF-8 replaced.
func cleanText(s string) string {
	s = normalizeNewlines(strings.ToValidUTF8(s, "\uFFFD"))
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return -1
		}
		return r
	}, s)
}

// normalizeNewlines turns CR LF and lone CR (what many terminals paste)
// into LF.
func normalizeNewlines(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}

// clusterEnd is the end of the cluster that starts at i.
func clusterEnd(s string, i int) int {
	if i >= len(s) {
		return len(s)
	}
	g := displaywidth.StringGraphemes(s[i:])
	g.Next()
	return i + len(g.Value())
}

// lineStart is the start of the line that holds offset i.
func lineStart(s string, i int) int {
	return strings.LastIndexByte(s[:i], '\n') + 1
}

// lineEnd is the end of the line that holds offset i (its line feed, or
// the end of the text).
func lineEnd(s string, i int) int {
	if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(s)
}

// clusterStart is the start of the cluster that ends at i (or holds i).
func clusterStart(s string, i int) int {
	if i <= 0 {
		return 0
	}
	start := lineStart(s, i)
	if start == i {
		return i - 1 // the line feed before i
	}
	p := start
	for p < i {
		e := clusterEnd(s, p)
		if e >= i {
			return p
		}
		p = e
	}
	return p
}

// snap is i moved forward to the end of the cluster holding it, when it
// falls inside one: an insertion can join what is on either side of it
// into one cluster (a ZWJ typed between two emoji).
func snap(s string, i int) int {
	if i <= 0 || i >= len(s) {
		return max(0, min(i, len(s)))
	}
	p := lineStart(s, i)
	for p < i {
		p = clusterEnd(s, p)
	}
	return p
}

// isWordRune reports whether r is part of a word for Alt+B, Alt+F, Alt+D
// and Alt+Backspace: a letter, a digit, a mark or an underscore.
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || r == '_'
}

func isSpaceRune(r rune) bool { return unicode.IsSpace(r) }

// firstRune is the first rune of s[i:].
func firstRune(s string, i int) rune {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return r
}

// wordRight is the end of the word at or after i (Alt+F, Alt+D).
func wordRight(s string, i int) int {
	for i < len(s) && !isWordRune(firstRune(s, i)) {
		i = clusterEnd(s, i)
	}
	for i < len(s) && isWordRune(firstRune(s, i)) {
		i = clusterEnd(s, i)
	}
	return i
}

// wordLeft is the start of the word at or before i (Alt+B, Alt+Backspace).
func wordLeft(s string, i int) int {
	for i > 0 {
		p := clusterStart(s, i)
		if isWordRune(firstRune(s, p)) {
			break
		}
		i = p
	}
	for i > 0 {
		p := clusterStart(s, i)
		if !isWordRune(firstRune(s, p)) {
			break
		}
		i = p
	}
	return i
}

// spaceWordLeft is the start of the blank-separated word before i (Ctrl-W,
// as a shell's line discipline erases a word).
func spaceWordLeft(s string, i int) int {
	for i > 0 {
		p := clusterStart(s, i)
		if !isSpaceRune(firstRune(s, p)) {
			break
		}
		i = p
	}
	for i > 0 {
		p := clusterStart(s, i)
		if isSpaceRune(firstRune(s, p)) {
			break
		}
		i = p
	}
	return i
}

// textBuf is the text being edited and its cursor, with the kill ring that
// Ctrl-K, Ctrl-U, Ctrl-W, Alt+D and Alt+Backspace fill and Ctrl-Y (then
// Alt+Y) take from.
type textBuf struct {
	s   string
	pos int

	kills []string // oldest first
	// killed: the key being handled killed text; lastKill: the key before
	// it did, so this kill joins that one (as readline does: Ctrl-W
	// Ctrl-W yanks back as one piece).
	killed, lastKill bool
	// The span the last Ctrl-Y or Alt+Y inserted, and which kill it was,
	// for an Alt+Y right after it; yanked says the key before was one.
	yanking, yanked  bool
	yankFrom, yankTo int
	yankIndex        int
}

// maxKills bounds the kill ring.
const maxKills = 16

// beginKey starts the handling of one key: a kill or a yank joins the one
// before only when it was the key right before.
func (b *textBuf) beginKey() {
	b.lastKill, b.killed = b.killed, false
	b.yanked, b.yanking = b.yanking, false
}

func (b *textBuf) set(s string) {
	b.s = cleanText(s)
	b.pos = len(b.s)
}

// insert puts text (cleaned) at the cursor and moves past it.
func (b *textBuf) insert(text string) {
	text = cleanText(text)
	b.s = b.s[:b.pos] + text + b.s[b.pos:]
	b.pos = snap(b.s, b.pos+len(text))
}

// remove deletes s[from:to] and leaves the cursor at from.
func (b *textBuf) remove(from, to int) string {
	gone := b.s[from:to]
	b.s = b.s[:from] + b.s[to:]
	b.pos = snap(b.s, from)
	return gone
}

// kill removes s[from:to] into the kill ring. before says the cursor was
// at to (a kill backwards): joined to the kill before, it goes in front.
func (b *textBuf) kill(from, to int, before bool) {
	if from >= to {
		return
	}
	gone := b.remove(from, to)
	b.killed = true
	if b.lastKill && len(b.kills) > 0 {
		n := len(b.kills) - 1
		if before {
			b.kills[n] = gone + b.kills[n]
		} else {
			b.kills[n] += gone
		}
		return
	}
	b.kills = append(b.kills, gone)
	if len(b.kills) > maxKills {
		b.kills = b.kills[1:]
	}
}

// yankLast inserts the newest kill (Ctrl-Y).
func (b *textBuf) yankLast() {
	if len(b.kills) == 0 {
		return
	}
	b.yankIndex = len(b.kills) - 1
	b.yankFrom = b.pos
	b.insert(b.kills[b.yankIndex])
	b.yankTo = b.pos
	b.yanking = true
}

// yankPop replaces what the last yank inserted by the kill before it
// (Alt+Y right after Ctrl-Y or Alt+Y).
func (b *textBuf) yankPop() {
	if !b.yanked || len(b.kills) < 2 {
		return
	}
	b.remove(b.yankFrom, b.yankTo)
	b.yankIndex = (b.yankIndex - 1 + len(b.kills)) % len(b.kills)
	b.insert(b.kills[b.yankIndex])
	b.yankTo = b.pos
	b.yanking = true
}

func (b *textBuf) left() {
	if b.pos > 0 {
		b.pos = clusterStart(b.s, b.pos)
	}
}

func (b *textBuf) right() {
	if b.pos < len(b.s) {
		b.pos = clusterEnd(b.s, b.pos)
	}
}

// backspace deletes the cluster before the cursor.
func (b *textBuf) backspace() {
	if b.pos > 0 {
		b.remove(clusterStart(b.s, b.pos), b.pos)
	}
}

// del deletes the cluster under the cursor.
func (b *textBuf) del() {
	if b.pos < len(b.s) {
		b.remove(b.pos, clusterEnd(b.s, b.pos))
	}
}

// killToEnd kills to the end of the line; at the end of a line, its line
// feed (Ctrl-K).
func (b *textBuf) killToEnd() {
	end := lineEnd(b.s, b.pos)
	if end == b.pos && end < len(b.s) {
		end++
	}
	b.kill(b.pos, end, false)
}

// killToStart kills to the start of the line; at the start of a line, the
// line feed before it (Ctrl-U).
func (b *textBuf) killToStart() {
	start := lineStart(b.s, b.pos)
	if start == b.pos && start > 0 {
		start--
	}
	b.kill(start, b.pos, true)
}

// transpose swaps the clusters before and at the cursor, or the last two
// at the end of a line (Ctrl-T), and moves past them.
func (b *textBuf) transpose() {
	if b.pos == 0 || b.pos == len(b.s) && b.pos < 2 {
		return
	}
	if b.pos == lineEnd(b.s, b.pos) {
		if b.pos == lineStart(b.s, b.pos) {
			return
		}
		b.left()
	}
	a := clusterStart(b.s, b.pos)
	e := clusterEnd(b.s, b.pos)
	if a == b.pos || b.s[a:b.pos] == "\n" || b.s[b.pos:e] == "\n" {
		return
	}
	b.s = b.s[:a] + b.s[b.pos:e] + b.s[a:b.pos] + b.s[e:]
	b.pos = snap(b.s, e)
}
