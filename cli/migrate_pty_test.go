package cli

import (
	"bytes"
	"context"
	"testing"
)

// On a terminal, migrate-sessions says what it will move and asks: "n"
// moves nothing, "y" moves the sessions.
func TestPTYMigrateAsks(t *testing.T) {
	home, from, to := t.TempDir(), t.TempDir(), t.TempDir()
	plumb(t, "--home", home, "-C", from, "prompt", "--new", "to move")
	p := openReplPTY(t)
	run := func() <-chan int {
		ch := make(chan int, 1)
		go func() {
			var errb bytes.Buffer
			ch <- Main(context.Background(), []string{"--home", home, "migrate-sessions", from, to}, p.TTY, p.TTY, &errb)
		}()
		return ch
	}
	done := run()
	p.Expect(t, "Move 1 session saved in ")
	p.Expect(t, "The usage ledger holds nothing for the old directory.")
	p.Expect(t, "Move them? [y/N] ")
	p.Send(t, "n\r")
	p.Expect(t, "Nothing was moved.")
	if c := p.awaitExit(t, done); c != 0 {
		t.Fatalf("exit %d", c)
	}
	if l := listSessions(t, []string{"--home", home, "-C", from}); len(l) != 1 {
		t.Fatalf("a declined move moved: %+v", l)
	}
	done = run()
	p.Expect(t, "Move them? [y/N] ")
	p.Send(t, "y\r")
	p.Expect(t, "Moved 1 session from ")
	if c := p.awaitExit(t, done); c != 0 {
		t.Fatalf("exit %d", c)
	}
	if l := listSessions(t, []string{"--home", home, "-C", to}); len(l) != 1 || l[0].Title != "to move" {
		t.Fatalf("after the move, the destination lists %+v", l)
	}
}
