package term

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"

	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	xterm "golang.org/x/term"
)

// Editor reads lines from a terminal with editing, prompt history and
// bound keys. ReadLine is called from one goroutine at a time; AddHistory,
// Bind, SetLeader and Close may be called from any goroutine, also while
// ReadLine waits for keys.
type Editor struct {
	keys *Keys
	out  io.Writer

	mu      sync.Mutex
	hist    *historyWalk
	binds   map[string]string // a key name, or the leader and a key, to a line
	leader  string
	pending string        // the text a bound key left, shown by the next ReadLine
	running *tea.Program  // the ReadLine under way, for Close
	ran     chan struct{} // closed when running has returned and its keyRun ended
	closed  bool
	typed   string // the text of the ReadLine under way (Typed)
}

// Typed is the text being edited by the ReadLine under way, not yet
// submitted, or between two ReadLines the text a bound key left for the
// next one: "" when there is none. Safe to call from another goroutine (a
// signal handler keeping it as the session's draft).
func (e *Editor) Typed() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.typed == "" {
		return e.pending
	}
	return e.typed
}

// NewEditor returns an editor reading keys from keys (the terminal's, kept
// by the caller for every prompt and picker, so that no key typed ahead is
// lost between them) and drawing on out. history is the prompt history,
// oldest first. The terminal is in raw mode only while ReadLine runs.
func NewEditor(keys *Keys, out io.Writer, history []string) *Editor {
	return &Editor{keys: keys, out: out, hist: newHistoryWalk(history),
		binds: map[string]string{}, leader: DefaultLeader}
}

// DefaultLeader is the leader key until SetLeader changes it.
const DefaultLeader = "ctrl+x"

// Bind makes pressing keys submit line at once, whatever is typed: ReadLine
// returns line. keys is a key name as the terminal library spells it
// ("alt+z", "f9", "ctrl+x"), or "leader" and a key name after a space
// ("leader z": the leader key, then z). The typed text (and a history walk
// under way) is kept and shown again by the next ReadLine. An empty line
// removes the binding.
func (e *Editor) Bind(keys, line string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if line == "" {
		delete(e.binds, keys)
		return
	}
	e.binds[keys] = line
}

// SetLeader makes k (a key name, "ctrl+x" by default) the leader key of the
// "leader K" bindings.
func (e *Editor) SetLeader(k string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.leader = k
}

// Prefill puts text in the input line of the next ReadLine, to edit
// before sending it (the prompt a fork or revert hands back).
func (e *Editor) Prefill(text string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.pending = text
}

// AddHistory appends s to the prompt history as its newest entry. Empty
// lines and a repeat of the newest entry are not added. A history walk
// under way keeps the entry it shows. ReadLine never adds by itself: the
// caller adds what it accepted as a prompt.
func (e *Editor) AddHistory(s string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.hist.add(s)
}

// ReadLine shows prompt and returns the text submitted with Enter, or the
// line bound to a pressed key. The text can hold several lines: a paste
// stays one text, and Alt+Enter or Ctrl-J starts a new line by hand. Ctrl-D
// on an empty line returns io.EOF; Ctrl-C discards the text and returns
// ErrInterrupted. The terminal is in raw mode while it runs and is restored
// before it returns; what is left on the screen is the prompt and the text.
func (e *Editor) ReadLine(prompt string) (string, error) {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return "", io.EOF
	}
	run, err := e.keys.begin(e.out)
	if err != nil {
		e.mu.Unlock()
		if errors.Is(err, errKeysClosed) {
			return "", io.EOF
		}
		return "", err
	}
	// The program reads no input itself: its keys come from e.keys (run).
	opts := []tea.ProgramOption{tea.WithInput(nil), tea.WithOutput(e.out),
		tea.WithoutSignalHandler(), tea.WithoutCatchPanics(), tea.WithContext(context.Background())}
	if cols, rows := e.screenSize(); cols > 0 {
		// The library asks the output for its size, and for resizes; when
		// the output is not the terminal, the keyboard's terminal tells.
		opts = append(opts, tea.WithWindowSize(cols, rows))
	}
	m := e.newModelLocked(prompt, run)
	p := tea.NewProgram(m, opts...)
	ran := make(chan struct{})
	e.running, e.ran = p, ran
	e.mu.Unlock()
	final, err := p.Run()
	run.end()
	close(ran) // after end: Close's restore must come last
	e.mu.Lock()
	e.running, e.typed = nil, ""
	closed := e.closed
	e.mu.Unlock()
	if closed {
		return "", io.EOF
	}
	if err != nil {
		if errors.Is(err, tea.ErrProgramKilled) {
			return "", io.EOF
		}
		return "", err
	}
	r := final.(*lineModel)
	if !r.done {
		// The input ended before a key did.
		return "", io.EOF
	}
	return r.line, r.err
}

