package term

import (
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
)

// lineEdit is one ReadLine: the text, its picture on the screen, and the
// keys as they come.
type lineEdit struct {
	e       *Editor
	run     *keyRun // the keys, while the terminal is the editor's
	prompt  string
	promptW int
	scr     *inline
	buf     textBuf

	cols, rows int // the window
	top        int // the first row of the text shown when it is taller than the window
	goal       int // the cell Up and Down aim at, -1 when none
	prefix     string
	search     *search

	quit     chan struct{} // closed by stop (Close)
	stopOnce sync.Once
	ended    chan struct{} // closed once ReadLine has ended its keys
	printed  chan struct{} // Println queued a line
	prints   []string      // under e.mu
	reprompt *string       // a prompt SetPrompt gave, under e.mu

	done  bool
	used  bool // done with the person's text: sent or discarded (Editor.Used)
	line  string
	err   error
	shown string // what stays on the screen after the prompt when done
}

func (l *lineEdit) stop() { l.stopOnce.Do(func() { close(l.quit) }) }

// fetch asks the keys for the next key; the answer comes on the channel.
func (l *lineEdit) fetch() <-chan tea.Msg {
	ch := make(chan tea.Msg, 1)
	next := l.run.next()
	go func() { ch <- next() }()
	return ch
}

// loop handles keys until the line is done.
func (l *lineEdit) loop() (string, error) {
	winch := make(chan os.Signal, 1)
	notifyResize(winch)
	defer signal.Stop(winch)
	l.goal = -1
	l.cols, l.rows = l.e.size()
	l.scr.cols = l.cols
	l.scr.write(pasteOn)
	l.draw()
	keys := l.fetch()
	for !l.done {
		select {
		case msg := <-keys:
			switch m := msg.(type) {
			case keyMsg:
				l.handle(l.run.took(m))
			case inputEndedMsg:
				l.finish("", io.EOF, "")
			default:
				// The keys were stopped (Close): quit says so.
				<-l.quit
				l.scr.leave()
				l.scr.write(pasteOff)
				return "", io.EOF
			}
			if l.done {
				break
			}
			if l.run == nil {
				// The terminal could not be taken back after a
				// suspension or an editor: the keys are closed.
				return "", io.EOF
			}
			keys = l.fetch()
			l.draw()
		case <-winch:
			cols, rows := l.e.size()
			l.scr.reflow(cols)
			l.cols, l.rows = cols, rows
			l.draw()
		case <-l.printed:
			l.e.mu.Lock()
			ps := l.prints
			l.prints = nil
			if p := l.reprompt; p != nil {
				l.prompt, l.promptW, l.reprompt = *p, textWidth(*p), nil
			}
			l.e.mu.Unlock()
			for _, t := range ps {
				l.scr.printAbove(t)
			}
			l.draw()
		case <-l.quit:
			l.scr.leave()
			l.scr.write(pasteOff)
			return "", io.EOF
		}
	}
	l.drawFinal()
	l.scr.write(pasteOff)
	return l.line, l.err
}

// finish ends the ReadLine with line and err, leaving shown after the
// prompt on the screen.
func (l *lineEdit) finish(line string, err error, shown string) {
	l.done, l.line, l.err, l.shown = true, line, err, shown
}

// picture lays out prompt and text: the rows, each with the prompt or its
// indent, their widths, and the cursor's row and cell.
func (l *lineEdit) picture(prompt, text string, pos int) (rows []string, ws []int, y, x int, lay []row) {
	pw := textWidth(prompt)
	room := max(l.cols-1-pw, 2)
	lay = layoutText(text, room)
	indent := strings.Repeat(" ", pw)
	for i, r := range lay {
		lead := indent
		if i == 0 {
			lead = prompt
		}
		rows = append(rows, lead+rowText(text, r))
		ws = append(ws, pw+r.w)
	}
	y, x = cursorAt(lay, pos)
	return rows, ws, y, pw + x, lay
}

