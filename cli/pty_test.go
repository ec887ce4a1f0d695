package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clipperhouse/displaywidth"
	"golang.org/x/sys/unix"
	xterm "golang.org/x/term"

	"cairn/internal/ptytest"
)

// These tests drive the real REPL through a pseudo-terminal: cli.Main runs
// in this process with the terminal's tty as stdin and stdout, the test types
// on the master side and reads what was drawn.

// replPTY is the shared test terminal with the REPL's own helpers. It is
// tall enough that nothing the tests draw scrolls off.
type replPTY struct {
	*ptytest.Term
	prompts int // the prompts waited for so far

	mu   sync.Mutex
	errs []*bytes.Buffer // what each run wrote to stderr, for a failure
}

func openReplPTY(t *testing.T) *replPTY { return openReplPTYSize(t, 60, 100) }

// openReplPTYSize is openReplPTY for a terminal of rows by cols.
func openReplPTYSize(t *testing.T, rows, cols uint16) *replPTY {
	p := &replPTY{Term: ptytest.Open(t, rows, cols)}
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		for i, b := range p.errs {
			t.Logf("run %d wrote to stderr: %q", i+1, b.String())
		}
	})
	return p
}

// nextPrompt waits for the next prompt: one more row that starts with
// "cairn>", the cursor on it, and the terminal raw (the editor reads
// keys). Keys sent before it would reach a cooked terminal.
func (p *replPTY) nextPrompt(t *testing.T) {
	t.Helper()
	p.prompts++
	p.WaitScreen(t, fmt.Sprintf("prompt %d at the cursor", p.prompts), func(rows []string) bool {
		n, last := 0, -1
		for i, r := range rows {
			if promptRow(r) {
				n, last = n+1, i
			}
		}
		_, y := p.Cursor()
		return n == p.prompts && y == last && p.raw(t)
	})
}

// promptRow reports whether a screen row is a prompt line: "cairn>",
// after the chips of running work ("[tasks · 1] cairn>") when there is
// any.
func promptRow(r string) bool {
	for strings.HasPrefix(r, "[") {
		end := strings.Index(r, "] ")
		if end < 0 {
			return false
		}
		r = r[end+2:]
	}
	return strings.HasPrefix(r, "cairn>")
}

// raw reports whether the terminal is in raw mode (not reading lines) now.
func (p *replPTY) raw(t *testing.T) bool {
	t.Helper()
	fl, err := unix.IoctlGetTermios(p.FD, ioctlGetTermios)
	if err != nil {
		t.Fatal(err)
	}
	return fl.Lflag&unix.ICANON == 0
}

