package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// The picker tests drive `cairn --resume` on a pseudo-terminal (pty_test.go
// has the helpers): what the picker draws, and what a key press resumes.

// resumeByTyping runs the picker over base's sessions, types filter, and
// presses Enter; it returns what was resumed, as the REPL says it.
func resumeByTyping(t *testing.T, base []string, first, filter, want string) {
	t.Helper()
	p := openReplPTY(t)
	done := p.runMain(&stateWatch{p: p}, append(base, "--resume")...)
	p.Expect(t, first)
	p.Send(t, filter)
	p.ExpectScreen(t, "filter: "+filter)
	p.Send(t, "\r")
	p.Expect(t, fmt.Sprintf("Resumed %q", want))
	p.nextPrompt(t)
	p.Send(t, "\x04")
	if c := p.awaitExit(t, done); c != 0 {
		t.Fatalf("exit %d", c)
	}
}

// Typing a filter selects its top match: Enter resumes "deploy script",
// not the newest session, which was selected before and still matches
// "deploy" loosely (d-e-p-l-o-y in "draft: explain policy log").
func TestPTYPickerFilterSelectsTopMatch(t *testing.T) {
	base := []string{"--home", t.TempDir(), "-C", t.TempDir()}
	for _, s := range []string{"deploy script", "docs: explain the picker", "draft: explain policy log"} {
		plumb(t, append(base, "prompt", "--new", s)...)
	}
	resumeByTyping(t, base, "draft: explain policy log", "deploy", "deploy script")
}

// The exact title ranks first: "title 2" resumes "title 2", not "title 29"
// or a session whose id holds a 2.
func TestPTYPickerExactTitleFirst(t *testing.T) {
	base := []string{"--home", t.TempDir(), "-C", t.TempDir()}
	for i := 1; i <= 30; i++ {
		plumb(t, append(base, "prompt", "--new", fmt.Sprintf("title %d", i))...)
	}
	resumeByTyping(t, base, "title 30", "title 2", "title 2")
}

// sessionID is the id of base's session titled title.
func sessionID(t *testing.T, base []string, title string) string {
	t.Helper()
	for _, s := range listSessions(t, base) {
		if s.Title == title {
			return s.ID
		}
	}
	t.Fatalf("no session %q in %+v", title, listSessions(t, base))
	return ""
}

// leave ends the REPL at its next prompt with Ctrl-D and checks it exits 0.
func (p *replPTY) leave(t *testing.T, done <-chan int) {
	t.Helper()
	p.nextPrompt(t)
	p.Send(t, "\x04")
	if c := p.awaitExit(t, done); c != 0 {
		t.Fatalf("exit %d", c)
	}
}

// screenHas reports whether a row of rows contains s.
func screenHas(rows []string, s string) bool {
	return slices.ContainsFunc(rows, func(r string) bool { return strings.Contains(r, s) })
}

// At 40 columns the picker keeps the title: a header row, titles of at
// least 18 cells (CJK ones cut by cells), ages lined up under AGE, and the
// id left out; below the list, the selected session's preview.
func TestPTYPickerNarrow(t *testing.T) {
	base := []string{"--home", t.TempDir(), "-C", t.TempDir()}
	for _, s := range []string{"修复解析器的长行问题，并且增加测试", "deploy the build", "日本語のタイトルです、長いタイトル"} {
		plumb(t, append(base, "prompt", "--new", s)...)
	}
	p := openReplPTYSize(t, 30, 40)
	done := p.runMain(&stateWatch{p: p}, append(base, "--resume")...)
	screen := p.WaitScreen(t, "the picker and its preview", func(s []string) bool {
		return screenHas(s, "── preview") && screenHas(s, "> 日本語")
	})
	head := slices.IndexFunc(screen, func(r string) bool { return strings.HasPrefix(r, "  TITLE") })
	if head < 0 || strings.Contains(screen[head], " ID") {
		t.Fatalf("no header, or an id column at 40 columns:\n%s", strings.Join(screen, "\n"))
	}
	age := ansi.StringWidth(screen[head][:strings.Index(screen[head], "AGE")])
	if age-2 < 18 {
		t.Fatalf("a title column of %d cells:\n%s", age-2, strings.Join(screen, "\n"))
	}
	for _, r := range screen[head+1 : head+4] {
		i := strings.IndexAny(r, "0123456789")
		if i < 0 || ansi.StringWidth(r[:i]) != age || ansi.StringWidth(r) > 39 {
			t.Fatalf("a row not lined up under AGE:\n%s\n%s", screen[head], r)
		}
	}
	for _, title := range []string{"日本語のタイトル", "deploy the build", "修复解析器的长"} {
		if !screenHas(screen, title) {
			t.Fatalf("title %q not shown:\n%s", title, strings.Join(screen, "\n"))
		}
	}
	p.Send(t, "\x1b")
	if c := p.awaitExit(t, done); c != 0 {
		t.Fatalf("exit %d", c)
	}
}

