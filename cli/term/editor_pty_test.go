package term

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// startLine starts a ReadLine and waits for its prompt.
func startLine(t *testing.T, p *ptyTerm, e *Editor) <-chan result {
	t.Helper()
	before := p.State(t)
	ch := readLineAsync(e, "cairn> ")
	p.awaitPrompt(t, before, "cairn>")
	return ch
}

// cursorAtCell waits until the cursor is in cell x of its row.
func (p *ptyTerm) cursorAtCell(t *testing.T, x int) {
	t.Helper()
	p.WaitScreen(t, "the cursor in cell "+string(rune('0'+x/10))+string(rune('0'+x%10)), func([]string) bool {
		cx, _ := p.Cursor()
		return cx == x
	})
}

// Left, Right, Backspace and Delete step over whole grapheme clusters: a
// ZWJ family, an emoji with its skin tone, a letter with a combining
// mark, a flag. Text typed next to one never lands inside it.
func TestPTYEditorGraphemes(t *testing.T) {
	p := openPTY(t, 24, 80)
	e := openEditor(t, p, nil)
	defer e.Close()
	family := "👨\u200d👩\u200d👧"
	for _, c := range []struct {
		keys []string
		want string
	}{
		{[]string{"a" + family + "b", "\x1b[D", "\x1b[D", "X\r"}, "aX" + family + "b"},
		{[]string{"abe\u0301cd", "\x1b[D", "\x1b[D", "\x1b[D", "Y\r"}, "abYe\u0301cd"},
		{[]string{"a👍🏽", "\x7f", "\r"}, "a"},
		{[]string{"a" + family + "b", "\x01", "\x1b[C", "\x1b[C", "Z\r"}, "a" + family + "Zb"},
		{[]string{"x🇫🇷y", "\x01", "\x1b[C", "\x04", "\r"}, "xy"},
		{[]string{"x👍🏽y", "\x1b[D", "\x1b[3~", "\r"}, "x👍🏽"},
	} {
		if r := readLine(t, p, e, c.keys...); r.s != c.want || r.err != nil {
			t.Fatalf("keys %q: submitted %q, %v; want %q", c.keys, r.s, r.err, c.want)
		}
	}
	// The cursor is drawn after the whole family: "cairn> " is 7 cells,
	// "a" 1, the family 2.
	ch := startLine(t, p, e)
	p.Send(t, "a"+family+"b\x1b[D")
	p.cursorAtCell(t, 10)
	p.Send(t, "\x1b[D")
	p.cursorAtCell(t, 8)
	p.Send(t, "\r")
	await(t, ch)
}

// A wrap never splits a cluster: at 20 columns the row has room for 12
// cells, and an emoji with its skin tone in cells 11 and 12 stays whole on
// the first row.
func TestPTYEditorWrapKeepsClusters(t *testing.T) {
	p := openPTY(t, 24, 20)
	e := openEditor(t, p, nil)
	defer e.Close()
	ch := startLine(t, p, e)
	p.Send(t, "abcdefghij👍🏽xy")
	rows := p.WaitScreen(t, "the text on two rows", func(rows []string) bool {
		return len(textRows(rows)) == 2 && strings.HasSuffix(textRows(rows)[1], "xy")
	})
	if got := textRows(rows); got[0] != "cairn> abcdefghij👍🏽" || got[1] != "       xy" {
		t.Fatalf("rows:\n%s", strings.Join(got, "\n"))
	}
	p.Send(t, "\r")
	if r := await(t, ch); r.s != "abcdefghij👍🏽xy" {
		t.Fatalf("submitted %q", r.s)
	}
	// CJK at 20 columns: 24 cells of text on rows of 12, none cut.
	ch = startLine(t, p, e)
	p.Send(t, "日本語テキストと絵文字👍🏽ok")
	rows = p.WaitScreen(t, "the text on three rows", func(rows []string) bool {
		l := textRows(rows)
		return len(l) >= 3 && strings.HasSuffix(l[len(l)-1], "ok")
	})
	l := textRows(rows)
	if got := strings.Join(l[len(l)-3:], "|"); got != "cairn> 日本語テキス|       トと絵文字👍🏽|       ok" {
		t.Fatalf("rows: %q", got)
	}
	p.Send(t, "\r")
	await(t, ch)
}