// awaitQueued waits until the terminal holds n bytes typed and not read
// yet: keys sent while nothing reads, with no echo to wait for.
func (p *replPTY) awaitQueued(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(ptytest.Guard)
	for {
		q, err := unix.IoctlGetInt(p.FD, ioctlInQueue)
		if err != nil {
			t.Fatal(err)
		}
		if q >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the terminal holds %d bytes, never %d", q, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// cursorRow waits until the cursor's row reads s.
func (p *replPTY) cursorRow(t *testing.T, s string) {
	t.Helper()
	p.WaitScreen(t, strconv.Quote(s)+" at the cursor", func(rows []string) bool {
		_, y := p.Cursor()
		return y < len(rows) && rows[y] == s
	})
}

// stateWatch is the REPL's stdout: it writes to the tty and, for every write
// that holds the resume line, notes the terminal mode at that moment.
type stateWatch struct {
	p      *replPTY
	mu     sync.Mutex
	states []*xterm.State
}

func (w *stateWatch) Write(b []byte) (int, error) {
	if bytes.Contains(b, []byte("cairn --resume ")) {
		st, err := xterm.GetState(w.p.FD)
		if err != nil {
			return 0, err
		}
		w.mu.Lock()
		w.states = append(w.states, st)
		w.mu.Unlock()
	}
	return w.p.TTY.Write(b)
}

// runMain runs cairn with args in the background on the pty.
func (p *replPTY) runMain(stdout *stateWatch, args ...string) <-chan int {
	ch := make(chan int, 1)
	errb := &bytes.Buffer{}
	p.mu.Lock()
	p.errs = append(p.errs, errb)
	p.mu.Unlock()
	go func() {
		var w lockedWriter
		w.mu, w.w = &p.mu, errb
		ch <- Main(context.Background(), args, p.TTY, stdout, &w)
	}()
	return ch
}

func (p *replPTY) awaitExit(t *testing.T, ch <-chan int) int {
	t.Helper()
	select {
	case c := <-ch:
		return c
	case <-time.After(ptytest.Guard):
		t.Fatalf("cairn never returned; drawn: %q", p.Output())
		return -1
	}
}

// plumb runs one plumbing call (no terminal) and returns its stdout.
func plumb(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := Main(context.Background(), args, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("cairn %v: exit %d: %s", args, code, errb.String())
	}
	return out.String()
}

type ptySession struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Items int    `json:"items"`
}

func listSessions(t *testing.T, base []string) []ptySession {
	t.Helper()
	var l []ptySession
	if err := json.Unmarshal([]byte(plumb(t, append(base, "sessions", "--json")...)), &l); err != nil {
		t.Fatal(err)
	}
	return l
}

func transcriptTexts(t *testing.T, base []string, id string) []string {
	t.Helper()
	var items []struct{ Text string }
	if err := json.Unmarshal([]byte(plumb(t, append(base, "transcript", "--json", id)...)), &items); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, it := range items {
		out = append(out, it.Text)
	}
	return out
}

// TestPTYHistoryAndResumeLine: Up recalls the previous prompt (also from
// an earlier run, through history.jsonl), and leaving prints the resume line
// last, once the terminal is back in the mode it was in before.
func TestPTYHistoryAndResumeLine(t *testing.T) {
	base := []string{"--home", t.TempDir(), "-C", t.TempDir()}
	p := openReplPTY(t)
	cooked := p.State(t)
	w := &stateWatch{p: p}

	done := p.runMain(w, base...)
	p.nextPrompt(t)
	p.Send(t, "alpha\r")
	p.nextPrompt(t)
	p.Send(t, "beta\r")
	p.nextPrompt(t)
	// Up twice walks back to alpha; Enter submits it again.
	p.Send(t, "\x1b[A")
	p.cursorRow(t, "cairn> beta")
	p.Send(t, "\x1b[A")
	p.cursorRow(t, "cairn> alpha")
	p.Send(t, "\r")
	p.nextPrompt(t)
	p.Send(t, "\x04") // Ctrl-D on an empty line leaves
	if c := p.awaitExit(t, done); c != 0 {
		t.Fatalf("exit %d", c)
	}

	l := listSessions(t, base)
	if len(l) != 1 {
		t.Fatalf("sessions: %+v", l)
	}
	if got, want := transcriptTexts(t, base, l[0].ID), []string{"alpha", "beta", "alpha"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("transcript %q, want %q", got, want)
	}

	// The resume line was written once, with the terminal cooked again, and
	// nothing was drawn after it.
	if len(w.states) != 1 || !reflect.DeepEqual(w.states[0], cooked) {
		t.Fatalf("resume line written %d times; mode at the time restored: %v", len(w.states), len(w.states) == 1 && reflect.DeepEqual(w.states[0], cooked))
	}
	if !reflect.DeepEqual(p.State(t), cooked) {
		t.Fatal("terminal mode not restored after cairn returned")
	}
	out := p.WaitSuffix(t, "cairn --resume "+l[0].ID+"\r\n")
	if strings.Count(out, "cairn --resume ") != 1 {
		t.Fatalf("resume line count: %q", out)
	}

	// A new run: history.jsonl brings the prompts back; Up recalls alpha.
	w2 := &stateWatch{p: p}
	done = p.runMain(w2, base...)
	p.nextPrompt(t)
	p.Send(t, "\x1b[A")
	p.cursorRow(t, "cairn> alpha")
	p.Send(t, "\r")
	p.nextPrompt(t)
	p.Send(t, "\x04")
	if c := p.awaitExit(t, done); c != 0 {
		t.Fatalf("exit %d", c)
	}
	l = listSessions(t, base)
	if len(l) != 2 || l[0].Title != "alpha" || l[0].Items != 1 {
		t.Fatalf("sessions after the second run: %+v", l)
	}
	if len(w2.states) != 1 || !reflect.DeepEqual(w2.states[0], cooked) {
		t.Fatal("second run: resume line not written once in cooked mode")
	}
}

// TestPTYPicker: the picker lists this directory's sessions newest first,
// arrow keys move, Enter opens the chosen one, and Esc leaves without
// writing or printing a resume line.
func TestPTYPicker(t *testing.T) {
	base := []string{"--home", t.TempDir(), "-C", t.TempDir()}
	for _, s := range []string{"one", "two", "three"} {
		plumb(t, append(base, "prompt", "--new", s)...)
	}
	l := listSessions(t, base)
	if len(l) != 3 || l[0].Title != "three" || l[2].Title != "one" {
		t.Fatalf("sessions: %+v", l)
	}
	p := openReplPTY(t)
	cooked := p.State(t)

	// Down, Down, Up, Down: the third row, "one".
	w := &stateWatch{p: p}
	done := p.runMain(w, append(base, "--resume")...)
	p.Expect(t, "three")
	for _, k := range []string{"\x1b[B", "\x1b[B", "\x1b[A", "\x1b[B"} {
		p.Send(t, k)
	}
	p.Send(t, "\r")
	p.Expect(t, `Resumed "one"`)
	p.nextPrompt(t)
	p.Send(t, "more\r")
	p.nextPrompt(t)
	p.Send(t, "/exit\r")
	if c := p.awaitExit(t, done); c != 0 {
		t.Fatalf("exit %d", c)
	}
	var one string
	for _, s := range listSessions(t, base) {
		if s.Title == "one" {
			one = s.ID
		}
	}
	if got, want := transcriptTexts(t, base, one), []string{"one", "more"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("transcript of one: %q, want %q", got, want)
	}
	if len(w.states) != 1 || !reflect.DeepEqual(w.states[0], cooked) {
		t.Fatal("resume line not written once in cooked mode")
	}
	p.WaitSuffix(t, "cairn --resume "+one+"\r\n")

	// Typing filters: "tw" leaves only "two"; Enter opens it.
	w = &stateWatch{p: p}
	done = p.runMain(w, append(base, "--resume")...)
	p.Expect(t, "three")
	p.Send(t, "tw")
	p.Send(t, "\r")
	p.Expect(t, `Resumed "two"`)
	p.nextPrompt(t)
	p.Send(t, "\x04")
	if c := p.awaitExit(t, done); c != 0 {
		t.Fatalf("exit %d", c)
	}

	// Esc leaves: exit 0, nothing resumed, no resume line.
	w = &stateWatch{p: p}
	before := len(p.WaitSuffix(t, "\r\n"))
	done = p.runMain(w, append(base, "--resume")...)
	p.Expect(t, "three")
	p.Send(t, "\x1b")
	if c := p.awaitExit(t, done); c != 0 {
		t.Fatalf("exit %d", c)
	}
	if len(w.states) != 0 {
		t.Fatal("a resume line after Esc")
	}
	if !reflect.DeepEqual(p.State(t), cooked) {
		t.Fatal("terminal mode not restored after Esc")
	}
	after := p.Output()[before:]
	if strings.Contains(after, "Resumed") {
		t.Fatalf("Esc resumed a session: %q", after)
	}
}

// TestPTYReplPaste: the REPL's first line names the session and /help; a
// pasted block of three lines is one prompt holding three lines; a pasted
// :write with its content writes the file; Ctrl-C clears a typed line,
// which is then not recorded.
func TestPTYReplPaste(t *testing.T) {
	dir := t.TempDir()
	base := []string{"--home", t.TempDir(), "-C", dir}
	p := openReplPTY(t)
	done := p.runMain(&stateWatch{p: p}, base...)
	p.nextPrompt(t)
	p.WaitScreen(t, "the first line", func(rows []string) bool {
		all := strings.Join(rows, "")
		return strings.HasPrefix(rows[0], "cairn session ") && strings.Contains(all, "once it holds a prompt. /help lists commands")
	})
	p.Send(t, "\x1b[200~please fix this:\r\nfunc main() {\r\n}\x1b[201~")
	p.Send(t, "\r")
	p.nextPrompt(t)
	p.Send(t, "\x1b[200~:write f.txt\nline one\nline two\x1b[201~\r")
	p.nextPrompt(t)
	p.Send(t, "not this")
	p.cursorRow(t, "cairn> not this")
	p.Send(t, "\x03")
	p.nextPrompt(t)
	p.Send(t, "\x04")
	if c := p.awaitExit(t, done); c != 0 {
		t.Fatalf("exit %d", c)
	}
	l := listSessions(t, base)
	if len(l) != 1 {
		t.Fatalf("sessions: %+v", l)
	}
	if got, want := transcriptTexts(t, base, l[0].ID), []string{"please fix this:\nfunc main() {\n}"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("transcript %q, want %q", got, want)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "f.txt")); err != nil || string(b) != "line one\nline two\n" {
		t.Fatalf("f.txt: %q, %v", b, err)
	}
}

