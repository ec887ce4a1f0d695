package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// waitingLabel is the waiting label with its spinner at any frame.
var waitingLabel = regexp.MustCompile(`\[waiting [⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]\] `)

// still is row with the waiting label's spinner at one frame, so that a
// row can be compared whatever frame it was drawn at.
func still(row string) string { return waitingLabel.ReplaceAllString(row, "[waiting ⠋] ") }

// TestPTYBackgroundChipsAndEnd: in a terminal, :exec over the threshold
// answers with its receipt and the prompt carries [shell · 1] and the
// waiting label, its spinner turning, while the job runs; its end is
// printed above the input line while the person waits at the prompt, with
// what was typed kept, and the chip and the label are dropped.
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
		return y < len(rows) && strings.HasPrefix(still(rows[y]), "[shell · 1] [waiting ⠋] cairn>")
	})
	p.Send(t, "half typed")
	first := ""
	p.WaitScreen(t, "the typing, the spinner turning", func(rows []string) bool {
		_, y := p.Cursor()
		if y >= len(rows) || still(rows[y]) != "[shell · 1] [waiting ⠋] cairn> half typed" {
			return false
		}
		if first == "" {
			first = rows[y]
		}
		return rows[y] != first
	})
	if err := os.WriteFile(filepath.Join(dir, "gate"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	rows := p.WaitScreen(t, "the end above the input line, the chip gone", func(rows []string) bool {
		_, y := p.Cursor()
		return y > 0 && y < len(rows) && rows[y] == "cairn> half typed" && strings.HasPrefix(rows[y-1], "background: shell succeeded: exit 0")
	})
	if strings.Contains(still(strings.Join(rows, "\n")), "[shell · 1] [waiting ⠋] cairn> half typed") {
		t.Fatalf("the old prompt was left drawn: %q", rows)
	}
	p.Send(t, "\x15\x04") // Ctrl-U, then Ctrl-D on the empty line
	if c := p.awaitExit(t, done); c != 0 {
		t.Fatalf("exit %d", c)
	}
}

// TestPTYShellModalStopsOneJob: the leader, then k, opens the shell modal
// of the running background jobs; Enter only says which key stops, and
// Ctrl-K stops the selected job alone: its owner gets a cancelled result
// above the input line, the chip counts one job, and the shell history
// has that line cancelled while the other still runs.
func TestPTYShellModalStopsOneJob(t *testing.T) {
	dir := t.TempDir()
	base := []string{"--home", t.TempDir(), "-C", dir}
	p := openReplPTY(t)
	done := p.runMain(&stateWatch{p: p}, base...)
	p.nextPrompt(t)
	p.Send(t, "start\r")
	p.nextPrompt(t)
	p.Send(t, ":exec --timeout 600 sleep 600\r")
	p.ExpectScreen(t, "[shell · 1] [waiting ")
	p.Send(t, ":exec --timeout 601 sleep 601\r")
	p.ExpectScreen(t, "[shell · 2] [waiting ")
	p.Send(t, "\x18k") // Ctrl-X, then k
	p.WaitScreen(t, "the modal, oldest first", func(rows []string) bool {
		s := strings.Join(rows, "\n")
		return strings.Contains(s, "Running background shell jobs") && strings.Contains(s, "Ctrl-K stop it") &&
			strings.Contains(s, "> sleep 600") && strings.Contains(s, "  sleep 601")
	})
	p.Send(t, "\x1b[B\r") // Down, then Enter
	p.WaitScreen(t, "the second selected, Enter a hint", func(rows []string) bool {
		s := strings.Join(rows, "\n")
		return strings.Contains(s, "> sleep 601") && strings.Contains(s, "Ctrl-K stops the selected command")
	})
	p.Send(t, "\x0b") // Ctrl-K
	p.WaitScreen(t, "the second job's end above the input line, one chip left", func(rows []string) bool {
		_, y := p.Cursor()
		s := strings.Join(rows, "\n")
		return y < len(rows) && strings.HasPrefix(still(rows[y]), "[shell · 1] [waiting ⠋] cairn>") &&
			strings.Contains(s, "shell-2 cancelling; its end is reported here.") && strings.Contains(s, "background: shell-2 cancelled")
	})
	p.Send(t, "/shells\r")
	var hist []string
	p.WaitScreen(t, "the shell history", func(rows []string) bool {
		hist = hist[:0]
		for _, r := range rows {
			if strings.HasSuffix(r, "sleep 600") || strings.HasSuffix(r, "sleep 601") {
				if !strings.Contains(r, ":exec") {
					hist = append(hist, r)
				}
			}
		}
		return len(hist) == 2
	})
	if !strings.Contains(hist[0], "running") || !strings.Contains(hist[1], "cancelled") {
		t.Fatalf("shell history %q", hist)
	}
	// Ctrl-D only once the editor reads again: typed while the terminal
	// is cooked, it would be taken by the terminal as an end of input.
	p.WaitScreen(t, "the prompt after the history", func(rows []string) bool {
		_, y := p.Cursor()
		return y < len(rows) && strings.HasPrefix(still(rows[y]), "[shell · 1] [waiting ⠋] cairn>") && !strings.Contains(rows[y], "/shells")
	})
	p.Send(t, "\x04")
	if c := p.awaitExit(t, done); c != 0 {
		t.Fatalf("exit %d", c)
	}
}
