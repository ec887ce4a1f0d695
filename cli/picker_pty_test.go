package cli

import (
	"fmt"
	"testing"
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
