package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPTYBackgroundChipsAndEnd: in a terminal, :exec over the threshold
// answers with its receipt and the prompt carries [shell · 1] while the
// job runs; its end is printed above the input line while the person
// waits at the prompt, with what was typed kept, and the chip is dropped.
func TestPTYBackgroundChipsAndEnd(t *testing.T) {
	dir := t.TempDir()
	base := []string{"--home", t.TempDir(), "-C", dir}
	p := openReplPTY(t)
	done := p.runMain(&stateWatch{p: p}, base...)
	p.nextPrompt(t)
	p.Send(t, "start\r")
	p.nextPrompt(t)
	p.Send(t, ":exec --timeout 121 until [ -f gate ]; do sleep 0.05; done\r")
	p.WaitScreen(t, "the chip at the cursor", func(rows []string) bool {
		_, y := p.Cursor()
		return y < len(rows) && strings.HasPrefix(rows[y], "[shell · 1] cairn>")
	})
	p.Send(t, "half typed")
	p.WaitScreen(t, "the typing", func(rows []string) bool {
		_, y := p.Cursor()
		return y < len(rows) && rows[y] == "[shell · 1] cairn> half typed"
	})
	if err := os.WriteFile(filepath.Join(dir, "gate"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	rows := p.WaitScreen(t, "the end above the input line, the chip gone", func(rows []string) bool {
		_, y := p.Cursor()
		return y > 0 && y < len(rows) && rows[y] == "cairn> half typed" && strings.HasPrefix(rows[y-1], "background: shell succeeded: exit 0")
	})
	if strings.Contains(strings.Join(rows, "\n"), "[shell · 1] cairn> half typed") {
		t.Fatalf("the old prompt was left drawn: %q", rows)
	}
	p.Send(t, "\x15\x04") // Ctrl-U, then Ctrl-D on the empty line
	if c := p.awaitExit(t, done); c != 0 {
		t.Fatalf("exit %d", c)
	}
}