// The preview beside the list: the selected session's last prompt and
// answer and the files it changed; moving the selection changes it.
func TestPTYPickerPreview(t *testing.T) {
	dir := t.TempDir()
	base := []string{"--home", t.TempDir(), "-C", dir}
	plumb(t, append(base, "prompt", "--new", "write the notes")...)
	plumb(t, append(base, "append", "--session", "write the notes", "--type", "assistant", "wrote notes.txt with the plan")...)
	if code := Main(context.Background(), append(base, "tool", "--session", "write the notes", "write", "notes.txt"), strings.NewReader("plan\n"), &bytes.Buffer{}, &bytes.Buffer{}); code != 0 {
		t.Fatalf("tool write: exit %d", code)
	}
	plumb(t, append(base, "prompt", "--new", "something else")...)
	p := openReplPTYSize(t, 30, 120)
	done := p.runMain(&stateWatch{p: p}, append(base, "--resume")...)
	p.WaitScreen(t, "the newest session's preview", func(s []string) bool { return screenHas(s, "│ > something else") })
	p.Send(t, "\x1b[B")
	screen := p.WaitScreen(t, "the preview of the other session", func(s []string) bool {
		return screenHas(s, "│ > write the notes") && screenHas(s, "│   wrote notes.txt with the plan") &&
			screenHas(s, "│ files changed (1):") && screenHas(s, "│   notes.txt")
	})
	if !strings.Contains(screen[1], "TITLE") || !strings.Contains(screen[1], "│ PREVIEW") {
		t.Fatalf("header %q", screen[1])
	}
	p.Send(t, "\x1b")
	if c := p.awaitExit(t, done); c != 0 {
		t.Fatalf("exit %d", c)
	}
}

// Ctrl-R in the picker renames the selected session, as `cairn rename`
// does; the picker stays open on it.
func TestPTYPickerRename(t *testing.T) {
	base := []string{"--home", t.TempDir(), "-C", t.TempDir()}
	for _, s := range []string{"old name", "newest"} {
		plumb(t, append(base, "prompt", "--new", s)...)
	}
	p := openReplPTY(t)
	done := p.runMain(&stateWatch{p: p}, append(base, "--resume")...)
	p.Expect(t, "newest")
	p.Send(t, "\x1b[B\x12") // Down, Ctrl-R
	p.ExpectScreen(t, "rename (Enter saves, Esc cancels): old name")
	p.Send(t, "\x15修正 ✓ plan\r")
	p.ExpectScreen(t, "2 of 2: renamed")
	p.ExpectScreen(t, "> 修正 ✓ plan")
	p.Send(t, "\r")
	p.Expect(t, `Resumed "修正 ✓ plan"`)
	p.leave(t, done)
	if l := listSessions(t, base); !slices.ContainsFunc(l, func(s ptySession) bool { return s.Title == "修正 ✓ plan" }) {
		t.Fatalf("sessions after the rename: %+v", l)
	}
}

