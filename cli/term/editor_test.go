package term

import (
	"bytes"
	"errors"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
)

// testEditor is an editor reading keys from the given chunks, without a
// terminal; out collects what it draws.
func testEditor(history []string, keys ...string) (*Editor, *bytes.Buffer) {
	var c [][]byte
	for _, k := range keys {
		c = append(c, []byte(k))
	}
	out := &bytes.Buffer{}
	return newEditor(&chunks{c: c}, out, history), out
}

// lines reads lines until the input ends and returns them with the error
// of every call.
func readLines(t *testing.T, e *Editor, n int) ([]string, []error) {
	t.Helper()
	var got []string
	var errs []error
	for range n {
		s, err := e.readLine("> ")
		got = append(got, s)
		errs = append(errs, err)
	}
	return got, errs
}

func TestEditorEditing(t *testing.T) {
	cases := []struct {
		keys string
		want string
	}{
		{"hello\r", "hello"},
		{"helo\x1b[Dl\r", "hello"},                    // Left, insert
		{"hxello\x01\x1b[C\x1b[3~\r", "hello"},        // Ctrl-A, Right, Delete
		{"ello\x1b[Hh\x1b[F!\r", "hello!"},            // Home, End
		{"hello world\x17\x17x\r", "x"},               // Ctrl-W twice
		{"hello world\x17\r", "hello "},               // Ctrl-W keeps the space before the word
		{"abc\x1b[D\x1b[D\x15\r", "bc"},               // Ctrl-U kills to the start
		{"abc\x1b[D\x1b[D\x0b\r", "a"},                // Ctrl-K kills to the end
		{"abd\x7fc\r", "abc"},                         // Backspace
		{"\x7f\x1b[3~\x1b[D\x1b[C\x0b\x15ok\r", "ok"}, // edits on an empty line do nothing
		{"héllo→\x1b[D\x1b[D\x7f\r", "hélo→"},         // runes, not bytes
		{"ab\x1b[D\x04\r", "a"},                       // Ctrl-D on a non-empty line deletes under the cursor
		{"a\x1b[2~\x1bqb\r", "ab"},                    // unknown keys are ignored
	}
	for _, c := range cases {
		e, _ := testEditor(nil, c.keys)
		got, err := e.readLine("> ")
		if err != nil || got != c.want {
			t.Errorf("%q: got %q, %v; want %q", c.keys, got, err, c.want)
		}
	}
}

func TestEditorCtrlDAndCtrlC(t *testing.T) {
	e, out := testEditor(nil, "\x04", "half\x03", "next\r")
	if _, err := e.readLine("> "); err != io.EOF {
		t.Fatalf("Ctrl-D on empty line: %v, want io.EOF", err)
	}
	if s, err := e.readLine("> "); !errors.Is(err, ErrInterrupted) || s != "" {
		t.Fatalf("Ctrl-C: %q, %v", s, err)
	}
	// The interrupted line is gone.
	if s, err := e.readLine("> "); err != nil || s != "next" {
		t.Fatalf("after Ctrl-C: %q, %v", s, err)
	}
	if !strings.Contains(out.String(), "^C\r\n") {
		t.Fatalf("no ^C drawn: %q", out.String())
	}
	if _, err := e.readLine("> "); err != io.EOF {
		t.Fatalf("end of input: %v", err)
	}
}

func TestEditorHistoryKeys(t *testing.T) {
	e, _ := testEditor([]string{"first", "second"},
		"dra", "\x1b[A", "\x1b[A", "\x1b[A", "\x1b[B", "\x1b[B", "ft\r", // back to the draft
		"\x1b[A", "\x1b[A\r", // submit an entry
		"\x1b[A\x1b[A\x1b[A\r", // the submitted walk ended: starts again at the newest
	)
	got, errs := readLines(t, e, 3)
	if want := []string{"draft", "first", "first"}; !slices.Equal(got, want) {
		t.Fatalf("lines %q (%v), want %q", got, errs, want)
	}
	// ReadLine adds nothing to the history by itself.
	if h := e.History(); !slices.Equal(h, []string{"first", "second"}) {
		t.Fatalf("history %q", h)
	}
}