// screenSize is the size to start with when out is not a terminal: the
// size of the terminal keys come from.
func (e *Editor) screenSize() (cols, rows int) {
	if c, _ := screenSize(e.out); c > 0 {
		return 0, 0 // the library asks out itself
	}
	if c, r, err := xterm.GetSize(e.keys.fd); err == nil && c > 0 {
		return c, r
	}
	return 80, 24
}

// Close ends a ReadLine under way (it returns io.EOF) and closes the
// editor's keys, which restores the terminal mode found by OpenKeys.
// ReadLine restores the mode on every return already; Close is for leaving
// on a signal.
func (e *Editor) Close() error {
	e.mu.Lock()
	e.closed = true
	p, ran := e.running, e.ran
	e.mu.Unlock()
	if p != nil {
		// Not p.Wait: it blocks for good when Run has not started yet.
		// ran waits for the ReadLine's run to end too, so its keyboard
		// modes are reset and its restore comes before the one below.
		p.Kill()
		<-ran
	}
	return e.keys.Close()
}

// printAboveMsg is text Println has the running ReadLine print above the
// line being edited.
type printAboveMsg string

// Println prints text, on lines of its own, above the line being edited,
// which is drawn again below it. It is safe from any goroutine; it reports
// false when no ReadLine runs, and the caller then writes text itself.
func (e *Editor) Println(text string) bool {
	e.mu.Lock()
	p := e.running
	e.mu.Unlock()
	if p == nil {
		return false
	}
	p.Send(printAboveMsg(text)) // returns at once once the program has ended
	return true
}

// lineModel is one ReadLine as a terminal program: a text area that grows
// with its text, wraps it at the screen's width by display cells, and
// reflows when the window is resized.
type lineModel struct {
	e      *Editor
	run    *keyRun // where the keys come from
	ta     textarea.Model
	prompt string

	afterLeader bool // the leader key was the last key

	done  bool   // ReadLine returns line and err
	line  string // what ReadLine returns
	err   error
	shown string // the text left on the screen when done
}

// newModelLocked is the program of one ReadLine; e.mu is held.
func (e *Editor) newModelLocked(prompt string, run *keyRun) *lineModel {
	ta := textarea.New()
	ta.SetStyles(textarea.Styles{})
	ta.ShowLineNumbers = false
	ta.DynamicHeight = true
	ta.MinHeight = 1
	ta.MaxHeight = 0
	ta.CharLimit = 0
	ta.SetVirtualCursor(false)
	ta.EndOfBufferCharacter = ' '
	pw := textWidth(prompt)
	cont := strings.Repeat(" ", pw)
	ta.SetPromptFunc(pw, func(info textarea.PromptInfo) string {
		if info.LineNumber == 0 {
			return prompt
		}
		return cont
	})
	// Enter submits and the editor decides Up, Down and Ctrl-D itself; the
	// text area moves between the lines of a text with them otherwise.
	ta.KeyMap.InsertNewline.SetKeys("alt+enter", "ctrl+j")
	ta.KeyMap.DeleteCharacterForward.SetKeys("delete")
	ta.Focus()
	ta.SetValue(e.pending)
	e.typed, e.pending = e.pending, ""
	m := &lineModel{e: e, run: run, ta: ta, prompt: prompt}
	m.resize(80, 24)
	return m
}

func (m *lineModel) resize(cols, rows int) {
	if cols <= 0 {
		return
	}
	// One column is left free so that a full row never makes the terminal
	// wrap on its own.
	m.ta.SetWidth(max(cols-1, textWidth(m.prompt)+2))
	if rows > 1 {
		m.ta.MaxHeight = rows - 1
	}
}

func (m *lineModel) Init() tea.Cmd { return m.run.next() }

func (m *lineModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	model, cmd := m.update(msg)
	// What is typed, for Typed; a line submitted or cancelled is no
	// longer being typed.
	t := ""
	if !m.done {
		t = m.ta.Value()
	}
	m.e.mu.Lock()
	m.e.typed = t
	m.e.mu.Unlock()
	return model, cmd
}