// --resume --all lists every directory's sessions, each with its
// directory; the chosen session of another directory is resumed there.
// Ctrl-A switches the listing back and forth.
func TestPTYPickerEveryDirectory(t *testing.T) {
	home, here, there := t.TempDir(), t.TempDir(), t.TempDir()
	plumb(t, "--home", home, "-C", here, "prompt", "--new", "work here")
	plumb(t, "--home", home, "-C", there, "prompt", "--new", "work there")
	p := openReplPTYSize(t, 30, 120)
	done := p.runMain(&stateWatch{p: p}, "--home", home, "-C", here, "--resume")
	p.ExpectScreen(t, "work here")
	if screenHas(p.Screen(), "work there") {
		t.Fatal("another directory's session listed without --all")
	}
	p.Send(t, "\x01") // Ctrl-A
	screen := p.WaitScreen(t, "every directory", func(s []string) bool {
		return screenHas(s, "in every directory") && screenHas(s, "work there") && screenHas(s, "DIRECTORY")
	})
	if !screenHas(screen, filepath.Base(there)) {
		t.Fatalf("the directory is not shown:\n%s", strings.Join(screen, "\n"))
	}
	p.Send(t, "\x01")
	p.WaitScreen(t, "this directory again", func(s []string) bool { return !screenHas(s, "work there") && screenHas(s, "1 of 1") })
	p.Send(t, "\x1b")
	if c := p.awaitExit(t, done); c != 0 {
		t.Fatalf("exit %d", c)
	}

	done = p.runMain(&stateWatch{p: p}, "--home", home, "-C", here, "--resume", "--all")
	p.ExpectScreen(t, "in every directory")
	p.Send(t, "there")
	p.ExpectScreen(t, "filter: there")
	p.Send(t, "\r")
	p.Expect(t, `Resumed "work there"`)
	p.nextPrompt(t)
	p.Send(t, "more there\r")
	p.leave(t, done)
	id := sessionID(t, []string{"--home", home, "-C", there}, "work there")
	if got := transcriptTexts(t, []string{"--home", home, "-C", there}, id); !slices.Equal(got, []string{"work there", "more there"}) {
		t.Fatalf("the session of the other directory: %q", got)
	}
}

// A fork is listed right under the session it was forked from, indented,
// and, as the newest session, selected.
func TestPTYPickerForksUnderParent(t *testing.T) {
	base := []string{"--home", t.TempDir(), "-C", t.TempDir()}
	for _, s := range []string{"parent work", "other work"} {
		plumb(t, append(base, "prompt", "--new", s)...)
	}
	plumb(t, append(base, "fork", "parent work")...)
	p := openReplPTY(t)
	done := p.runMain(&stateWatch{p: p}, append(base, "--resume")...)
	// The whole frame, footer included, before its rows are read.
	screen := p.WaitScreen(t, "the picker with the fork", func(s []string) bool {
		return screenHas(s, "(fork #1)") && screenHas(s, "other work") && screenHas(s, " of 3")
	})
	i := slices.IndexFunc(screen, func(r string) bool { return strings.Contains(r, "parent work") })
	if i < 0 || !strings.HasPrefix(screen[i+1], "> └ parent work (fork #1)") || !strings.Contains(screen[i+2], "other work") {
		t.Fatalf("the fork is not under its parent:\n%s", strings.Join(screen, "\n"))
	}
	p.Send(t, "\r")
	p.Expect(t, `Resumed "parent work (fork #1)"`)
	p.nextPrompt(t)
	p.cursorRow(t, "cairn> parent work") // a fork at a prompt hands it back
	p.Send(t, "\x15\x04")                // Ctrl-U, Ctrl-D
	if c := p.awaitExit(t, done); c != 0 {
		t.Fatalf("exit %d", c)
	}
}

