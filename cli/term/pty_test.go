package term

import (
	"context"
	"errors"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	xterm "golang.org/x/term"

	"cairn/internal/ptytest"
)

// guard bounds every wait in the pty tests.
const guard = ptytest.Guard

// ptyTerm is the shared test terminal.
type ptyTerm struct{ *ptytest.Term }

func openPTY(t *testing.T, rows, cols uint16) *ptyTerm { return &ptyTerm{ptytest.Open(t, rows, cols)} }

// result is what a call running in the background returned.
type result struct {
	s   string
	i   int
	err error
}

func await(t *testing.T, ch <-chan result) result {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(guard):
		t.Fatal("no answer")
		return result{}
	}
}

func readLineAsync(e *Editor, prompt string) <-chan result {
	ch := make(chan result, 1)
	go func() {
		s, err := e.ReadLine(prompt)
		ch <- result{s: s, err: err}
	}()
	return ch
}

// openKeys opens the terminal's keys, closed when the test ends.
func (p *ptyTerm) openKeys(t *testing.T) *Keys {
	t.Helper()
	k, err := OpenKeys(p.TTY)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Close() })
	return k
}

// openEditor is an editor on the terminal's keys.
func openEditor(t *testing.T, p *ptyTerm, history []string) *Editor {
	t.Helper()
	return NewEditor(p.openKeys(t), p.TTY, history)
}

func pickAsync(t *testing.T, p *ptyTerm, rows []Row) <-chan result {
	k := p.openKeys(t)
	ch := make(chan result, 1)
	go func() {
		i, err := Pick(context.Background(), k, p.TTY, rows, nil)
		ch <- result{i: i, err: err}
	}()
	return ch
}

// readLine runs one ReadLine: it waits until the terminal is raw and the
// prompt is drawn on the cursor's row, types the keys, and checks the mode
// is restored after the call.
func readLine(t *testing.T, p *ptyTerm, e *Editor, keys ...string) result {
	t.Helper()
	before := p.State(t)
	ch := readLineAsync(e, "cairn> ")
	p.awaitPrompt(t, before, "cairn>")
	for _, k := range keys {
		p.Send(t, k)
	}
	r := await(t, ch)
	if !reflect.DeepEqual(p.State(t), before) {
		t.Fatal("terminal mode not restored")
	}
	return r
}

// awaitPrompt waits until the terminal has left the mode cooked (the
// editor made it raw) and the cursor's row starts with prompt. The editor
// draws once it is raw, so the wait ends.
func (p *ptyTerm) awaitPrompt(t *testing.T, cooked *xterm.State, prompt string) {
	t.Helper()
	p.WaitScreen(t, "the prompt at the cursor, the terminal raw", func(rows []string) bool {
		_, y := p.Cursor()
		return y < len(rows) && strings.HasPrefix(rows[y], prompt) && !reflect.DeepEqual(p.State(t), cooked)
	})
}

func TestPTYEditor(t *testing.T) {
	p := openPTY(t, 24, 80)
	e := openEditor(t, p, []string{"one", "two"})
	defer e.Close()
	e.Bind("alt+z", "/undo")

	if r := readLine(t, p, e, "hello\r"); r.s != "hello" || r.err != nil {
		t.Fatalf("typed: %q, %v", r.s, r.err)
	}

	// Up three times stops at the oldest; Down twice puts the draft back.
	if r := readLine(t, p, e, "dra", "\x1b[A", "\x1b[A", "\x1b[A", "\x1b[B", "\x1b[B", "ft\r"); r.s != "draft" || r.err != nil {
		t.Fatalf("walk back to the draft: %q, %v", r.s, r.err)
	}
	if r := readLine(t, p, e, "\x1b[A", "\x1b[A", "\x1b[A", "\x1b[B", "\r"); r.s != "two" || r.err != nil {
		t.Fatalf("walk to an entry: %q, %v", r.s, r.err)
	}

	// Alt+Z submits the bound line; the typed text comes back next time.
	if r := readLine(t, p, e, "abc", "\x1bz"); r.s != "/undo" || r.err != nil {
		t.Fatalf("Alt+Z: %q, %v", r.s, r.err)
	}
	if r := readLine(t, p, e, "!\r"); r.s != "abc!" || r.err != nil {
		t.Fatalf("kept text: %q, %v", r.s, r.err)
	}

	if r := readLine(t, p, e, "gone", "\x03"); !errors.Is(r.err, ErrInterrupted) {
		t.Fatalf("Ctrl-C: %q, %v", r.s, r.err)
	}
	if r := readLine(t, p, e, "\x04"); r.err != io.EOF {
		t.Fatalf("Ctrl-D: %q, %v", r.s, r.err)
	}
}