// Pasted text keeps its bytes: tabs stay tabs (a Makefile's recipe, a
// diff of Go code) and line feeds stay line feeds. A tab typed by hand is
// a tab too, drawn to the next stop of four cells.
func TestPTYEditorPasteKeepsTabs(t *testing.T) {
	p := openPTY(t, 24, 80)
	e := openEditor(t, p, nil)
	defer e.Close()
	paste := "\x1b[200~:write Makefile\rall:\r\techo hi\r\x1b[201~"
	if r := readLine(t, p, e, paste, "\r"); r.s != ":write Makefile\nall:\n\techo hi\n" || r.err != nil {
		t.Fatalf("pasted: %q, %v", r.s, r.err)
	}
	diff := "\x1b[200~ func main() {\r-\tprintln(\"a\")\r+\tprintln(\"b\")\r }\x1b[201~"
	if r := readLine(t, p, e, diff, "\r"); r.s != " func main() {\n-\tprintln(\"a\")\n+\tprintln(\"b\")\n }" {
		t.Fatalf("pasted diff: %q", r.s)
	}
	ch := startLine(t, p, e)
	p.Send(t, "a\tb")
	p.ExpectScreen(t, "cairn> a   b")
	p.Send(t, "\r")
	if r := await(t, ch); r.s != "a\tb" {
		t.Fatalf("typed tab: %q", r.s)
	}
}

// A resize in a terminal that rewraps its rows (tmux and most others)
// leaves the line drawn once, at the new width, with no copy of the old
// picture above it; widening again leaves it once too.
func TestPTYEditorResizeReflow(t *testing.T) {
	p := openPTY(t, 30, 100)
	e := openEditor(t, p, nil)
	defer e.Close()
	p.Send(t, "") // nothing: the editor starts on the first row
	var words []string
	for i := range 22 {
		words = append(words, "word"+string(rune('0'+i/10))+string(rune('0'+i%10)))
	}
	text := strings.Join(words, " ")
	ch := startLine(t, p, e)
	p.Send(t, text)
	p.ExpectScreen(t, "word21")
	once := func(what string, wantRows int) {
		t.Helper()
		// The editor's own rows: the prompt, then rows indented under
		// it (a row the terminal rewrapped starts at its left edge).
		rows := p.WaitScreen(t, what, func(rows []string) bool {
			l := textRows(rows)
			if len(l) != wantRows || !strings.HasSuffix(l[len(l)-1], "word21") || !strings.HasPrefix(l[0], "cairn> word00") {
				return false
			}
			for _, r := range l[1:] {
				if !strings.HasPrefix(r, "       word") {
					return false
				}
			}
			return true
		})
		all := strings.Join(rows, "\n")
		if strings.Count(all, "cairn>") != 1 || strings.Count(all, "word00") != 1 || strings.Count(all, "word12") != 1 {
			t.Fatalf("%s: a stale copy is left:\n%s", what, all)
		}
	}
	once("two rows at 100 columns", 2)
	p.ResizeReflow(t, 30, 60)
	once("four rows at 60 columns", 4)
	p.ResizeReflow(t, 30, 100)
	once("two rows at 100 columns again", 2)
	p.ResizeReflow(t, 30, 40)
	once("six rows at 40 columns", 6)
	p.Send(t, "\r")
	if r := await(t, ch); r.s != text {
		t.Fatalf("submitted %q", r.s)
	}
}

// A text taller than the window shows the rows around the cursor; going
// back to a short one leaves nothing of the tall one on the screen.
func TestPTYEditorTallTextLeavesNothing(t *testing.T) {
	p := openPTY(t, 10, 40)
	var lines []string
	for i := range 30 {
		lines = append(lines, "line"+string(rune('a'+i%26)))
	}
	tall := strings.Join(lines, "\n")
	e := openEditor(t, p, []string{tall})
	defer e.Close()
	ch := startLine(t, p, e)
	p.Send(t, "short\x1b[A")
	p.WaitScreen(t, "the end of the tall entry", func(rows []string) bool {
		l := textRows(rows)
		return len(l) == 9 && strings.HasSuffix(l[8], "line"+string(rune('a'+29%26)))
	})
	p.Send(t, "\x1b[B")
	rows := p.WaitScreen(t, "the draft alone", func(rows []string) bool {
		return len(textRows(rows)) == 1
	})
	if got := textRows(rows); got[0] != "cairn> short" {
		t.Fatalf("rows: %q", got)
	}
	p.Send(t, "\r")
	if r := await(t, ch); r.s != "short" {
		t.Fatalf("submitted %q", r.s)
	}
}

