package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"reflect"
	"strings"

	"github.com/alecthomas/kong"

	"cairn/cli/display"
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

// Globals are the flags every command takes.
type Globals struct {
	Home    string           `name:"home" env:"CAIRN_HOME" placeholder:"DIR" help:"State folder (default ~/.cairn)."`
	Chdir   string           `short:"C" name:"chdir" placeholder:"DIR" help:"Act as if started in DIR."`
	JSON    bool             `name:"json" help:"Machine output: one JSON value (or JSONL for streams) on stdout."`
	Version kong.VersionFlag `name:"version" help:"Print the version and exit."`
	// Ephemeral is --ephemeral or --no-ephemeral, nil when neither was
	// given: then storage.ephemeral of config.json decides (ephemeral.go).
	Ephemeral *bool `name:"ephemeral" negatable:"" help:"Work in a private temporary state folder, removed when cairn leaves: nothing of sessions is recorded (spend still reaches the usage ledger). The default is storage.ephemeral of config.json; --no-ephemeral records this run."`
	// The remote workspace (remote.go).
	SSH string `name:"ssh" placeholder:"[USER@]HOST:/PATH" help:"Work on a remote workspace over ssh: the files and their change records stay on HOST, where cairn host runs."`
	// SSHCommand and CairnPath, as given on the command line, are kept in
	// a new remote session's record; CAIRN_SSH is read apart
	// (remote_workspace.go), since it holds for one run only.
	SSHCommand string `name:"ssh-command" placeholder:"LINE" help:"The ssh command line to reach --ssh's host (run by sh, as git runs GIT_SSH_COMMAND; default $CAIRN_SSH, else the one the session was started with, else ssh). A new session keeps it for -r."`
	CairnPath  string `name:"cairn-path" placeholder:"PROGRAM" help:"The cairn to run on --ssh's host, as written on its command line (default the one the session was started with, else cairn). A new session keeps it for -r."`

	Ctx    context.Context `kong:"-"`
	Stdin  io.Reader       `kong:"-"`
	Stdout io.Writer       `kong:"-"` // what a person reads is escaped (cli/display), JSON is not
	Stderr io.Writer       `kong:"-"` // escaped
	// term is stdout unescaped: for the line editor and the picker, which
	// draw with escape sequences of their own, and for exact bytes.
	Term  io.Writer     `kong:"-"`
	Store *engine.Store `kong:"-"`
	// stateCmd: the command works on the state folder itself (storage,
	// where, history, import, ...), never in an ephemeral root.
	StateCmd      bool `kong:"-"`
	ToldEphemeral bool `kong:"-"` // ephemeral said once that the setting decided
	// openStore opens the state folder instead of engine.Open (tests).
	OpenStore func(home string) (*engine.Store, error) `kong:"-"`
	// parser is the grammar, for help and man.
	parser *kong.Kong
	// handOver, in the hook program (HookMain), runs the event in the
	// cairn command instead, before anything of stdin is read: the
	// session's default remote is of a kind the hook program cannot open,
	// and its lease must be checked (hook_handover.go).
	HandOver func(engine.Remote) error `kong:"-"`
}

// Process runs cairn as this process's command (cmd/cairn) and returns its
// exit code. SIGINT (Ctrl-C) cancels the command's context: a plumbing call
// stops and says so. The REPL takes Ctrl-C its own way (cli/repl_cancel.go).
func Process() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
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
// `hook` with this one, which holds nothing else.
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
	exited := -1
	parser, err := newParser(grammar,
		kong.Writers(stdout, stderr),
		kong.Exit(func(code int) {
			if exited < 0 {
				exited = code
			}
		}),
		kong.UsageOnError(),
	)
	if err != nil {
		fmt.Fprintln(stderr, "cairn:", err)
		return ExitFailed
	}
	g.parser = parser
	// A shell completing a word runs cairn with COMP_LINE set: answer and
	// stop (completion.go).
	if answerCompletion(parser, stdout) {
		return ExitOK
	}
	kctx, err := parser.Parse(rewriteArgs(args))
	if exited >= 0 {
		return exited
	}
	if err != nil && !g.JSON {
		// A command line that does not parse sets no flag, yet a script
		// that asked for --json reads its answer as JSON too.
		g.JSON = askedJSON(args)
	}
	// Text from sessions (titles, file names, prompts, tool output) reaches
	// a person only escaped: it may hold terminal control sequences.
	errw := display.Writer(heardWriter(stderr, true))
	g.Stderr, g.Term = errw, stdout
	defer errw.Flush()
	if !g.JSON {
		outw := display.Writer(heardWriter(stdout, false))
		g.Stdout = outw
		defer outw.Flush()
	}
	if err != nil {
		return g.Fail(usageErrorf("%v", err))
	}
	if err := checkSessionRefs(kctx); err != nil {
		return g.Fail(err)
	}
	g.StateCmd = stateCommand(kctx.Command())
	if err := checkSSH(g, kctx.Command()); err != nil {
		return g.Fail(err)
	}
	err = kctx.Run(g)
	if g.Store != nil {
		g.Store.Close()
	}
	if exited >= 0 {
		return exited
	}
	if err != nil {
		return g.Fail(err)
	}
	return ExitOK
}