// Close puts back the mode the terminal had when the editor was made.
func TestPTYEditorClose(t *testing.T) {
	p := openPTY(t, 24, 80)
	before := p.State(t)
	e := openEditor(t, p, nil)
	if _, err := xterm.MakeRaw(p.FD); err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(p.State(t), before) {
		t.Fatal("MakeRaw changed nothing")
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p.State(t), before) {
		t.Fatal("Close did not restore the terminal")
	}
}

// Close during a ReadLine returns only once that ReadLine has put the
// terminal back, so what Close restores is what stays: the mode at
// OpenKeys, not the one the ReadLine began in (which its end puts back).
// Rounds, because without that wait the order of the two is a race.
func TestPTYEditorCloseDuringReadLine(t *testing.T) {
	for round := range 20 {
		p := openPTY(t, 24, 80)
		before := p.State(t)
		e := openEditor(t, p, nil)
		if _, err := xterm.MakeRaw(p.FD); err != nil {
			t.Fatal(err)
		}
		ch := readLineAsync(e, "cairn> ")
		p.Expect(t, "cairn>") // drawn: the ReadLine runs
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(p.State(t), before) {
			t.Fatalf("round %d: after Close the terminal is not in the mode found at OpenKeys", round)
		}
		if r := await(t, ch); r.err != io.EOF {
			t.Fatalf("round %d: ReadLine ended with %q, %v; want io.EOF", round, r.s, r.err)
		}
	}
}

// pick runs Pick: it waits for the first footer, types the keys, checks
// raw mode during and the mode restored after.
func pick(t *testing.T, p *ptyTerm, rows []Row, keys ...string) result {
	t.Helper()
	before := p.State(t)
	ch := pickAsync(t, p, rows)
	p.footer(t, "1 of ")
	if reflect.DeepEqual(p.State(t), before) {
		t.Fatal("terminal not in raw mode while picking")
	}
	for _, k := range keys {
		p.Send(t, k)
	}
	r := await(t, ch)
	p.wiped(t)
	if !reflect.DeepEqual(p.State(t), before) {
		t.Fatal("terminal mode not restored")
	}
	return r
}

// footer waits until a row of the screen starts with s.
func (p *ptyTerm) footer(t *testing.T, s string) []string {
	t.Helper()
	return p.WaitScreen(t, strconv.Quote(s)+" at the start of a row", func(rows []string) bool {
		return slices.ContainsFunc(rows, func(r string) bool { return strings.HasPrefix(r, s) })
	})
}

// wiped waits until the screen holds no picker line.
func (p *ptyTerm) wiped(t *testing.T) {
	t.Helper()
	p.WaitScreen(t, "the picker wiped", func(rows []string) bool {
		return !slices.ContainsFunc(rows, func(r string) bool { return strings.HasPrefix(r, "filter:") })
	})
}

func TestPTYPick(t *testing.T) {
	p := openPTY(t, 9, 100) // a page of 5 rows
	rows := manyRows(20)
	rows[7].Owner = 99

	ch := pickAsync(t, p, rows)
	p.footer(t, "1 of 20")
	p.Send(t, "\x1b[B")
	p.footer(t, "2 of 20")
	p.Send(t, "\x1b[B")
	p.footer(t, "3 of 20")
	p.Send(t, "\x1b[6~") // PgDn
	p.ExpectScreen(t, "open in pid 99")
	p.footer(t, "8 of 20")
	p.Send(t, "\x1b[A")
	p.footer(t, "7 of 20")
	p.Send(t, "\r")
	if r := await(t, ch); r.err != nil || r.i != 6 {
		t.Fatalf("picked %d, %v; want 6", r.i, r.err)
	}
	p.wiped(t)

	if r := pick(t, p, rows, "\x1b[B", "\x1b[B", "\x1b[B\r"); r.err != nil || r.i != 3 {
		t.Fatalf("picked %d, %v; want 3", r.i, r.err)
	}
	// Every row is reachable.
	if r := pick(t, p, rows, "\x1b[6~\x1b[6~\x1b[6~\x1b[6~\x1b[6~", "\r"); r.err != nil || r.i != 19 {
		t.Fatalf("paged to %d, %v; want 19", r.i, r.err)
	}
	if r := pick(t, p, rows, "\x1b[B", "\x1b"); !errors.Is(r.err, ErrCancelled) {
		t.Fatalf("Esc: %d, %v", r.i, r.err)
	}
	if r := pick(t, p, rows, "\x03"); !errors.Is(r.err, ErrInterrupted) {
		t.Fatalf("Ctrl-C: %d, %v", r.i, r.err)
	}
}

