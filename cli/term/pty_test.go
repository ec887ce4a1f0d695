package term

import (
	"errors"
	"io"
	"reflect"
	"testing"
	"time"

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

func pickAsync(p *ptyTerm, rows []Row) <-chan result {
	ch := make(chan result, 1)
	go func() {
		i, err := Pick(p.TTY, p.TTY, rows)
		ch <- result{i: i, err: err}
	}()
	return ch
}

// readLine runs one ReadLine: it waits for the prompt (drawn once the
// terminal is raw), types the keys, and checks the mode was raw during
// the call and restored after it.
func readLine(t *testing.T, p *ptyTerm, e *Editor, keys ...string) result {
	t.Helper()
	before := p.State(t)
	ch := readLineAsync(e, "cairn> ")
	p.Expect(t, "cairn> ")
	if reflect.DeepEqual(p.State(t), before) {
		t.Fatal("terminal not in raw mode while reading")
	}
	for _, k := range keys {
		p.Send(t, k)
	}
	r := await(t, ch)
	p.Expect(t, "\r\n") // the end of this call's drawing
	if !reflect.DeepEqual(p.State(t), before) {
		t.Fatal("terminal mode not restored")
	}
	return r
}

func TestPTYEditor(t *testing.T) {
	p := openPTY(t, 24, 80)
	e, err := NewEditor(p.TTY, p.TTY, []string{"one", "two"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	e.Bind(KeyAltZ, "/undo")

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
	e, err := NewEditor(p.TTY, p.TTY, nil)
	if err != nil {
		t.Fatal(err)
	}
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

// pick runs Pick: it waits for the first footer, types the keys, checks
// raw mode during and the mode restored after.
func pick(t *testing.T, p *ptyTerm, rows []Row, keys ...string) result {
	t.Helper()
	before := p.State(t)
	ch := pickAsync(p, rows)
	p.Expect(t, "\n1 of ")
	if reflect.DeepEqual(p.State(t), before) {
		t.Fatal("terminal not in raw mode while picking")
	}
	for _, k := range keys {
		p.Send(t, k)
	}
	r := await(t, ch)
	p.Expect(t, "\r\x1b[J") // the picture wiped: the end of this call's drawing
	if !reflect.DeepEqual(p.State(t), before) {
		t.Fatal("terminal mode not restored")
	}
	return r
}

func TestPTYPick(t *testing.T) {
	p := openPTY(t, 8, 100) // a page of 5 rows
	rows := manyRows(20)
	rows[7].Owner = 99

	ch := pickAsync(p, rows)
	p.Expect(t, "\n1 of 20")
	p.Send(t, "\x1b[B")
	p.Expect(t, "\n2 of 20")
	p.Send(t, "\x1b[B")
	p.Expect(t, "\n3 of 20")
	p.Send(t, "\x1b[6~") // PgDn
	p.Expect(t, "[open in pid 99]")
	p.Expect(t, "\n8 of 20")
	p.Send(t, "\x1b[A")
	p.Expect(t, "\n7 of 20")
	p.Send(t, "\r")
	if r := await(t, ch); r.err != nil || r.i != 6 {
		t.Fatalf("picked %d, %v; want 6", r.i, r.err)
	}
	p.Expect(t, "\r\x1b[J") // wiped

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
	if r := pick(t, p, rows, "\x03"); !errors.Is(r.err, ErrCancelled) {
		t.Fatalf("Ctrl-C: %d, %v", r.i, r.err)
	}
}

func TestPTYPickFilter(t *testing.T) {
	p := openPTY(t, 24, 100)
	rows := manyRows(20)
	ch := pickAsync(p, rows)
	p.Expect(t, "\n1 of 20")
	p.Send(t, "TASK 1")
	p.Expect(t, "\n1 of 11 (20 in all)")
	p.Send(t, "5")
	p.Expect(t, "\n1 of 1 (20 in all)")
	// Widening the filter again keeps Task 15 selected.
	p.Send(t, "\x7f\x1b[B\x1b[B")
	p.Expect(t, "\n9 of 11 (20 in all)")
	p.Send(t, "\r")
	if r := await(t, ch); r.err != nil || r.i != 17 {
		t.Fatalf("picked %d, %v; want 17", r.i, r.err)
	}
}