// newParser is the grammar given (CLI, or a small grammar of grammarFor)
// with the options given: the one parser every command line, `cairn
// help`, `cairn man` and docs/commands.md read.
func newParser(grammar any, options ...kong.Option) (*kong.Kong, error) {
	parser, err := kong.New(grammar, append([]kong.Option{
		kong.Name("cairn"),
		kong.Description("keeps coding-agent sessions as plain files\n\ncairn keeps the conversations, audit trails and the files each tool changed of coding-agent sessions as plain files. It calls no model: it is the storage and the tools under an agent."),
		kong.Vars{"version": versionText(readBuildInfo())},
		kong.KindMapper(reflect.String, rawString{}),
		kong.Help(helpPrinter),
	}, options...)...)
	if err != nil {
		return nil, err
	}
	addExamples(parser.Model)
	return parser, nil
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
// open, through defaultHome), then the listing.
func (g *Globals) mainList(dir string) int {
	g.Chdir, g.JSON = dir, true
	errw := display.Writer(heardWriter(g.Stderr, true))
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

// askedJSON reports whether args hold --json before any "--".
func askedJSON(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--json" || a == "--json=true" {
			return true
		}
	}
	return false
}

// rewriteArgs turns a bare `--resume` or `-r` (no value, or followed by a
// flag) into `--pick`, so that `--resume` opens the picker and `--resume ID`
// resumes ID.
func rewriteArgs(args []string) []string {
	out := make([]string, 0, len(args))
	for i, a := range args {
		if a == "--" {
			out = append(out, args[i:]...)
			break
		}
		if (a == "--resume" || a == "-r") && (i+1 == len(args) || strings.HasPrefix(args[i+1], "-")) {
			out = append(out, "--pick")
			continue
		}
		out = append(out, a)
	}
	return out
}

// fail reports err as one line on stderr (and a JSON answer on stdout with
// --json) and returns its exit code.
func (g *Globals) Fail(err error) int {
	code, word := classify(err)
	// The same words on stderr and in the JSON object: a script reads
	// what a person reads, never a package's name.
	msg := userError(err)
	fmt.Fprintln(g.Stderr, "cairn:", msg)
	var ee *exitError
	if errors.As(err, &ee) && ee.quiet {
		return code
	}
	if g.JSON {
		json.NewEncoder(g.Stdout).Encode(struct {
			OK    bool   `json:"ok"`
			Code  string `json:"code"`
			Error string `json:"error"`
		}{false, word, msg})
	}
	return code
}

// open opens the state folder once per call.
func (g *Globals) Open() (*engine.Store, error) {
	if g.Store != nil {
		return g.Store, nil
	}
	home := g.Home
	if home == "" {
		h, err := defaultHome()
		if err != nil {
			return nil, err
		}
		home = h
	}
	open := g.OpenHome
	if g.OpenStore != nil {
		open = g.OpenStore
	}
	s, err := open(home)
	if err != nil {
		return nil, err
	}
	for _, r := range s.Unrecovered() {
		fmt.Fprintln(g.Stderr, "cairn:", userError(r))
	}
	g.Store = s
	return s, nil
}

// dir is the directory the command acts in: -C, else the working directory.
func (g *Globals) Dir() (string, error) {
	if g.Chdir != "" {
		return g.Chdir, nil
	}
	return os.Getwd()
}

// printJSON writes v as one JSON value on stdout.
func (g *Globals) PrintJSON(v any) error {
	enc := json.NewEncoder(g.Stdout)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