func TestPTYPickFilter(t *testing.T) {
	p := openPTY(t, 24, 100)
	rows := manyRows(20)
	ch := pickAsync(t, p, rows)
	p.footer(t, "1 of 20")
	p.Send(t, "TASK 15")
	p.footer(t, "1 of 1 (20 in all)")
	p.Send(t, "\r")
	if r := await(t, ch); r.err != nil || r.i != 15 {
		t.Fatalf("picked %d, %v; want 15", r.i, r.err)
	}
}

// A resize while the picker is open reflows it: every line fits the new
// width, the page fits the new height, and no old picture is left.
func TestPTYPickResize(t *testing.T) {
	p := openPTY(t, 40, 120)
	rows := manyRows(120)
	rows[0].Title = "日本語のタイトルです、長いタイトルをテストしますよ。とても長いタイトルをここに書きます"
	ch := pickAsync(t, p, rows)
	p.footer(t, "1 of 120")
	p.Resize(t, 12, 60)
	p.Send(t, "\x1b[B")
	// The resize reaches the picker as a signal, so the key may be drawn
	// at the old size first: wait for the picture at the new one, at most
	// 11 rows of at most 59 cells and one filter line.
	p.WaitScreen(t, "the picker at 12x60 with 2 of 120 selected", func(screen []string) bool {
		if !slices.ContainsFunc(screen, func(r string) bool { return strings.HasPrefix(r, "2 of 120") }) ||
			len(textRows(screen)) > 11 || strings.Count(strings.Join(screen, "\n"), "filter:") != 1 {
			return false
		}
		return !slices.ContainsFunc(screen, func(r string) bool { return ansi.StringWidth(r) > 59 })
	})
	p.Send(t, "\r")
	if r := await(t, ch); r.err != nil || r.i != 1 {
		t.Fatalf("picked %d, %v; want 1", r.i, r.err)
	}
}

// The preview beside the list shows the selected row's last prompt.
func TestPTYPickPreview(t *testing.T) {
	p := openPTY(t, 24, 100)
	rows := manyRows(5)
	k := p.openKeys(t)
	ch := make(chan result, 1)
	go func() {
		i, err := Pick(context.Background(), k, p.TTY, rows, func(r Row) Preview { return Preview{Turns: []PreviewTurn{{Prompt: "asked about " + r.Title}}} })
		ch <- result{i: i, err: err}
	}()
	p.ExpectScreen(t, "│ > asked about Task 0")
	p.Send(t, "\x1b[B")
	p.ExpectScreen(t, "│ > asked about Task 1")
	p.Send(t, "\x1b")
	if r := await(t, ch); !errors.Is(r.err, ErrCancelled) {
		t.Fatalf("Esc: %v", r.err)
	}
}

// textRows is the rows of the screen that hold something.
func textRows(rows []string) []string {
	var l []string
	for _, r := range rows {
		if strings.TrimSpace(r) != "" {
			l = append(l, r)
		}
	}
	return l
}