// Ctrl-R searches the history backwards as typed; Ctrl-R again finds an
// older entry; Enter sends the entry found; Esc takes it into the line to
// edit; Ctrl-G puts the line back as it was.
func TestPTYEditorReverseSearch(t *testing.T) {
	p := openPTY(t, 24, 80)
	e := openEditor(t, p, []string{"make test", "git status", "go vet ./..."})
	defer e.Close()
	ch := startLine(t, p, e)
	p.Send(t, "\x12st")
	p.ExpectScreen(t, "(reverse-i-search)'st': git status")
	p.Send(t, "\r")
	if r := await(t, ch); r.s != "git status" || r.err != nil {
		t.Fatalf("Ctrl-R st, Enter: %q, %v", r.s, r.err)
	}
	ch = startLine(t, p, e)
	p.Send(t, "\x12st\x12")
	p.ExpectScreen(t, "(reverse-i-search)'st': make test")
	p.Send(t, "\x1b")
	p.WaitScreen(t, "the entry in the line", func(rows []string) bool {
		_, y := p.Cursor()
		return rows[y] == "cairn> make test"
	})
	p.Send(t, "\x05!\r")
	if r := await(t, ch); r.s != "make test!" {
		t.Fatalf("Ctrl-R st Ctrl-R, Esc, End, !: %q", r.s)
	}
	if r := readLine(t, p, e, "draft", "\x12git", "\x07", "\r"); r.s != "draft" {
		t.Fatalf("Ctrl-G: %q", r.s)
	}
	ch = startLine(t, p, e)
	p.Send(t, "\x12nothing")
	p.ExpectScreen(t, "(failed reverse-i-search)'nothing':")
	p.Send(t, "\x03\r")
	if r := await(t, ch); r.s != "" || r.err != nil {
		t.Fatalf("a failed search cancelled: %q, %v", r.s, r.err)
	}
}

// Ctrl-W, Ctrl-U and Ctrl-K kill into a ring; Ctrl-Y yanks the newest
// kill back, Alt+Y right after it the one before.
func TestPTYEditorYank(t *testing.T) {
	p := openPTY(t, 24, 80)
	e := openEditor(t, p, nil)
	defer e.Close()
	if r := readLine(t, p, e, "hello big world", "\x17", "\x17", "\x01", "\x19", "\r"); r.s != "big worldhello " {
		t.Fatalf("Ctrl-W Ctrl-W, Ctrl-A, Ctrl-Y: %q", r.s)
	}
	// The ring outlives a line: the next one yanks from it too.
	if r := readLine(t, p, e, "one", "\x15", "two", "\x15", "\x19", "\x1by", "\r"); r.s != "one" {
		t.Fatalf("Ctrl-U twice, Ctrl-Y, Alt+Y: %q", r.s)
	}
	if r := readLine(t, p, e, "keep this", "\x01", "\x0b", "\x19", "\x19", "\r"); r.s != "keep thiskeep this" {
		t.Fatalf("Ctrl-K, Ctrl-Y twice: %q", r.s)
	}
}

// Ctrl-L clears the screen and draws the line at its top.
func TestPTYEditorClearScreen(t *testing.T) {
	p := openPTY(t, 24, 80)
	e := openEditor(t, p, nil)
	defer e.Close()
	p.TTY.WriteString("earlier output\r\nmore\r\n")
	p.ExpectScreen(t, "more")
	ch := startLine(t, p, e)
	p.Send(t, "abc\x0c")
	rows := p.WaitScreen(t, "the line alone at the top", func(rows []string) bool {
		return len(textRows(rows)) == 1 && rows[0] == "cairn> abc"
	})
	if x, y := p.Cursor(); y != 0 || x != 10 {
		t.Fatalf("cursor at %d,%d:\n%s", x, y, strings.Join(rows, "\n"))
	}
	p.Send(t, "\r")
	if r := await(t, ch); r.s != "abc" {
		t.Fatalf("submitted %q", r.s)
	}
}

