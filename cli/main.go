package cli

import (
	"context"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/alecthomas/kong"

	"cairn/cli/cmdbase"
	"cairn/cli/display"
	"cairn/cli/hookcmd"
	"cairn/engine"
)

// CLI is the whole command line grammar.
type CLI struct {
	Globals

	Run        RunCmd         `cmd:"" default:"withargs" help:"Run a session in this directory (the line REPL)."`
	Resume     ResumeCmd      `cmd:"" help:"Choose one of this directory's sessions and resume it."`
	Prompt     PromptCmd      `cmd:"" group:"plumbing" help:"Append a user prompt to a session."`
	Append     AppendCmd      `cmd:"" group:"plumbing" help:"Append an assistant, reasoning, tool_call or tool_result item."`
	Sessions   SessionsCmd    `cmd:"" group:"plumbing" help:"List sessions, newest first."`
	Show       ShowCmd        `cmd:"" group:"plumbing" help:"Print a session's record."`
	Transcript TranscriptCmd  `cmd:"" group:"plumbing" help:"Print a session's conversation."`
	Trail      TrailCmd       `cmd:"" group:"plumbing" help:"Print a session's audit trail."`
	Rename     RenameCmd      `cmd:"" group:"plumbing" help:"Rename a session."`
	History    HistoryCmd     `cmd:"" group:"plumbing" help:"Print the prompt history."`
	Fork       ForkCmd        `cmd:"" group:"plumbing" help:"Fork a session at an item."`
	Revert     RevertCmd      `cmd:"" group:"plumbing" help:"Move a session's head back to an item; with --files, undo the file changes recorded since it (a preview unless --apply)."`
	Unrevert   UnrevertCmd    `cmd:"" group:"plumbing" help:"Undo the reverts since the last new work."`
	Compact    CompactCmd     `cmd:"" group:"plumbing" help:"Replace an older stretch by a summary in the request view."`
	Output     OutputCmd      `cmd:"" group:"plumbing" help:"Print a session's stored tool output, search it, or store one (output put)."`
	Attachment AttachmentCmd  `cmd:"" group:"plumbing" help:"Write an item's attachment to stdout, byte for byte (or --list them)."`
	Task       TaskCmd        `cmd:"" group:"plumbing" help:"Print a sub-agent task's transcript (or --cancel a running one)."`
	Tasks      TasksCmd       `cmd:"" group:"plumbing" help:"List a session's tasks and background shell jobs: id, state, counts, label."`
	TaskCtl    TaskControlCmd `cmd:"" name:"task-control" group:"plumbing" help:"Inspect and control a session's background work: list (paged, newest first), status, cancel, background, pause."`
	Message    MessageCmd     `cmd:"" group:"plumbing" help:"Send a message to a live session (experimental.cross_session_messaging)."`
	Shells     ShellsCmd      `cmd:"" group:"plumbing" help:"List a session's shell history (the shell lines it ran), or print what one of them printed."`
	Turn       TurnCmd        `cmd:"" group:"plumbing" help:"End a session's turn: its spend, model, plan and trail labels, durable on return."`
	Where      WhereCmd       `cmd:"" group:"plumbing" help:"Print where this directory's state lives (with --ssh: the remote workspace's identity and generation)."`
	Tool       ToolCmd        `cmd:"" group:"plumbing" help:"Run a file tool (write, edit, rm, patch) or a shell line (exec), snapshotted."`
	Undo       UndoCmd        `cmd:"" group:"plumbing" help:"Restore the files of the newest applied snapshot."`
	Redo       RedoCmd        `cmd:"" group:"plumbing" help:"Put the newest undone edit back."`
	Snapshots  SnapshotsCmd   `cmd:"" group:"plumbing" help:"List a session's snapshots, or restore down to one."`
	Diff       DiffCmd        `cmd:"" group:"plumbing" help:"Show what a tool call, or a whole turn, changed: a unified diff from its change records, with each file's lines added and removed."`
	Storage    StorageCmd     `cmd:"" help:"Inspect and check the state folder."`
	Remote     RemoteCmd      `cmd:"" help:"Add, remove or list the remotes sessions sync with (object storage)."`
	Sync       SyncCmd        `cmd:"" help:"Push this machine's new session bytes to a remote, then pull what other machines pushed."`
	Import     ImportCmd      `cmd:"" help:"Bring Claude Code or Codex sessions into cairn (again: only what is new)."`
	Hook       HookCmd        `cmd:"" help:"Use cairn under Claude Code or Codex: install its hooks, or run one (the agent runs it)."`
	MCP        MCPCmd         `cmd:"" name:"mcp" help:"Serve cairn's file tools, shell lines, undo, redo, snapshots and file revert to an agent over MCP (stdin and stdout)."`
	Migrate    MigrateCmd     `cmd:"" name:"migrate-sessions" help:"Move the sessions saved under one directory (exactly as stored; it may be gone) to another directory. Their usage moves too unless --no-usage; --session moves just one."`
	Serve      ServeCmd       `cmd:"" group:"plumbing" help:"Serve the HTTP API of snapshots for the sessions no process owns."`
	Host       HostCmd        `cmd:"" group:"plumbing" help:"Serve a remote workspace on this machine to a cairn that reached it with --ssh (its ssh runs this)."`
	Pair       PairCmd        `cmd:"" group:"plumbing" help:"Make a paired credential for the HTTP API (its token is printed once)."`
	Completion CompletionCmd  `cmd:"" help:"Print the lines that make bash, zsh or fish complete cairn's commands and flags (add them to the shell's startup file)."`
	Help       HelpCmd        `cmd:"" help:"Print a command's help, or a guide: cairn help agents, cairn help storage trim."`
	Man        ManCmd         `cmd:"" help:"Print cairn's man page (roff): cairn man > cairn.1."`
}