// A prompt longer than the width wraps and is redrawn in place: typed one
// key at a time, 200 characters at 60 columns leave the wrapped rows on the
// screen and nothing else (no copy of the line per key).
func TestPTYEditorLongLineWraps(t *testing.T) {
	p := openPTY(t, 15, 60)
	e := openEditor(t, p, nil)
	defer e.Close()
	long := strings.Repeat("abcdefghi ", 20) // 200 characters
	before := p.State(t)
	ch := readLineAsync(e, "cairn> ")
	p.awaitPrompt(t, before, "cairn>")
	for _, c := range long[:199] {
		p.Send(t, string(c))
	}
	p.Send(t, "X") // the last key, to wait for
	rows := p.WaitScreen(t, "the whole line", func(rows []string) bool {
		return strings.HasSuffix(strings.TrimSpace(strings.Join(textRows(rows), "")), "abcdefghiX")
	})
	// 207 cells of prompt and text in rows of at most 59: 4 rows, 5 when
	// words wrap early.
	got := textRows(rows)
	if len(got) < 4 || len(got) > 5 || p.Scrolled() != 0 {
		t.Fatalf("%d rows on the screen, %d scrolled off:\n%s", len(got), p.Scrolled(), strings.Join(rows, "\n"))
	}
	if strings.Count(strings.Join(rows, "\n"), "cairn>") != 1 {
		t.Fatalf("the prompt drawn more than once:\n%s", strings.Join(rows, "\n"))
	}
	p.Send(t, "\r")
	if r := await(t, ch); r.s != long[:199]+"X" || r.err != nil {
		t.Fatalf("submitted %q, %v", r.s, r.err)
	}
}

// A pasted block of three lines is one text of three lines, not three
// submissions; Alt+Enter starts a new line by hand.
func TestPTYEditorPaste(t *testing.T) {
	p := openPTY(t, 24, 80)
	e := openEditor(t, p, nil)
	defer e.Close()
	if r := readLine(t, p, e, "\x1b[200~please fix this:\r\nfunc main() {\r\n}\x1b[201~", "\r"); r.s != "please fix this:\nfunc main() {\n}" || r.err != nil {
		t.Fatalf("paste: %q, %v", r.s, r.err)
	}
	if r := readLine(t, p, e, "one", "\x1b\r", "two\r"); r.s != "one\ntwo" || r.err != nil {
		t.Fatalf("Alt+Enter: %q, %v", r.s, r.err)
	}
}

// Wide characters are measured in cells: the cursor sits after a CJK
// prompt, and moving left over it inserts where the cursor is drawn.
func TestPTYEditorWide(t *testing.T) {
	p := openPTY(t, 24, 80)
	e := openEditor(t, p, nil)
	defer e.Close()
	before := p.State(t)
	ch := readLineAsync(e, "cairn> ")
	p.awaitPrompt(t, before, "cairn>")
	p.Send(t, "日本語abc")
	p.ExpectScreen(t, "cairn> 日本語abc")
	// "cairn> " is 7 cells, 日本語 6 more, abc 3: the cursor is in cell 16.
	p.WaitScreen(t, "the cursor after the text", func([]string) bool { x, _ := p.Cursor(); return x == 16 })
	p.Send(t, "\x1b[D\x1b[D\x1b[D\x1b[D") // before 語
	p.WaitScreen(t, "the cursor before 語", func([]string) bool { x, _ := p.Cursor(); return x == 11 })
	p.Send(t, "Z\r")
	if r := await(t, ch); r.s != "日本Z語abc" || r.err != nil {
		t.Fatalf("submitted %q, %v", r.s, r.err)
	}
	if r := readLine(t, p, e, "🎉 e\u0301\r"); r.s != "🎉 e\u0301" {
		t.Fatalf("emoji and a combining mark: %q", r.s)
	}
}

// A window resize reflows the line being edited.
func TestPTYEditorResize(t *testing.T) {
	p := openPTY(t, 20, 80)
	e := openEditor(t, p, nil)
	defer e.Close()
	before := p.State(t)
	ch := readLineAsync(e, "cairn> ")
	p.awaitPrompt(t, before, "cairn>")
	p.Send(t, strings.Repeat("x", 60)+"END")
	p.ExpectScreen(t, "xEND")
	p.Resize(t, 20, 40)
	// 70 cells at 39 to a row: two rows, the prompt once.
	p.WaitScreen(t, "the line reflowed to 40 columns", func(rows []string) bool {
		l := textRows(rows)
		return len(l) == 2 && strings.HasPrefix(l[0], "cairn> ") && len(l[0]) <= 40 && strings.HasSuffix(l[1], "xEND")
	})
	p.Send(t, "\r")
	if r := await(t, ch); r.s != strings.Repeat("x", 60)+"END" {
		t.Fatalf("submitted %q", r.s)
	}
}