// TestPTYForkDraftInInputLine: /fork at a prompt puts that prompt in the
// input line of the child, to edit and send again.
func TestPTYForkDraftInInputLine(t *testing.T) {
	dir := t.TempDir()
	base := []string{"--home", t.TempDir(), "-C", dir}
	p := openReplPTY(t)
	done := p.runMain(&stateWatch{p: p}, base...)
	p.nextPrompt(t)
	p.Send(t, "fix the bug\r")
	p.nextPrompt(t)
	p.Send(t, "/fork 1\r")
	p.nextPrompt(t)
	p.cursorRow(t, "cairn> fix the bug")
	p.Send(t, " please\r")
	p.nextPrompt(t)
	p.Send(t, "\x04")
	if c := p.awaitExit(t, done); c != 0 {
		t.Fatalf("exit %d", c)
	}
	l := listSessions(t, base)
	if len(l) != 2 {
		t.Fatalf("sessions: %+v", l)
	}
	var child string
	for _, s := range l {
		if strings.Contains(s.Title, "fork #1") {
			child = s.ID
		}
	}
	if got, want := transcriptTexts(t, base, child), []string{"fix the bug please"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("the child's transcript %q, want %q", got, want)
	}
}

// TestPTYPickerStaleFirstScreen: the picker's first screen comes from the
// saved index, which still lists a session whose conversation has since
// become unreadable; the listing that follows drops it, so it is never
// opened.
func TestPTYPickerStaleFirstScreen(t *testing.T) {
	home := t.TempDir()
	base := []string{"--home", home, "-C", t.TempDir()}
	for _, s := range []string{"one", "two", "three"} {
		plumb(t, append(base, "prompt", "--new", s)...)
	}
	l := listSessions(t, base) // saves the index
	if len(l) != 3 || l[0].Title != "three" {
		t.Fatalf("sessions: %+v", l)
	}
	journals, _ := filepath.Glob(filepath.Join(home, "workspaces", "*", "sessions", l[0].ID+".items.jsonl"))
	if len(journals) != 1 {
		t.Fatalf("journal of three: %v", journals)
	}
	if err := os.WriteFile(journals[0], []byte("{damaged\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := openReplPTY(t)
	done := p.runMain(&stateWatch{p: p}, append(base, "--resume")...)
	// The first screen, from the index, before the listing.
	p.Expect(t, "1 of 3, listing")
	// The listing arrives: two sessions, "three" gone from the screen.
	p.WaitScreen(t, "the listing of two sessions", func(rows []string) bool {
		return slices.ContainsFunc(rows, func(r string) bool { return strings.HasPrefix(r, "1 of 2  ") }) &&
			!slices.ContainsFunc(rows, func(r string) bool { return strings.Contains(r, "three") })
	})
	p.Send(t, "\r")
	p.Expect(t, `Resumed "two"`)
	p.nextPrompt(t)
	p.Send(t, "\x04")
	if c := p.awaitExit(t, done); c != 0 {
		t.Fatalf("exit %d", c)
	}
}

// TestPTYResumeTakesLeader: `cairn resume` takes --leader as the REPL does,
// so the leader a person set works in a resumed session too: ctrl+g then z
// is /undo there, and takes back the write made in the first run.
func TestPTYResumeTakesLeader(t *testing.T) {
	dir := t.TempDir()
	base := []string{"--home", t.TempDir(), "-C", dir}
	plumb(t, append(base, "tool", "write", "a.txt")...)
	if _, err := os.Stat(filepath.Join(dir, "a.txt")); err != nil {
		t.Fatalf("the write made no file: %v", err)
	}
	l := listSessions(t, base)
	if len(l) != 1 {
		t.Fatalf("sessions: %+v", l)
	}
	p := openReplPTY(t)
	done := p.runMain(&stateWatch{p: p}, append(base, "resume", "--leader", "ctrl+g", l[0].ID)...)
	p.nextPrompt(t)
	p.Send(t, "\x07z")
	p.nextPrompt(t)
	p.Send(t, "\x04")
	if c := p.awaitExit(t, done); c != 0 {
		t.Fatalf("exit %d", c)
	}
	if _, err := os.Stat(filepath.Join(dir, "a.txt")); !os.IsNotExist(err) {
		t.Fatalf("ctrl+g z in the resumed session did not undo the write: %v; drawn: %q", err, p.Output())
	}
}

// lockedWriter writes to w under mu.
type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// TestPTYPastedBlocks: a :write or :patch pasted with its content keeps
// every byte of it (a Makefile's tabs, a diff of tab-indented Go code),
// and a last line holding only "." ends the content as it ends the typed
// form, so it is not written or read as part of the patch.
func TestPTYPastedBlocks(t *testing.T) {
	dir := t.TempDir()
	goFile := "package main\n\nfunc main() {\n\tprintln(\"a\")\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(goFile), 0o644); err != nil {
		t.Fatal(err)
	}
	base := []string{"--home", t.TempDir(), "-C", dir}
	p := openReplPTY(t)
	done := p.runMain(&stateWatch{p: p}, base...)
	// What a terminal sends for a paste: line feeds as carriage returns.
	paste := func(text string) {
		t.Helper()
		p.nextPrompt(t)
		p.Send(t, "\x1b[200~"+strings.ReplaceAll(text, "\n", "\r")+"\x1b[201~\r")
	}
	paste(":write Makefile\nall:\n\techo hi\n")
	paste(":write pasted.txt\nalpha\n\tbeta  \n\n.")
	paste(":patch\n*** Begin Patch\n*** Add File: new.txt\n+x\n*** End Patch\n.\n")
	// A block typed after :write, pasted at its "... " prompt, with the "."
	// typed after the paste in the same text: the "." line ends it.
	p.nextPrompt(t)
	p.Send(t, ":write after.txt\r")
	p.Expect(t, "... ")
	p.Send(t, "\x1b[200~one\r\ttwo\r\x1b[201~.\r")
	paste(":patch\ndiff --git a/main.go b/main.go\n--- a/main.go\n+++ b/main.go\n@@ -1,5 +1,5 @@\n package main\n \n func main() {\n-\tprintln(\"a\")\n+\tprintln(\"b\")\n }\n")
	p.nextPrompt(t)
	p.Send(t, "\x04")
	if c := p.awaitExit(t, done); c != 0 {
		t.Fatalf("exit %d", c)
	}
	for name, want := range map[string]string{
		"Makefile":   "all:\n\techo hi\n",
		"pasted.txt": "alpha\n\tbeta  \n\n",
		"new.txt":    "x\n",
		"after.txt":  "one\n\ttwo\n",
		"main.go":    strings.Replace(goFile, `"a"`, `"b"`, 1),
	} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != want {
			t.Errorf("%s: %q, %v; want %q", name, b, err, want)
		}
	}
	if out := p.Output(); strings.Contains(out, "cairn:") {
		t.Fatalf("an error was shown: %q", out)
	}
}

