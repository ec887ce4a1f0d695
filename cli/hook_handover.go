package cli

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"

	"cairn/engine"
)

// The hook program, cmd/cairn-hook: `cairn-hook claude-code` is `cairn
// hook claude-code` (the same grammar, flags, answers and exit codes: one
// implementation, this package's), in a program that links no cloud
// remote's SDK, whose package init would cost every tool call tens of
// milliseconds (engine/remotes). When the state folder's default remote
// is a cloud one, a session's open must check its lease there, which the
// hook program cannot: before it reads the event it hands the whole run
// to the cairn command beside it (HandOver), so one owner per session
// across machines holds. Where that cannot be done, the hook records
// nothing and says why, as every hook failure does.

// HookProcess runs the hook program as this process's command, and
// returns its exit code. handOver runs the same hook in the cairn command
// (returning only when it could not).
func HookProcess(handOver func(engine.Remote) error) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return HookMain(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, handOver)
}

// HookMain runs the hook program with args (`cairn hook`'s arguments
// after "hook") and returns its exit code.
func HookMain(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, handOver func(engine.Remote) error) int {
	c := &hookCLI{}
	c.Globals.HandOver = handOver
	return mainGrammar(ctx, c, &c.Globals, append([]string{"hook"}, args...), stdin, stdout, stderr, nil)
}

// handOverUnchecked hands the run over (g.handOver) when the session's
// lease could not be checked here; nil when it can be, or when this is the
// cairn command (no handOver). Nothing of stdin is read before.
func (g *Globals) handOverUnchecked() error {
	if g.HandOver == nil {
		return nil
	}
	st, err := g.Open()
	if err != nil {
		return nil // the event's own open says why
	}
	r, ok := st.LeaseUnchecked()
	if !ok {
		return nil
	}
	// The store is closed first: the cairn command opens it again.
	st.Close()
	g.Store = nil
	err = g.HandOver(r)
	kind := r.URL
	if u, perr := url.Parse(r.URL); perr == nil {
		kind = u.Scheme
	}
	return fmt.Errorf("the sessions' leases are kept on remote %s (%s), which this hook program cannot open, and it could not hand the event to the cairn command: %w", r.Name, kind, err)
}