// draw shows the line as it stands: the rows around the cursor when the
// text is taller than the window.
func (l *lineEdit) draw() {
	prompt, text, pos := l.prompt, l.buf.s, l.buf.pos
	if l.search != nil {
		prompt, text, pos = l.search.view(l.buf.s, l.buf.pos)
	}
	rows, ws, y, x, _ := l.picture(prompt, text, pos)
	h := max(l.rows-1, 1)
	if len(rows) > h {
		if y < l.top {
			l.top = y
		}
		if y >= l.top+h {
			l.top = y - h + 1
		}
		l.top = min(l.top, len(rows)-h)
		rows, ws, y = rows[l.top:l.top+h], ws[l.top:l.top+h], y-l.top
	} else {
		l.top = 0
	}
	// Typed says what the screen is about to show, never less: a signal
	// that comes once the screen showed a key keeps that key in the draft.
	l.e.mu.Lock()
	l.e.typed = l.buf.s
	l.e.mu.Unlock()
	l.scr.draw(rows, ws, y, x)
}

// drawFinal leaves the prompt and what was submitted on the screen, every
// row of it, with the cursor on the row below.
func (l *lineEdit) drawFinal() {
	rows, ws, _, _, _ := l.picture(l.prompt, cleanText(l.shown), 0)
	l.scr.draw(rows, ws, len(rows)-1, ws[len(ws)-1])
	l.scr.leave()
}

// handle handles one key or paste.
func (l *lineEdit) handle(msg tea.Msg) {
	switch m := msg.(type) {
	case tea.PasteMsg:
		if l.search != nil {
			l.search.add(l, m.Content)
			return
		}
		l.buf.beginKey()
		l.buf.insert(m.Content)
		l.goal = -1
	case tea.KeyPressMsg:
		l.key(m)
	}
}

// key handles one key press.
func (l *lineEdit) key(msg tea.KeyPressMsg) {
	e := l.e
	name := msg.String()
	e.mu.Lock()
	if l.prefix != "" {
		prefix := l.prefix
		seq := prefix + " " + name
		l.prefix = ""
		line, ok := e.binds[seq]
		e.mu.Unlock()
		switch {
		case ok:
			l.bound(line)
		case seq == "leader e" || seq == "leader ctrl+e":
			l.externalEdit()
		case prefix != "leader":
			// Esc, then a key bound to nothing with it: the key as
			// itself.
			l.keyAlone(msg, name, false)
		}
		return // the leader and a key bound to nothing: both ignored
	}
	e.mu.Unlock()
	l.keyAlone(msg, name, true)
}

// keyAlone handles a key that no prefix came before; startPrefix says it
// may start a binding of two keys.
func (l *lineEdit) keyAlone(msg tea.KeyPressMsg, name string, startPrefix bool) {
	e := l.e
	e.mu.Lock()
	if l.search == nil {
		if name == e.leader && e.leader != "" {
			l.prefix = "leader"
			e.mu.Unlock()
			return
		}
		line, ok := e.binds[name]
		if !ok && strings.HasPrefix(name, "alt+") {
			// A terminal sends Esc, then a key, quickly as one Alt+key:
			// it is the two keys when they are bound.
			line, ok = e.binds["esc "+strings.TrimPrefix(name, "alt+")]
		}
		if ok {
			e.mu.Unlock()
			l.bound(line)
			return
		}
		for k := range e.binds {
			if startPrefix && strings.HasPrefix(k, name+" ") && !strings.HasPrefix(k, "leader ") {
				l.prefix = name
				e.mu.Unlock()
				return
			}
		}
	}
	e.mu.Unlock()
	if l.search != nil && l.search.key(l, msg) {
		return
	}
	l.edit(msg)
}

// bound submits a bound line; the text typed so far comes back next time.
func (l *lineEdit) bound(line string) {
	l.e.mu.Lock()
	l.e.pending = l.buf.s
	l.e.mu.Unlock()
	l.finish(line, nil, line)
}

