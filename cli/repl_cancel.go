package cli

import (
	"context"
	"os"
	"os/signal"
)

// Ctrl-C while a line is handled. The terminal is cooked then (the editor
// has handed it back), so Ctrl-C arrives as SIGINT: it cancels the context
// the line's turn or file tool runs with, and the REPL goes on with the next
// prompt. Outside a handled line the editor reads Ctrl-C as a key (it clears
// the text being typed). Without a terminal SIGINT ends the REPL as SIGTERM
// does (cli/repl_signal.go), after it cancels the line under way.

// replInterrupt readies the command's context for the REPL and says whether
// SIGINT ends it. On a terminal the REPL's own context must outlive a
// Ctrl-C: the process's context (Process) is cancelled by the first SIGINT
// for good, and every later line would run cancelled. Without a terminal
// there is no line to go back to: SIGINT cancels the line under way through
// the process's context and ends the REPL.
func replInterrupt(g *Globals) bool {
	if stdinTerminal(g) == nil {
		return true
	}
	g.Ctx = context.WithoutCancel(g.Ctx)
	return false
}

// replTurnHook, when set (only by tests), becomes the turnHook of the REPL
// that RunCmd starts.
var replTurnHook func(ctx context.Context, text string) error

// lineContext is the context one handled line runs with, cancelled by
// Ctrl-C on a terminal; stop ends the cancelling.
func (r *repl) lineContext() (ctx context.Context, stop context.CancelFunc) {
	if r.ed == nil {
		return context.WithCancel(r.g.Ctx)
	}
	return signal.NotifyContext(r.g.Ctx, os.Interrupt)
}
