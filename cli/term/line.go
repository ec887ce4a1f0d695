package term

import "unicode"

// lineBuf is the line being edited: its runes and the cursor, an index
// from 0 (before the first rune) to len(r) (after the last).
type lineBuf struct {
	r   []rune
	pos int
}

func (l *lineBuf) String() string { return string(l.r) }

// set replaces the line and puts the cursor at its end.
func (l *lineBuf) set(s string) {
	l.r = []rune(s)
	l.pos = len(l.r)
}

func (l *lineBuf) insert(c rune) {
	l.r = append(l.r, 0)
	copy(l.r[l.pos+1:], l.r[l.pos:])
	l.r[l.pos] = c
	l.pos++
}

// backspace deletes the rune before the cursor.
func (l *lineBuf) backspace() {
	if l.pos == 0 {
		return
	}
	l.r = append(l.r[:l.pos-1], l.r[l.pos:]...)
	l.pos--
}

// del deletes the rune under the cursor.
func (l *lineBuf) del() {
	if l.pos == len(l.r) {
		return
	}
	l.r = append(l.r[:l.pos], l.r[l.pos+1:]...)
}

func (l *lineBuf) left() {
	if l.pos > 0 {
		l.pos--
	}
}

func (l *lineBuf) right() {
	if l.pos < len(l.r) {
		l.pos++
	}
}

func (l *lineBuf) home() { l.pos = 0 }
func (l *lineBuf) end()  { l.pos = len(l.r) }

// killStart deletes from the start of the line to the cursor (Ctrl-U).
func (l *lineBuf) killStart() {
	l.r = append(l.r[:0], l.r[l.pos:]...)
	l.pos = 0
}

// killEnd deletes from the cursor to the end of the line (Ctrl-K).
func (l *lineBuf) killEnd() { l.r = l.r[:l.pos] }

// killWord deletes the word before the cursor and the spaces after it
// (Ctrl-W).
func (l *lineBuf) killWord() {
	i := l.pos
	for i > 0 && unicode.IsSpace(l.r[i-1]) {
		i--
	}
	for i > 0 && !unicode.IsSpace(l.r[i-1]) {
		i--
	}
	l.r = append(l.r[:i], l.r[l.pos:]...)
	l.pos = i
}