// TestPTYHistoryCommands: /history shows every line of a prompt of
// several lines (up to five, then how many more); slash commands typed in
// this run come back with Up, and a prompt typed with // comes back with
// its two slashes, in this run and the next, so Enter sends it as a prompt
// again.
func TestPTYHistoryCommands(t *testing.T) {
	base := []string{"--home", t.TempDir(), "-C", t.TempDir()}
	p := openReplPTY(t)
	done := p.runMain(&stateWatch{p: p}, base...)
	p.nextPrompt(t)
	p.Send(t, "\x1b[200~two\rlines\r3\r4\r5\r6\r7\x1b[201~\r")
	p.nextPrompt(t)
	p.Send(t, "//slash prompt\r")
	p.nextPrompt(t)
	p.Send(t, "/history\r")
	p.Expect(t, "   2  /slash prompt")
	p.nextPrompt(t)
	rows := strings.Join(p.Screen(), "\n")
	if want := "   1  two\n      lines\n      3\n      4\n      5\n      … (2 more lines)\n   2  /slash prompt\n"; !strings.Contains(rows, want) {
		t.Fatalf("/history:\n%s", rows)
	}
	p.Send(t, "\x1b[A")
	p.cursorRow(t, "cairn> /history")
	p.Send(t, "\x1b[A")
	p.cursorRow(t, "cairn> //slash prompt")
	p.Send(t, "\x15\x04")
	if c := p.awaitExit(t, done); c != 0 {
		t.Fatalf("exit %d", c)
	}
	done = p.runMain(&stateWatch{p: p}, base...)
	p.nextPrompt(t)
	p.Send(t, "\x1b[A")
	p.cursorRow(t, "cairn> //slash prompt")
	p.Send(t, "\r")
	p.nextPrompt(t)
	p.Send(t, "\x04")
	if c := p.awaitExit(t, done); c != 0 {
		t.Fatalf("exit %d", c)
	}
	l := listSessions(t, base)
	if got := transcriptTexts(t, base, l[0].ID); !reflect.DeepEqual(got, []string{"/slash prompt"}) {
		t.Fatalf("the prompt sent again: %q", got)
	}
}