func (m *lineModel) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case keyMsg:
		if m.done {
			return m, nil // not taken: the next ReadLine has it
		}
		model, cmd := m, tea.Cmd(nil)
		if km := m.run.took(msg); km != nil {
			_, cmd = m.handle(km)
		}
		if m.done {
			return model, cmd // no more keys: the rest are the next ReadLine's
		}
		return model, tea.Batch(cmd, m.run.next())
	case inputEndedMsg:
		return m, tea.Quit
	case printAboveMsg:
		return m, tea.Println(string(msg))
	}
	return m.handle(msg)
}

// handle handles one message; keys come as the library's key messages.
func (m *lineModel) handle(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
		return m, nil
	case tea.PasteMsg:
		msg.Content = normalizeNewlines(msg.Content)
		var cmd tea.Cmd
		m.ta, cmd = m.ta.Update(msg)
		return m, cmd
	case tea.KeyPressMsg:
		return m.key(msg)
	}
	var cmd tea.Cmd
	m.ta, cmd = m.ta.Update(msg)
	return m, cmd
}

// key handles one key press.
func (m *lineModel) key(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	e := m.e
	name := msg.String()
	e.mu.Lock()
	defer e.mu.Unlock()
	if m.afterLeader {
		m.afterLeader = false
		if line, ok := e.binds["leader "+name]; ok {
			return m.bound(line)
		}
		return m, nil // a leader and a key bound to nothing: both ignored
	}
	if name == e.leader && e.leader != "" {
		m.afterLeader = true
		return m, nil
	}
	if line, ok := e.binds[name]; ok {
		return m.bound(line)
	}
	switch name {
	case "enter":
		text := m.ta.Value()
		e.hist.leave()
		return m.finish(text, nil, text)
	case "ctrl+c":
		e.hist.leave()
		if m.ta.Value() == "" {
			return m.finish("", ErrInterrupted, "^C (Ctrl-D or /exit leaves)")
		}
		return m.finish("", ErrInterrupted, m.ta.Value()+"^C")
	case "ctrl+d":
		if m.ta.Value() == "" {
			e.hist.leave()
			return m.finish("", io.EOF, "")
		}
		m.ta.Update(tea.KeyPressMsg{Code: tea.KeyDelete})
		return m, nil
	case "up", "ctrl+p":
		if m.onFirstRow() {
			if s, ok := e.hist.up(m.ta.Value()); ok {
				m.ta.SetValue(s)
			}
			return m, nil
		}
	case "down", "ctrl+n":
		if m.onLastRow() {
			if s, ok := e.hist.down(); ok {
				m.ta.SetValue(s)
			}
			return m, nil
		}
	}
	var cmd tea.Cmd
	m.ta, cmd = m.ta.Update(msg)
	return m, cmd
}

// bound submits a bound line; the text typed so far comes back next time.
// e.mu is held.
func (m *lineModel) bound(line string) (tea.Model, tea.Cmd) {
	m.e.pending = m.ta.Value()
	return m.finish(line, nil, line)
}

// finish ends the ReadLine with line and err, leaving shown on the screen.
func (m *lineModel) finish(line string, err error, shown string) (tea.Model, tea.Cmd) {
	m.done, m.line, m.err, m.shown = true, line, err, shown
	return m, tea.Quit
}

// onFirstRow reports whether the cursor is on the first screen row of the
// text, where Up walks the history rather than moving up a row.
func (m *lineModel) onFirstRow() bool {
	return m.ta.Line() == 0 && m.ta.LineInfo().RowOffset == 0
}

// onLastRow is the same for Down and the last row.
func (m *lineModel) onLastRow() bool {
	li := m.ta.LineInfo()
	return m.ta.Line() == m.ta.LineCount()-1 && li.RowOffset >= li.Height-1
}

func (m *lineModel) View() tea.View {
	if m.done {
		// The last picture, with no cursor: the prompt and what was
		// submitted, wrapped as it was while editing.
		if m.shown == "" && errors.Is(m.err, io.EOF) {
			return tea.NewView(m.prompt + "\n")
		}
		m.ta.Blur()
		m.ta.SetValue(m.shown)
		return tea.NewView(strings.TrimRight(m.ta.View(), " \n") + "\n")
	}
	v := tea.NewView(m.ta.View())
	v.Cursor = m.ta.Cursor()
	return v
}

// normalizeNewlines turns CR LF and lone CR (what many terminals paste)
// into LF.
func normalizeNewlines(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}