// edit handles a key of the editor proper.
func (l *lineEdit) edit(msg tea.KeyPressMsg) {
	e, b := l.e, &l.buf
	b.beginKey()
	vertical := false
	switch msg.String() {
	case "enter":
		e.mu.Lock()
		e.hist.leave()
		e.mu.Unlock()
		l.used = true
		l.finish(b.s, nil, b.s)
	case "ctrl+c":
		e.mu.Lock()
		e.hist.leave()
		e.mu.Unlock()
		l.used = true
		if b.s == "" {
			l.finish("", ErrInterrupted, "^C (Ctrl-D or /exit leaves)")
		} else {
			l.finish("", ErrInterrupted, b.s+"^C")
		}
	case "ctrl+d":
		if b.s == "" {
			e.mu.Lock()
			e.hist.leave()
			e.mu.Unlock()
			l.used = true
			l.finish("", io.EOF, "")
			return
		}
		b.del()
	case "up", "ctrl+p":
		vertical = true
		if !l.moveRow(-1) {
			e.mu.Lock()
			s, ok := e.hist.up(b.s)
			e.mu.Unlock()
			if ok {
				b.set(s)
				l.goal = -1
			}
		}
	case "down", "ctrl+n":
		vertical = true
		if !l.moveRow(1) {
			e.mu.Lock()
			s, ok := e.hist.down()
			e.mu.Unlock()
			if ok {
				b.set(s)
				l.goal = -1
			}
		}
	case "pgup":
		vertical = true
		for range max(l.rows-2, 1) {
			l.moveRow(-1)
		}
	case "pgdown":
		vertical = true
		for range max(l.rows-2, 1) {
			l.moveRow(1)
		}
	case "left", "ctrl+b":
		b.left()
	case "right", "ctrl+f":
		b.right()
	case "home", "ctrl+a":
		b.pos = lineStart(b.s, b.pos)
	case "end", "ctrl+e":
		b.pos = lineEnd(b.s, b.pos)
	case "ctrl+home", "alt+<":
		b.pos = 0
	case "ctrl+end", "alt+>":
		b.pos = len(b.s)
	case "alt+b", "alt+left", "ctrl+left":
		b.pos = wordLeft(b.s, b.pos)
	case "alt+f", "alt+right", "ctrl+right":
		b.pos = wordRight(b.s, b.pos)
	case "backspace", "ctrl+h":
		b.backspace()
	case "delete":
		b.del()
	case "ctrl+w":
		b.kill(spaceWordLeft(b.s, b.pos), b.pos, true)
	case "alt+backspace", "ctrl+backspace":
		b.kill(wordLeft(b.s, b.pos), b.pos, true)
	case "alt+d", "alt+delete", "ctrl+delete":
		b.kill(b.pos, wordRight(b.s, b.pos), false)
	case "ctrl+k":
		b.killToEnd()
	case "ctrl+u":
		b.killToStart()
	case "ctrl+y":
		b.yankLast()
	case "alt+y":
		b.yankPop()
	case "ctrl+t":
		b.transpose()
	case "alt+enter", "ctrl+j", "shift+enter":
		b.insert("\n")
	case "tab":
		b.insert("\t")
	case "ctrl+r":
		l.search = startSearch(l)
	case "ctrl+l":
		l.scr.clear()
	case "ctrl+z":
		l.suspend()
	default:
		if msg.Text != "" && msg.Mod&^(tea.ModShift|tea.ModCapsLock|tea.ModNumLock) == 0 {
			b.insert(msg.Text)
		}
	}
	if !vertical {
		l.goal = -1
	}
}

// moveRow moves the cursor d screen rows (Up, Down inside a text of several
// rows), keeping to the cell it aims at; false when there is no such row.
func (l *lineEdit) moveRow(d int) bool {
	_, _, y, x, lay := l.picture(l.prompt, l.buf.s, l.buf.pos)
	ny := y + d
	if ny < 0 || ny >= len(lay) {
		return false
	}
	if l.goal < 0 {
		l.goal = x - l.promptW
	}
	l.buf.pos = offsetAt(lay, ny, l.goal)
	return true
}
