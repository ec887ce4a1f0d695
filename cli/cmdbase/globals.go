package cmdbase

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/alecthomas/kong"

	"cairn/engine"
)

// Globals are the flags every command takes, and the run's own state
// (the fields kong does not parse).
type Globals struct {
	Home    string           `name:"home" env:"CAIRN_HOME" placeholder:"DIR" help:"State folder (default ~/.cairn)."`
	Chdir   string           `short:"C" name:"chdir" placeholder:"DIR" help:"Act as if started in DIR."`
	JSON    bool             `name:"json" help:"Machine output: one JSON value (or JSONL for streams) on stdout."`
	Version kong.VersionFlag `name:"version" help:"Print the version and exit."`
	// Ephemeral is --ephemeral or --no-ephemeral, nil when neither was
	// given: then storage.ephemeral of config.json decides (OpenHome).
	Ephemeral *bool `name:"ephemeral" negatable:"" help:"Work in a private temporary state folder, removed when cairn leaves: nothing of sessions is recorded (spend still reaches the usage ledger). The default is storage.ephemeral of config.json; --no-ephemeral records this run."`
	// The remote workspace (cli/remote.go).
	SSH string `name:"ssh" placeholder:"[USER@]HOST:/PATH" help:"Work on a remote workspace over ssh: the files and their change records stay on HOST, where cairn host runs."`
	// SSHCommand and CairnPath, as given on the command line, are kept in
	// a new remote session's record; CAIRN_SSH is read apart
	// (cli/remote_workspace.go), since it holds for one run only.
	SSHCommand string `name:"ssh-command" placeholder:"LINE" help:"The ssh command line to reach --ssh's host (run by sh, as git runs GIT_SSH_COMMAND; default $CAIRN_SSH, else the one the session was started with, else ssh). A new session keeps it for -r."`
	CairnPath  string `name:"cairn-path" placeholder:"PROGRAM" help:"The cairn to run on --ssh's host, as written on its command line (default the one the session was started with, else cairn). A new session keeps it for -r."`

	Ctx    context.Context `kong:"-"`
	Stdin  io.Reader       `kong:"-"`
	Stdout io.Writer       `kong:"-"` // what a person reads is escaped (cli/display), JSON is not
	Stderr io.Writer       `kong:"-"` // escaped
	// Term is stdout unescaped: for the line editor and the picker, which
	// draw with escape sequences of their own, and for exact bytes.
	Term  io.Writer     `kong:"-"`
	Store *engine.Store `kong:"-"`
	// StateCmd: the command works on the state folder itself (storage,
	// where, history, import, ...), never in an ephemeral root.
	StateCmd      bool `kong:"-"`
	ToldEphemeral bool `kong:"-"` // OpenHome said once that the setting decided
	// OpenStore opens the state folder instead of engine.Open (tests).
	OpenStore func(home string) (*engine.Store, error) `kong:"-"`
	// HandOver, in the hook program, runs the event in the cairn command
	// instead, before anything of stdin is read: the session's default
	// remote is of a kind the hook program cannot open, and its lease must
	// be checked (cli/hookcmd/handover.go).
	HandOver func(engine.Remote) error `kong:"-"`
}

// Unflagged sets g's flags as kong's parse of a command line that gives
// none of them leaves them: each its zero value, and --home $CAIRN_HOME's
// when that is set (kong reads a flag's env var, even set empty, through
// the flag's mapper: RawString, its bytes as they are). The run's own
// fields (kong:"-") are left alone. Command.Fast's command lines take it:
// a flag given an env var or a default here must be given it there too
// (cli/hookcmd TestFastGlobalsAreKongs fails until it is).
func (g *Globals) Unflagged() {
	g.Home, g.Chdir, g.JSON, g.Version, g.Ephemeral = os.Getenv("CAIRN_HOME"), "", false, false, nil
	g.SSH, g.SSHCommand, g.CairnPath = "", "", ""
}

// Fail reports err as one line on stderr (and a JSON answer on stdout with
// --json) and returns its exit code.
func (g *Globals) Fail(err error) int {
	code, word := Classify(err)
	// The same words on stderr and in the JSON object: a script reads
	// what a person reads, never a package's name.
	msg := UserError(err)
	fmt.Fprintln(g.Stderr, "cairn:", msg)
	var ee *ExitError
	if errors.As(err, &ee) && ee.Quiet {
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

// Open opens the state folder once per run.
func (g *Globals) Open() (*engine.Store, error) {
	if g.Store != nil {
		return g.Store, nil
	}
	home := g.Home
	if home == "" {
		h, err := DefaultHome()
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
		fmt.Fprintln(g.Stderr, "cairn:", UserError(r))
	}
	g.Store = s
	return s, nil
}

// Dir is the directory the command acts in: -C, else the working directory.
func (g *Globals) Dir() (string, error) {
	if g.Chdir != "" {
		return g.Chdir, nil
	}
	return os.Getwd()
}

// PrintJSON writes v as one JSON value on stdout.
func (g *Globals) PrintJSON(v any) error {
	enc := json.NewEncoder(g.Stdout)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// SessionOptions are a plumbing command's: not degrading (a write that
// fails is the command's failure), and what the session has to say
// (a record rebuilt later, an item whose payload is gone) goes to stderr.
func (g *Globals) SessionOptions() engine.SessionOptions {
	return engine.SessionOptions{Notice: func(m string) { Say(g.Stderr, m) }}
}

// DefaultHome is the state folder: $CAIRN_HOME, else ~/.cairn. A home
// folder that does not exist (HOME=/nonexistent, as system accounts have)
// is an error, never made: the REPL then runs unrecorded and says so, as
// for any state folder it cannot use. A folder named by CAIRN_HOME or
// --home is made, since it was asked for.
func DefaultHome() (string, error) {
	if h := os.Getenv("CAIRN_HOME"); h != "" {
		return filepath.Abs(h)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no state folder: set CAIRN_HOME or HOME: %w", err)
	}
	if fi, err := os.Stat(home); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("no state folder: the home folder %s does not exist; set CAIRN_HOME or HOME", home)
	}
	return filepath.Join(home, ".cairn"), nil
}

// RefuseSSH refuses --ssh and --cairn-path on cmd (the command's first
// word), a command that does not take them: it never falls back to this
// machine's files. nil when neither is given.
func RefuseSSH(g *Globals, cmd string) error {
	switch {
	case g.SSH != "":
		return UsageErrorf("cairn %s does not work on a remote workspace yet: the REPL (cairn --ssh T, with -r, --continue, --resume), where, prompt, diff, undo, redo, snapshots, revert, unrevert, shells and tool (but exec) take --ssh in this build", cmd)
	case g.CairnPath != "":
		return UsageErrorf("--cairn-path is for --ssh")
	}
	return nil
}