// Globals are the flags every command takes and the run's own state
// (cmdbase.Globals, which the hook command shares), and the grammar.
type Globals struct {
	cmdbase.Globals
	// parser is the grammar, for help and man.
	parser *kong.Kong
}

// Process runs cairn as this process's command (cmd/cairn) and returns its
// exit code. SIGINT (Ctrl-C) cancels the command's context: a plumbing call
// stops and says so. The REPL takes Ctrl-C its own way (cli/repl_cancel.go).
// An agent's hook event watches for no signal, as in the hook program
// (cli/hookcmd processContext).
func Process() int {
	ctx, stop := processContext(os.Args[1:])
	defer stop()
	return Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}

// processContext is the context of cairn's run of args, and what ends
// it: cancelled by SIGINT, but for an agent's hook event.
func processContext(args []string) (context.Context, context.CancelFunc) {
	if hookcmd.AgentEvent(args) {
		return context.WithCancel(context.Background())
	}
	return signal.NotifyContext(context.Background(), os.Interrupt)
}

// Main runs the cairn command with args (without the program name) and
// returns its exit code.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return mainOn(ctx, args, stdin, stdout, stderr, nil)
}

// mainOn is Main with the state folder opened by openStore, when it is
// not nil: the tests open it on a filesystem that fails as they say.
func mainOn(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, openStore func(home string) (*engine.Store, error)) int {
	grammar, g := grammarFor(args)
	return mainGrammar(ctx, grammar, g, args, stdin, stdout, stderr, openStore)
}

// hookCLI is the grammar of `cairn hook …` alone: the Globals and the
// HookCmd of CLI, with the same tags (TestSmallGrammarsAnswerAsCLI). An
// agent runs `cairn hook claude-code` at every tool call, and building
// CLI's whole grammar (every command's struct, flags and help) costs a
// bare start about 12 ms: Main parses a command line that starts with
// `hook` with this one, which holds nothing else; the lines hook install
// writes (`hook claude-code`, `hook codex`) are not parsed at all
// (cli/hookcmd/fast.go).
type hookCLI struct {
	Globals
	Hook HookCmd `cmd:"" help:"Use cairn under Claude Code or Codex: install its hooks, or run one (the agent runs it)."`
}