// The leader, then e (or Ctrl-E), opens the text in $VISUAL, with the
// terminal as the REPL found it, and takes back what the editor saved; an
// editor that fails leaves the text as it was and says so.
func TestPTYEditorExternalEditor(t *testing.T) {
	dir := t.TempDir()
	script, stty := filepath.Join(dir, "ed"), filepath.Join(dir, "stty")
	// It notes the terminal's mode (handed back cooked), then edits the
	// file: a tab in what it writes stays a tab.
	body := "#!/bin/sh\nstty -a > " + stty + "\nsed -i 's/draft/edited\tline/' \"$1\"\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("VISUAL", script)
	p := openPTY(t, 24, 80)
	e := openEditor(t, p, nil)
	defer e.Close()
	ch := startLine(t, p, e)
	p.Send(t, "a draft")
	p.ExpectScreen(t, "cairn> a draft")
	p.Send(t, "\x18e")
	p.ExpectScreen(t, "cairn> a edited    line")
	p.Send(t, "!\r")
	if r := await(t, ch); r.s != "a edited\tline!" || r.err != nil {
		t.Fatalf("after the editor: %q, %v", r.s, r.err)
	}
	b, err := os.ReadFile(stty)
	if err != nil {
		t.Fatal(err)
	}
	if mode := " " + strings.Join(strings.Fields(string(b)), " ") + " "; !strings.Contains(mode, " icanon ") || !strings.Contains(mode, " echo ") {
		t.Fatalf("the editor ran with the terminal in the mode %s", b)
	}

	t.Setenv("VISUAL", "false")
	ch = startLine(t, p, e)
	p.Send(t, "kept\x18\x05")
	p.ExpectScreen(t, "cairn: false: exit status 1; the text is as it was")
	p.ExpectScreen(t, "cairn> kept")
	p.Send(t, "\r")
	if r := await(t, ch); r.s != "kept" {
		t.Fatalf("after a failed editor: %q", r.s)
	}
}

// A binding of two keys ("esc esc") submits its line on the second key and
// keeps the typed text for the next ReadLine (the text is not used up).
func TestPTYEditorBindTwoKeys(t *testing.T) {
	p := openPTY(t, 24, 80)
	e := openEditor(t, p, nil)
	defer e.Close()
	e.Bind("esc esc", "/rewind")
	if r := readLine(t, p, e, "typed", "\x1b\x1b"); r.s != "/rewind" || r.err != nil || e.Used() || e.Typed() != "typed" {
		t.Fatalf("Esc Esc: %q, %v, used %v, kept %q", r.s, r.err, e.Used(), e.Typed())
	}
	if r := readLine(t, p, e, "!\r"); r.s != "typed!" || !e.Used() {
		t.Fatalf("the text after Esc Esc: %q, used %v", r.s, e.Used())
	}
}

// typedAtWrite is the terminal as the editor draws on it: at each write
// that shows mark, it notes what the editor's Typed said then.
type typedAtWrite struct {
	*os.File
	e    *Editor
	mark string
	mu   sync.Mutex
	seen []string
}

func (w *typedAtWrite) Write(b []byte) (int, error) {
	if strings.Contains(string(b), w.mark) {
		typed := w.e.Typed()
		w.mu.Lock()
		w.seen = append(w.seen, typed)
		w.mu.Unlock()
	}
	return w.File.Write(b)
}

// Once the screen shows a key, Typed has it: a SIGTERM that comes when a
// person (or a test) saw the key keeps it in the draft. Typed used to be
// set after the line was drawn, so a signal in between lost the last key.
func TestPTYEditorTypedBeforeTheScreen(t *testing.T) {
	p := openPTY(t, 24, 80)
	w := &typedAtWrite{File: p.TTY, mark: "again"}
	e := NewEditor(p.openKeys(t), w, nil)
	w.e = e
	defer e.Close()
	ch := startLine(t, p, e)
	p.Send(t, "again")
	p.WaitScreen(t, "again on the screen", func(rows []string) bool {
		_, y := p.Cursor()
		return y < len(rows) && strings.HasPrefix(rows[y], "cairn> again")
	})
	p.Send(t, "\r")
	await(t, ch)
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.seen) == 0 || w.seen[0] != "again" {
		t.Fatalf("Typed when the screen first showed the whole word: %q", w.seen)
	}
}