// TestPTYOutputFitsWindow: /help and /storage are fitted to the window at
// 40 and at 100 columns: no row is as wide as the window (the terminal
// would have wrapped it, cutting a word), and every command /help lists
// is there.
func TestPTYOutputFitsWindow(t *testing.T) {
	// Short folders: a path wider than the window cannot be fitted.
	short := func() string {
		d, err := os.MkdirTemp("", "c")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(d) })
		return d
	}
	for _, cols := range []uint16{40, 100} {
		dir := short()
		base := []string{"--home", short(), "-C", dir}
		p := openReplPTYSize(t, 200, cols)
		done := p.runMain(&stateWatch{p: p}, base...)
		p.nextPrompt(t)
		p.Send(t, ":exec echo x > a.txt\r")
		p.nextPrompt(t)
		p.Send(t, "/help\r")
		p.nextPrompt(t)
		p.Send(t, "/storage\r")
		p.Expect(t, "Change stores, largest first:")
		p.nextPrompt(t)
		p.Send(t, "\x04")
		if c := p.awaitExit(t, done); c != 0 {
			t.Fatalf("exit %d", c)
		}
		rows := p.Screen()
		start, end := 0, 0
		for i, r := range rows {
			if r == "cairn> /help" {
				start = i
			}
			if promptRow(r) {
				end = i
			}
		}
		rows = rows[:end]
		for _, r := range rows[start:] {
			if displaywidth.String(r) >= int(cols) {
				t.Fatalf("%d columns: a row the terminal wrapped: %q\n%s", cols, r, strings.Join(rows[start:], "\n"))
			}
		}
		screen := strings.Join(rows[start:], "\n")
		for _, e := range helpEntries() {
			if first, _, _ := strings.Cut(e[0], " "); !strings.Contains(screen, "  "+first) {
				t.Fatalf("%d columns: /help does not list %s:\n%s", cols, e[0], screen)
			}
		}
	}
}