// --resume NAME that names several sessions opens the picker on just
// those; NAME that names one resumes it.
func TestPTYResumeAmbiguous(t *testing.T) {
	base := []string{"--home", t.TempDir(), "-C", t.TempDir()}
	for _, s := range []string{"same title", "another", "same title"} {
		plumb(t, append(base, "prompt", "--new", s)...)
	}
	p := openReplPTY(t)
	done := p.runMain(&stateWatch{p: p}, append(base, "-r", "same title")...)
	screen := p.WaitScreen(t, "the picker on the two", func(s []string) bool { return screenHas(s, "1 of 2") })
	if !screenHas(screen, `2 sessions match "same title"; choose one:`) || screenHas(screen, "another") {
		t.Fatalf("not the two sessions named:\n%s", strings.Join(screen, "\n"))
	}
	p.Send(t, "\x1b[B\r")
	p.Expect(t, `Resumed "same title"`)
	p.leave(t, done)

	done = p.runMain(&stateWatch{p: p}, append(base, "-r", "another")...)
	p.Expect(t, `Resumed "another"`)
	p.leave(t, done)
}

// /resume inside the REPL switches to the chosen session: the current one
// is closed and stays resumable, and prompts go to the new one.
func TestPTYResumeCommand(t *testing.T) {
	base := []string{"--home", t.TempDir(), "-C", t.TempDir()}
	plumb(t, append(base, "prompt", "--new", "earlier work")...)
	p := openReplPTY(t)
	done := p.runMain(&stateWatch{p: p}, base...)
	p.nextPrompt(t)
	p.Send(t, "current work\r")
	p.nextPrompt(t)
	p.Send(t, "/resume\r")
	p.WaitScreen(t, "the picker with this session marked", func(s []string) bool {
		return screenHas(s, "current work") && screenHas(s, "this session") && screenHas(s, "earlier work")
	})
	p.Send(t, "earlier\r")
	p.Expect(t, "The previous session stays resumable: cairn --resume ")
	p.Expect(t, `Resumed "earlier work"`)
	p.nextPrompt(t)
	p.Send(t, "more earlier work\r")
	p.nextPrompt(t)
	// /resume of the session open here says so and goes on.
	p.Send(t, "/resume earlier work\r")
	p.Expect(t, "That is this session; it goes on.")
	p.leave(t, done)
	if got := transcriptTexts(t, base, sessionID(t, base, "earlier work")); !slices.Equal(got, []string{"earlier work", "more earlier work"}) {
		t.Fatalf("earlier work: %q", got)
	}
	if got := transcriptTexts(t, base, sessionID(t, base, "current work")); !slices.Equal(got, []string{"current work"}) {
		t.Fatalf("current work: %q", got)
	}
}

// Ctrl-C in the picker leaves it as SIGINT would: exit 130, the picture
// wiped, nothing resumed.
func TestPTYPickerCtrlC(t *testing.T) {
	base := []string{"--home", t.TempDir(), "-C", t.TempDir()}
	plumb(t, append(base, "prompt", "--new", "one")...)
	p := openReplPTY(t)
	cooked := p.State(t)
	w := &stateWatch{p: p}
	done := p.runMain(w, append(base, "--resume")...)
	p.ExpectScreen(t, "1 of 1")
	p.Send(t, "\x03")
	if c := p.awaitExit(t, done); c != 130 {
		t.Fatalf("exit %d, want 130", c)
	}
	p.WaitScreen(t, "the picker wiped", func(s []string) bool { return !screenHas(s, "filter:") && !screenHas(s, "1 of 1") })
	if len(w.states) != 0 {
		t.Fatal("a resume line")
	}
	if !reflect.DeepEqual(p.State(t), cooked) {
		t.Fatal("terminal mode not restored")
	}
}

// --resume where there is nothing to resume says how to start a session.
func TestResumeNoSessions(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"--home", t.TempDir(), "-C", dir, "--resume"}, strings.NewReader(""), &out, &errb)
	if code != ExitFailed || !strings.Contains(errb.String(), "no sessions in "+dir+" yet; run cairn without --resume to start one") {
		t.Fatalf("exit %d: %q", code, errb.String())
	}
}

