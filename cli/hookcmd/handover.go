package hookcmd

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"strings"

	"github.com/alecthomas/kong"

	"cairn/cli/cmdbase"
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

// CLI is the hook command's grammar: the Globals and the HookCmd of
// cairn's whole grammar (package cli's CLI), with the same tags, and
// nothing else (cli TestHookProgramAnswersAsCLI).
type CLI struct {
	cmdbase.Globals
	Hook HookCmd `cmd:"" help:"Use cairn under Claude Code or Codex: install its hooks, or run one (the agent runs it)."`
}

// Examples are the hook commands' example lines, by their path, shown in
// their help (package cli shows them too).
var Examples = map[string][]string{
	"hook install":     {"cairn hook install claude-code", "cairn hook install codex", "cairn hook install claude-code --user"},
	"hook uninstall":   {"cairn hook uninstall claude-code"},
	"hook claude-code": {"cairn hook claude-code < event.json"},
	"hook codex":       {"cairn hook codex < event.json"},
}

// Process runs the hook program as this process's command, and returns
// its exit code. handOver runs the same hook in the cairn command
// (returning only when it could not).
func Process(handOver func(engine.Remote) error) int {
	ctx, stop := processContext(os.Args[1:])
	defer stop()
	return Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, handOver)
}

// processContext is the context of the hook program's run of args (its
// arguments), and what ends it. A person's command line (hook install,
// help, a typo) is cancelled by SIGINT, Ctrl-C, as cairn's are. An
// agent's hook event, one of the command lines its entries run (fast.go),
// watches for no signal: an agent runs its hooks with no terminal of
// theirs to press Ctrl-C in, and one it gives up on it kills, which no
// handler sees; a hook stopped mid-event leaves what the next one
// recovers as from any stopped owner. Watching (os/signal) would cost
// every hook process a thread and two goroutines: about 40 of an edit
// hook's 470 page faults.
func processContext(args []string) (context.Context, context.CancelFunc) {
	if !watchesSIGINT(args) {
		return context.WithCancel(context.Background())
	}
	return signal.NotifyContext(context.Background(), os.Interrupt)
}

// watchesSIGINT reports whether the hook program's run of args is
// cancelled by SIGINT: every command line but an agent's hook event.
func watchesSIGINT(args []string) bool {
	return !AgentEvent(append([]string{"hook"}, args...))
}

// Main runs the hook program with args (`cairn hook`'s arguments after
// "hook") and returns its exit code.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, handOver func(engine.Remote) error) int {
	c := &CLI{}
	c.HandOver = handOver
	return cmdbase.Main(ctx, Command(c, &c.Globals), append([]string{"hook"}, args...), stdin, stdout, stderr)
}

// Command is what the hook command adds to cmdbase.Main for a grammar
// (CLI, or package cli's small grammar of the same fields) whose Globals
// are g: its examples, kong's own help, its checks, and the command
// lines it runs without kong (fast.go).
func Command(grammar any, g *cmdbase.Globals) cmdbase.Command {
	return cmdbase.Command{
		Grammar:  grammar,
		G:        g,
		Examples: func(path string) []string { return Examples[path] },
		Options:  []kong.Option{kong.Help(kong.DefaultHelpPrinter)},
		Check: func(kctx *kong.Context) error {
			g.StateCmd = StateCommand(kctx.Command())
			return cmdbase.RefuseSSH(g, "hook")
		},
		// The lines the agents' hook entries run, without kong (fast.go).
		Fast: func(args []string) func() error { return fast(g, args) },
	}
}

// StateCommand reports whether the hook command kong chose is about the
// state folder itself, never in an ephemeral root: `hook install` and
// `hook uninstall` are, since what install notes for uninstall
// (Store.HookKept) must outlive the run.
func StateCommand(cmd string) bool {
	return strings.HasPrefix(cmd, "hook install") || strings.HasPrefix(cmd, "hook uninstall")
}

// handOverUnchecked hands the run over (g.handOver) when the session's
// lease could not be checked here; nil when it can be, or when this is the
// cairn command (no handOver). Nothing of stdin is read before.
func handOverUnchecked(g *cmdbase.Globals) error {
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