// versionCLI is the grammar of `cairn --version` (cairn-bench's anchor
// of a bare start): the Globals alone.
type versionCLI struct {
	Globals
}

// grammarFor is the grammar that parses args, and its Globals: a small
// grammar (hookCLI, versionCLI) where args are its command's, else CLI.
// A shell completing a word gets CLI, which completes every command.
func grammarFor(args []string) (grammar any, g *Globals) {
	if !completing() {
		switch {
		case len(args) > 0 && args[0] == "hook":
			c := &hookCLI{}
			return c, &c.Globals
		case len(args) == 1 && args[0] == "--version":
			c := &versionCLI{}
			return c, &c.Globals
		}
	}
	c := &CLI{}
	return c, &c.Globals
}

// mainGrammar is mainOn with the grammar given: CLI, or a small grammar
// (grammarFor) whose Globals are g.
func mainGrammar(ctx context.Context, grammar any, g *Globals, args []string, stdin io.Reader, stdout, stderr io.Writer, openStore func(home string) (*engine.Store, error)) int {
	g.Ctx, g.Stdin, g.Stdout, g.Stderr = ctx, stdin, stdout, stderr
	g.OpenStore = openStore
	if dir, ok := listArgs(args); ok && !completing() {
		return g.mainList(dir)
	}
	if h, ok := grammar.(*hookCLI); ok {
		// One implementation of `cairn hook`: the hook program's.
		return cmdbase.Main(ctx, hookcmd.Command(h, &h.Globals.Globals), args, stdin, stdout, stderr)
	}
	return cmdbase.Main(ctx, cmdbase.Command{
		Grammar:  grammar,
		G:        &g.Globals,
		Examples: examplesOf,
		Options:  []kong.Option{kong.Help(helpPrinter)},
		Answer: func(parser *kong.Kong) bool {
			g.parser = parser
			// A shell completing a word runs cairn with COMP_LINE set:
			// answer and stop (completion.go).
			return answerCompletion(parser, stdout)
		},
		Check: func(kctx *kong.Context) error {
			if err := checkSessionRefs(kctx); err != nil {
				return err
			}
			g.StateCmd = stateCommand(kctx.Command())
			return checkSSH(g, kctx.Command())
		},
		Binds: []any{g},
	}, args, stdin, stdout, stderr)
}

// listArgs reports whether args are exactly the picker's listing,
// `sessions --json` (the flag before or after the word), perhaps after
// `-C DIR`, and returns DIR. A picker runs it at every start, and at
// 10,000 sessions building the command-line grammar was a tenth of it:
// Main runs it directly, as it does a hook. Any other form goes through
// the parser.
func listArgs(args []string) (dir string, ok bool) {
	if len(args) == 4 && args[0] == "-C" && !strings.HasPrefix(args[1], "-") {
		dir, args = args[1], args[2:]
	}
	if len(args) != 2 || !(args[0] == "sessions" && args[1] == "--json" || args[0] == "--json" && args[1] == "sessions") {
		return "", false
	}
	return dir, true
}

// mainList is Main for listArgs's command lines: the globals as the parser
// leaves them with --json and -C DIR given (--home's CAIRN_HOME is read by
// open, through cmdbase.DefaultHome), then the listing.
func (g *Globals) mainList(dir string) int {
	g.Chdir, g.JSON = dir, true
	errw := display.Writer(cmdbase.HeardWriter(g.Stderr, true))
	g.Stderr, g.Term = errw, g.Stdout
	defer errw.Flush()
	err := (&SessionsCmd{}).Run(g)
	if g.Store != nil {
		g.Store.Close()
	}
	if err != nil {
		return g.Fail(err)
	}
	return ExitOK
}