// Shell completion offers this directory's session ids and titles (quoted
// for the shell) after -r, --resume and resume, and the REPL's flags
// before any command word.
func TestCompletionOfSessions(t *testing.T) {
	dir := t.TempDir()
	home := t.TempDir()
	plumb(t, "--home", home, "-C", dir, "prompt", "--new", "deploy script")
	plumb(t, "--home", home, "-C", dir, "prompt", "--new", "docs: explain (it)")
	id := sessionID(t, []string{"--home", home, "-C", dir}, "deploy script")
	t.Setenv("CAIRN_HOME", home)
	t.Chdir(dir)
	complete := func(line string) []string {
		t.Helper()
		t.Setenv("COMP_LINE", line)
		t.Setenv("COMP_POINT", strconv.Itoa(len(line)))
		var out, errb bytes.Buffer
		if code := Main(context.Background(), nil, strings.NewReader(""), &out, &errb); code != 0 {
			t.Fatalf("%q: exit %d: %s", line, code, errb.String())
		}
		got := strings.Fields(strings.ReplaceAll(out.String(), `\ `, "\x00"))
		for i := range got {
			got[i] = strings.ReplaceAll(got[i], "\x00", `\ `)
		}
		slices.Sort(got)
		return got
	}
	for _, line := range []string{"cairn -r ", "cairn --resume ", "cairn resume "} {
		got := complete(line)
		for _, w := range []string{id, `deploy\ script`, `docs:\ explain\ \(it\)`} {
			if !slices.Contains(got, w) {
				t.Fatalf("%q: %q lacks %q", line, got, w)
			}
		}
	}
	if got := complete("cairn -r dep"); !slices.Equal(got, []string{`deploy\ script`}) {
		t.Fatalf("-r dep: %q", got)
	}
	if got := complete("cairn --res"); !slices.Contains(got, "--resume") {
		t.Fatalf("--res: %q", got)
	}
}

// SIGTERM while the picker is open wipes it from the screen, as Esc does,
// before cairn leaves.
func TestProcessSignalWipesPicker(t *testing.T) {
	e := newProcEnv(t)
	e.mustRun(t, "prompt", "--new", "a session title")
	p := openReplPTY(t)
	cmd := e.command("--resume")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = p.TTY, p.TTY, p.TTY
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	p.WaitScreen(t, "the picker, the terminal raw", func(rows []string) bool {
		return screenHas(rows, "a session title") && screenHas(rows, "1 of 1") && p.raw(t)
	})
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitProcess(t, cmd)
	if _, err := p.TTY.WriteString("<end>"); err != nil {
		t.Fatal(err)
	}
	p.WaitSuffix(t, "<end>")
	if s := p.Screen(); screenHas(s, "filter:") || screenHas(s, "a session title") {
		t.Fatalf("the picker left on the screen:\n%s", strings.Join(s, "\n"))
	}
}

// Typed on the terminal with the output sent to a file, `cairn --resume`
// does not draw its picker into the file and wait on a blank screen: it
// refuses, saying how to resume by name, and writes nothing to the file.
func TestPTYPickerRefusesRedirectedOutput(t *testing.T) {
	base := []string{"--home", t.TempDir(), "-C", t.TempDir()}
	plumb(t, append(base, "prompt", "--new", "one session")...)
	p := openReplPTY(t)
	out, err := os.Create(filepath.Join(t.TempDir(), "out.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	var errb bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- Main(context.Background(), append(base, "--resume"), p.TTY, out, &errb) }()
	if c := p.awaitExit(t, done); c != ExitUsage {
		t.Fatalf("exit %d, want %d; stderr %q", c, ExitUsage, errb.String())
	}
	if !strings.Contains(errb.String(), "cairn --resume ID") {
		t.Errorf("stderr %q does not say how to resume by name", errb.String())
	}
	if b, _ := os.ReadFile(out.Name()); len(b) != 0 {
		t.Errorf("the file got %q", b)
	}
}