// The leader key, then a bound key, submits the bound line; Ctrl-C clears a
// typed line.
func TestPTYEditorLeaderAndCtrlC(t *testing.T) {
	p := openPTY(t, 24, 80)
	e := openEditor(t, p, nil)
	defer e.Close()
	e.Bind("leader z", "/undo")
	e.Bind("f9", "/snapshots")
	if r := readLine(t, p, e, "typed", "\x18", "z"); r.s != "/undo" || r.err != nil {
		t.Fatalf("leader z: %q, %v", r.s, r.err)
	}
	if r := readLine(t, p, e, "\x1b[20~"); r.s != "/snapshots" {
		t.Fatalf("F9: %q, %v", r.s, r.err)
	}
	e.SetLeader("ctrl+g")
	if r := readLine(t, p, e, "\x07", "z"); r.s != "/undo" {
		t.Fatalf("another leader: %q, %v", r.s, r.err)
	}
	if r := readLine(t, p, e, " more", "\x03"); !errors.Is(r.err, ErrInterrupted) {
		t.Fatalf("Ctrl-C: %q, %v", r.s, r.err)
	}
	if r := readLine(t, p, e, "\r"); r.s != "" {
		t.Fatalf("after Ctrl-C the line was not cleared: %q", r.s)
	}
	// Ctrl-C on an empty line says how to leave.
	if r := readLine(t, p, e, "\x03"); !errors.Is(r.err, ErrInterrupted) {
		t.Fatalf("Ctrl-C on an empty line: %v", r.err)
	}
	p.ExpectScreen(t, "cairn> ^C (Ctrl-D or /exit leaves)")
}

// A history entry holding an escape sequence is drawn without it, so that
// it cannot drive the terminal.
func TestPTYEditorHistoryEscaped(t *testing.T) {
	p := openPTY(t, 24, 80)
	e := openEditor(t, p, []string{"a\x1b]0;owned\x07b\x1b[2J"})
	defer e.Close()
	if r := readLine(t, p, e, "\x1b[A", "\r"); r.err != nil || strings.ContainsRune(r.s, 0x1b) {
		t.Fatalf("recalled %q, %v", r.s, r.err)
	}
	if out := p.Output(); strings.Contains(out, "\x1b]0;owned") || strings.Contains(out, "\x1b[2J") {
		t.Fatalf("the entry's escapes reached the terminal: %q", out)
	}
}

// readAhead runs one ReadLine on keys typed ahead: it returns without a
// key sent, too soon to see the terminal raw; the mode is restored after.
func readAhead(t *testing.T, p *ptyTerm, e *Editor) result {
	t.Helper()
	before := p.State(t)
	r := await(t, readLineAsync(e, "cairn> "))
	if !reflect.DeepEqual(p.State(t), before) {
		t.Fatal("terminal mode not restored")
	}
	return r
}

// Keys that come in the same write as the Enter that ends a line are kept
// for the next ReadLine, which returns them without another key; the
// terminal is cooked in between.
func TestPTYEditorTypedAhead(t *testing.T) {
	p := openPTY(t, 24, 80)
	e := openEditor(t, p, nil)
	if r := readLine(t, p, e, "one\rtwo\x1b[200~ pasted\x1b[201~\rthr"); r.s != "one" || r.err != nil {
		t.Fatalf("first line: %q, %v", r.s, r.err)
	}
	if r := readAhead(t, p, e); r.s != "two pasted" || r.err != nil {
		t.Fatalf("second line, typed ahead: %q, %v", r.s, r.err)
	}
	if r := readLine(t, p, e, "ee\r"); r.s != "three" || r.err != nil {
		t.Fatalf("third line, begun ahead: %q, %v", r.s, r.err)
	}
}