// TestPTYDiff: /diff shows what the newest recorded call changed, or a
// whole turn, as a coloured unified diff with each file's counts (no
// colour under NO_COLOR); a /revert files preview counts each file's lines
// too.
func TestPTYDiff(t *testing.T) {
	for _, noColor := range []bool{false, true} {
		if noColor {
			t.Setenv("NO_COLOR", "1")
		}
		dir := t.TempDir()
		base := []string{"--home", t.TempDir(), "-C", dir}
		p := openReplPTY(t)
		done := p.runMain(&stateWatch{p: p}, base...)
		p.nextPrompt(t)
		p.Send(t, "make a\r")
		p.nextPrompt(t)
		p.Send(t, "\x1b[200~:write a.txt\rone\r\ttwo\r\x1b[201~\r")
		p.nextPrompt(t)
		p.Send(t, "/diff\r")
		p.ExpectScreen(t, "  create  a.txt  +2 −0")
		p.nextPrompt(t)
		p.Send(t, "/diff 1\r")
		p.Expect(t, "What the turn of prompt")
		p.nextPrompt(t)
		p.Send(t, "/revert 1 files\r")
		p.ExpectScreen(t, "a.txt  +0 −2")
		p.nextPrompt(t)
		p.Send(t, "\x04")
		if c := p.awaitExit(t, done); c != 0 {
			t.Fatalf("exit %d", c)
		}
		screen := strings.Join(p.Screen(), "\n")
		for _, want := range []string{"+++ b/a.txt", "+one", "+       two", "Repeat /revert 1 files to run it"} {
			if !strings.Contains(screen, want) {
				t.Fatalf("no %q:\n%s", want, screen)
			}
		}
		if out := p.Output(); strings.Contains(out, "\x1b[32m+one") == noColor {
			t.Fatalf("NO_COLOR %v: colour %v in %q", noColor, !noColor, out)
		}
	}
}
