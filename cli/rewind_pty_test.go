package cli

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// esc is the Esc key as a terminal that reports keys unambiguously sends
// it; two of them are Esc Esc.
const esc = "\x1b[27u"

// Esc Esc opens the rewind picker over the head path's prompts, newest
// first; choosing one moves the head to just before it, hands the prompt
// back in the input line, and leaves it in the session (transcript --all).
func TestPTYRewind(t *testing.T) {
	base := []string{"--home", t.TempDir(), "-C", t.TempDir()}
	p := openReplPTY(t)
	done := p.runMain(&stateWatch{p: p}, base...)
	for _, s := range []string{"one", "two", "three"} {
		p.nextPrompt(t)
		p.Send(t, s+"\r")
	}
	p.nextPrompt(t)
	p.Send(t, "typed"+esc+esc)
	screen := p.WaitScreen(t, "the rewind picker", func(s []string) bool { return screenHas(s, "1 of 3") })
	var order []string
	for _, r := range screen {
		for _, w := range []string{"one", "two", "three"} {
			if strings.HasPrefix(strings.TrimPrefix(strings.TrimPrefix(r, "> "), "  "), w+" ") {
				order = append(order, w)
			}
		}
	}
	if !slices.Equal(order, []string{"three", "two", "one"}) || !screenHas(screen, "PROMPT") {
		t.Fatalf("prompts %q, newest first wanted:\n%s", order, strings.Join(screen, "\n"))
	}
	p.Send(t, "\x1b[B\r") // two
	p.Expect(t, "Went back to before item 2")
	p.nextPrompt(t)
	p.cursorRow(t, "cairn> two")
	p.Send(t, " again\r")
	p.nextPrompt(t)
	// The text being typed when Esc Esc came is one Up away.
	p.Send(t, "\x1b[A")
	p.cursorRow(t, "cairn> two again")
	p.Send(t, "\x1b[A")
	p.cursorRow(t, "cairn> typed")
	p.Send(t, "\x15\x04")
	if c := p.awaitExit(t, done); c != 0 {
		t.Fatalf("exit %d", c)
	}
	l := listSessions(t, base)
	if len(l) != 1 {
		t.Fatalf("sessions %+v", l)
	}
	if got := transcriptTexts(t, base, l[0].ID); !slices.Equal(got, []string{"one", "two again"}) {
		t.Fatalf("head path %q", got)
	}
	var all []struct{ Text string }
	if err := json.Unmarshal([]byte(plumb(t, append(base, "transcript", "--all", "--json", l[0].ID)...)), &all); err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, it := range all {
		texts = append(texts, it.Text)
	}
	if !slices.Equal(texts, []string{"one", "two", "three", "two again"}) {
		t.Fatalf("every item: %q", texts)
	}

	// Esc leaves the rewind picker: nothing moves, the typed text stays.
	done = p.runMain(&stateWatch{p: p}, append(base, "--continue")...)
	p.prompts = 0
	p.WaitScreen(t, "a prompt", func(s []string) bool { return p.raw(t) && screenHas(s, `Resumed "one"`) })
	p.Send(t, "kept"+esc+esc)
	p.WaitScreen(t, "the rewind picker", func(s []string) bool { return screenHas(s, "1 of 2") })
	p.Send(t, "\x1b")
	p.WaitScreen(t, "the text back", func(s []string) bool { return screenHas(s, "cairn> kept") && !screenHas(s, "1 of 2") })
	p.Send(t, "\x15\x04")
	if c := p.awaitExit(t, done); c != 0 {
		t.Fatalf("exit %d", c)
	}
	if got := transcriptTexts(t, base, l[0].ID); !slices.Equal(got, []string{"one", "two again"}) {
		t.Fatalf("head path after Esc: %q", got)
	}
}

// When a task of the session still runs, Esc Esc stops it instead of
// opening the rewind picker.
func TestPTYRewindStopsTasks(t *testing.T) {
	base := []string{"--home", t.TempDir(), "-C", t.TempDir()}
	plumb(t, append(base, "prompt", "--new", "start work")...)
	plumb(t, append(base, "append", "--session", "start work", "--type", "tool_call", "--tool", "task", "research the parser")...)
	id := sessionID(t, base, "start work")
	p := openReplPTY(t)
	done := p.runMain(&stateWatch{p: p}, append(base, "-r", id)...)
	p.nextPrompt(t)
	p.Send(t, esc+esc)
	p.Expect(t, "Stopped 1 running task: research-the-parser")
	p.nextPrompt(t)
	if out := plumb(t, append(base, "tasks", id)...); !strings.Contains(out, "cancelled") {
		t.Fatalf("tasks after Esc Esc: %q", out)
	}
	// Nothing runs now: Esc Esc is the rewind picker.
	p.Send(t, esc+esc)
	p.WaitScreen(t, "the rewind picker", func(s []string) bool { return screenHas(s, "1 of 1") && screenHas(s, "start work") })
	p.Send(t, "\x1b")
	p.leave(t, done)
}