// Keys typed after the picker's Enter reach the editor on the same keys.
func TestPTYPickThenEditor(t *testing.T) {
	p := openPTY(t, 24, 80)
	k := p.openKeys(t)
	ch := make(chan result, 1)
	go func() {
		i, err := Pick(context.Background(), k, p.TTY, manyRows(5), nil)
		ch <- result{i: i, err: err}
	}()
	p.footer(t, "1 of ")
	p.Send(t, "\x1b[B\rhello\r")
	if r := await(t, ch); r.i != 1 || r.err != nil {
		t.Fatalf("picked %d, %v", r.i, r.err)
	}
	if r := readAhead(t, p, NewEditor(k, p.TTY, nil)); r.s != "hello" || r.err != nil {
		t.Fatalf("typed after the choice: %q, %v", r.s, r.err)
	}
}

// Between ReadLines nothing reads the terminal: a line typed then goes to
// whoever reads it (a command the REPL runs), cooked, and the next
// ReadLine still works.
func TestPTYKeysIdleBetweenPrograms(t *testing.T) {
	p := openPTY(t, 24, 80)
	e := openEditor(t, p, nil)
	if r := readLine(t, p, e, "one\r"); r.s != "one" || r.err != nil {
		t.Fatalf("first line: %q, %v", r.s, r.err)
	}
	g := e.keys.in
	g.mu.Lock()
	open, reading := g.cr != nil, g.reading
	g.mu.Unlock()
	if open || reading {
		t.Fatalf("after ReadLine the keys still read the terminal (open %v, a read under way %v)", open, reading)
	}
	got := make(chan string, 1)
	go func() {
		b := make([]byte, 64)
		n, _ := p.TTY.Read(b)
		got <- string(b[:n])
	}()
	p.Send(t, "for a child\r")
	select {
	case s := <-got:
		if s != "for a child\n" {
			t.Fatalf("the other reader read %q", s)
		}
	case <-time.After(guard):
		t.Fatal("the line typed between prompts never reached the other reader")
	}
	if r := readLine(t, p, e, "two\r"); r.s != "two" || r.err != nil {
		t.Fatalf("after: %q, %v", r.s, r.err)
	}
}

// A line typed while no ReadLine runs (the terminal cooked, its Enter a
// line feed then) is submitted by the next ReadLine, as typed; Ctrl-J in
// the editor still starts a new line.
func TestPTYEditorTypedWhileCooked(t *testing.T) {
	p := openPTY(t, 24, 80)
	e := openEditor(t, p, nil)
	if r := readLine(t, p, e, "one\r"); r.s != "one" || r.err != nil {
		t.Fatalf("first line: %q, %v", r.s, r.err)
	}
	p.Send(t, "two\rthr")
	p.Expect(t, "thr") // echoed: the terminal has the keys
	if r := readAhead(t, p, e); r.s != "two" || r.err != nil {
		t.Fatalf("typed while cooked: %q, %v", r.s, r.err)
	}
	if r := readLine(t, p, e, "ee\n", "four\r"); r.s != "three\nfour" || r.err != nil {
		t.Fatalf("then Ctrl-J: %q, %v", r.s, r.err)
	}
}

// Println while a ReadLine waits prints above the line being edited, which
// keeps its text and is drawn again below; with no ReadLine it says so.
func TestPTYEditorPrintlnAbove(t *testing.T) {
	p := openPTY(t, 24, 80)
	e := openEditor(t, p, nil)
	defer e.Close()
	if e.Println("nobody reads") {
		t.Fatal("Println with no ReadLine running reported it printed")
	}
	before := p.State(t)
	ch := readLineAsync(e, "cairn> ")
	p.awaitPrompt(t, before, "cairn>")
	p.Send(t, "half")
	p.WaitScreen(t, "the typed text", func(rows []string) bool {
		_, y := p.Cursor()
		return y < len(rows) && strings.HasPrefix(rows[y], "cairn> half")
	})
	if !e.Println("told above\nsecond line") {
		t.Fatal("Println during a ReadLine reported it did not print")
	}
	p.WaitScreen(t, "the text above the prompt, the prompt below with its text", func(rows []string) bool {
		_, y := p.Cursor()
		return y >= 2 && y < len(rows) && rows[y-2] == "told above" && rows[y-1] == "second line" &&
			strings.HasPrefix(rows[y], "cairn> half")
	})
	p.Send(t, "!\r")
	if r := await(t, ch); r.s != "half!" || r.err != nil {
		t.Fatalf("the line after a print above: %q, %v", r.s, r.err)
	}
}
