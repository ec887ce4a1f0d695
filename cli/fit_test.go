package cli

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/clipperhouse/displaywidth"
)

// fitText never makes a row wider than the room (but for a word wider than
// it alone), keeps every word in order, and leaves a line that fits as it
// is.
func TestFitText(t *testing.T) {
	words := []string{"a", "word", "longer-word", "日本語", "/revert", "ITEM", "[conversation|files|both]", "8.5", "KB", "—"}
	r := rand.New(rand.NewPCG(5, 6))
	for round := range 500 {
		var b strings.Builder
		b.WriteString(strings.Repeat(" ", r.IntN(6)))
		for i := range 1 + r.IntN(30) {
			if i > 0 {
				b.WriteString(strings.Repeat(" ", 1+r.IntN(3)))
			}
			b.WriteString(words[r.IntN(len(words))])
		}
		line := b.String()
		width := 10 + r.IntN(100)
		got := fitText(line+"\n", width)
		if displaywidth.String(line) < width {
			if got != line+"\n" {
				t.Fatalf("round %d: a line that fits was changed: %q -> %q", round, line, got)
			}
			continue
		}
		for _, row := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
			if w := displaywidth.String(row); w > width-1 && len(strings.Fields(row)) > 1 {
				t.Fatalf("round %d: row of %d cells at width %d: %q", round, w, width, row)
			}
		}
		if strings.Join(strings.Fields(got), " ") != strings.Join(strings.Fields(line), " ") {
			t.Fatalf("round %d: words changed: %q -> %q", round, line, got)
		}
	}
	if got := fitText("  /rename NAME   rename this session\n", 30); got != "  /rename NAME\n      rename this session\n" {
		t.Fatalf("a narrow window stacks the columns: %q", got)
	}
	if got := fitText("plain", 0); got != "plain" {
		t.Fatalf("width 0: %q", got)
	}
}

// Every command the refusal of an unknown one names has its line in /help,
// and /help lists no command that refusal leaves out.
func TestHelpListsEveryCommand(t *testing.T) {
	names := func(s string) map[string]bool {
		out := map[string]bool{}
		for _, w := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' }) {
			if strings.ContainsAny(w[:1], "/:!") {
				out[w] = true
			}
		}
		return out
	}
	listed := names(commandList())
	helped := map[string]bool{}
	for _, e := range helpEntries() {
		for n := range names(e[0]) {
			helped[n] = true
			if !listed[n] {
				t.Errorf("/help has %s, the list of commands does not", n)
			}
		}
	}
	for n := range listed {
		if !helped[n] {
			t.Errorf("the list of commands has %s, /help does not", n)
		}
	}
	if !listed["/resume"] || !listed["/rewind"] {
		t.Errorf("the list of commands misses /resume or /rewind: %s", commandList())
	}
	help := helpText(0, "Ctrl-X")
	for _, want := range []string{"/resume [NAME]", "/rewind", "(Esc Esc)"} {
		if !strings.Contains(help, want) {
			t.Errorf("/help does not say %q:\n%s", want, help)
		}
	}
}