func TestEditorHistoryAddDuringWalk(t *testing.T) {
	e, _ := testEditor([]string{"a", "b"}, "mine\x1b[A\x1b[A")
	// The input ends while "a" is in view.
	if _, err := e.readLine("> "); err != io.EOF {
		t.Fatalf("err %v", err)
	}
	e.AddHistory("c") // a prompt arriving from elsewhere
	e.dec = newDecoder(&chunks{c: [][]byte{[]byte("\x1b[B\r\x1b[A\x1b[B\x1b[B\r")}})
	got, errs := readLines(t, e, 2)
	// Down from "a" is "b"; a new walk after submitting sees "c" as newest.
	if want := []string{"b", ""}; !slices.Equal(got, want) {
		t.Fatalf("lines %q (%v), want %q", got, errs, want)
	}
	if h := e.History(); !slices.Equal(h, []string{"a", "b", "c"}) {
		t.Fatalf("history %q", h)
	}
}

func TestEditorBind(t *testing.T) {
	e, out := testEditor([]string{"old"}, "typed\x1b[D", "\x1bz", "\x1b[20~", "\x1br", "!\r")
	e.Bind(KeyAltZ, "/undo")
	e.Bind(KeyAltR, "/redo")
	e.Bind(KeyF9, "/snapshots")
	e.Bind(KeyRune, "never")
	got, errs := readLines(t, e, 4)
	want := []string{"/undo", "/snapshots", "/redo", "type!d"}
	if !slices.Equal(got, want) {
		t.Fatalf("lines %q (%v), want %q", got, errs, want)
	}
	// The bound line is what the screen shows as submitted.
	if !strings.Contains(out.String(), "\r> /undo\x1b[K\r\n") {
		t.Fatalf("bound line not drawn: %q", out.String())
	}
	// Unbinding.
	e.Bind(KeyAltZ, "")
	e.dec = newDecoder(&chunks{c: [][]byte{[]byte("\x1bzok\r")}})
	if s, _ := e.readLine("> "); s != "ok" {
		t.Fatalf("after unbind: %q", s)
	}
}

func TestEditorBindKeepsHistoryWalk(t *testing.T) {
	e, _ := testEditor([]string{"old"}, "draft\x1b[A", "\x1bz", "\x1b[B\r")
	e.Bind(KeyAltZ, "/undo")
	got, _ := readLines(t, e, 2)
	if want := []string{"/undo", "draft"}; !slices.Equal(got, want) {
		t.Fatalf("lines %q, want %q", got, want)
	}
}

func TestEditorRedraw(t *testing.T) {
	e, out := testEditor(nil, "ab\x1b[D\x1b[D")
	e.readLine("$ ")
	s := out.String()
	// The last picture: the line, cleared to the end, the cursor 2 left.
	if !strings.Contains(s, "\r$ ab\x1b[K\x1b[2D") {
		t.Fatalf("output %q", s)
	}
	// Control characters from the history are not drawn as such.
	e, out = testEditor([]string{"a\x1b[2Jb"}, "\x1b[A\r")
	if s, _ := e.readLine("$ "); s != "a\x1b[2Jb" {
		t.Fatalf("line %q", s)
	}
	if strings.Contains(out.String(), "\x1b[2J") {
		t.Fatalf("escape drawn: %q", out.String())
	}
}

func TestNewEditorNotTerminal(t *testing.T) {
	f, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	defer w.Close()
	if _, err := NewEditor(f, io.Discard, nil); !errors.Is(err, ErrNotTerminal) {
		t.Fatalf("err %v, want ErrNotTerminal", err)
	}
	if _, err := NewEditor(nil, io.Discard, nil); !errors.Is(err, ErrNotTerminal) {
		t.Fatalf("nil: err %v, want ErrNotTerminal", err)
	}
	if _, err := Pick(f, io.Discard, []Row{{ID: "x"}}); !errors.Is(err, ErrNotTerminal) {
		t.Fatalf("pick: err %v, want ErrNotTerminal", err)
	}
}
