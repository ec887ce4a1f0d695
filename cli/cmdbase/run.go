package cmdbase

import (
	"context"
	"fmt"
	"io"
	"reflect"
	"runtime/debug"
	"strings"

	"github.com/alecthomas/kong"

	"cairn/cli/display"
)

// Command is one grammar and what its program adds to the common run
// (Main): the whole cairn command line (package cli), or the hook
// command's alone (cli/hookcmd).
type Command struct {
	// Grammar is the kong grammar, a struct that embeds G's Globals.
	Grammar any
	G       *Globals
	// Examples are a command's example lines by its path (CommandPath),
	// shown in its help.
	Examples func(path string) []string
	// Options are kong options beyond NewParser's own (a help printer).
	Options []kong.Option
	// Answer, when set, sees the parser before the command line is
	// parsed; true means it answered (a shell completing a word) and the
	// run is over.
	Answer func(parser *kong.Kong) bool
	// Check, when set, refuses a parsed command line before it runs.
	Check func(kctx *kong.Context) error
	// Binds are what the commands' Run methods take (G is bound too).
	Binds []any
	// Fast, when set, runs the command lines a program runs most often
	// without building kong's grammar, which costs a short process more
	// than its own work does (a hook's, at every tool call of an agent).
	// For a command line it recognises exactly, it leaves G as kong's
	// parse of that line would (Globals.Unflagged, and what Check sets)
	// and returns the command's run; nil for any other line, which kong
	// parses as ever: help, flags, typos and their errors are kong's.
	Fast func(args []string) (run func() error)
}

// Main parses args with c's grammar and runs the command chosen, and
// returns its exit code: kong's own exit for --help and --version, the
// error's (Classify) for a command line that does not parse or a command
// that fails, said on stderr (and as a JSON answer with --json). A
// command line c.Fast knows runs without the grammar, as it would with it.
func Main(ctx context.Context, c Command, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	g := c.G
	g.Ctx, g.Stdin, g.Stdout, g.Stderr = ctx, stdin, stdout, stderr
	exited := -1
	if c.Fast != nil {
		if run := c.Fast(args); run != nil {
			return finish(g, nil, run, &exited)
		}
	}
	parser, err := NewParser(c.Grammar, c.Examples, append([]kong.Option{
		kong.Writers(stdout, stderr),
		kong.Exit(func(code int) {
			if exited < 0 {
				exited = code
			}
		}),
		kong.UsageOnError(),
	}, c.Options...)...)
	if err != nil {
		fmt.Fprintln(stderr, "cairn:", err)
		return ExitFailed
	}
	if c.Answer != nil && c.Answer(parser) {
		return ExitOK
	}
	kctx, err := parser.Parse(RewriteArgs(args))
	if exited >= 0 {
		return exited
	}
	if err != nil && !g.JSON {
		// A command line that does not parse sets no flag, yet a script
		// that asked for --json reads its answer as JSON too.
		g.JSON = askedJSON(args)
	}
	if err != nil {
		err = UsageErrorf("%v", err)
	}
	return finish(g, err, func() error {
		if c.Check != nil {
			if err := c.Check(kctx); err != nil {
				return err
			}
		}
		return kctx.Run(append([]any{g}, c.Binds...)...)
	}, &exited)
}

// finish is a run once its command line is parsed (perr, its error, said
// and nothing run): run with stdout and stderr escaped, the state folder
// closed, and the exit code: kong's when a command asked it to exit
// (exited), else the error's.
func finish(g *Globals, perr error, run func() error, exited *int) int {
	stdout, stderr := g.Stdout, g.Stderr
	// Text from sessions (titles, file names, prompts, tool output) reaches
	// a person only escaped: it may hold terminal control sequences.
	errw := display.Writer(HeardWriter(stderr, true))
	g.Stderr, g.Term = errw, stdout
	defer errw.Flush()
	if !g.JSON {
		outw := display.Writer(HeardWriter(stdout, false))
		g.Stdout = outw
		defer outw.Flush()
	}
	if perr != nil {
		return g.Fail(perr)
	}
	err := run()
	if g.Store != nil {
		g.Store.Close()
	}
	if *exited >= 0 {
		return *exited
	}
	if err != nil {
		return g.Fail(err)
	}
	return ExitOK
}

// NewParser is the grammar given with the options given, and each
// command's examples (by CommandPath) in its help: the one way every
// command line, `cairn help`, `cairn man` and docs/commands.md read a
// grammar.
func NewParser(grammar any, examples func(path string) []string, options ...kong.Option) (*kong.Kong, error) {
	parser, err := kong.New(grammar, append([]kong.Option{
		kong.Name("cairn"),
		kong.Description("keeps coding-agent sessions as plain files\n\ncairn keeps the conversations, audit trails and the files each tool changed of coding-agent sessions as plain files. It calls no model: it is the storage and the tools under an agent."),
		kong.Vars{"version": VersionText(debug.ReadBuildInfo())},
		kong.KindMapper(reflect.String, RawString{}),
	}, options...)...)
	if err != nil {
		return nil, err
	}
	if examples != nil {
		addExamples(parser.Model, examples)
	}
	return parser, nil
}

// addExamples puts each command's examples in its detailed help, which
// kong prints under the command's own help and the man page carries.
func addExamples(app *kong.Application, examples func(path string) []string) {
	var walk func(n *kong.Node)
	walk = func(n *kong.Node) {
		for _, c := range n.Children {
			if lines := examples(CommandPath(c)); len(lines) > 0 && !strings.Contains(c.Detail, "Examples:") {
				text := "Examples:\n\n"
				for _, l := range lines {
					text += "    " + l + "\n"
				}
				if c.Detail != "" {
					text = c.Detail + "\n\n" + text
				}
				c.Detail = text
			}
			walk(c)
		}
	}
	walk(app.Node)
}

// CommandPath is a command's words after "cairn": "storage trim"; the
// hidden default command of a group (snapshots' list) is its group's.
func CommandPath(n *kong.Node) string {
	var words []string
	for ; n != nil && n.Type == kong.CommandNode; n = n.Parent {
		if n.Parent != nil && n.Parent.DefaultCmd == n && n.Hidden {
			continue
		}
		words = append([]string{n.Name}, words...)
	}
	return strings.Join(words, " ")
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

// RewriteArgs turns a bare `--resume` or `-r` (no value, or followed by a
// flag) into `--pick`, so that `--resume` opens the picker and `--resume
// ID` resumes ID. Every grammar's command line goes through it, so that a
// small grammar answers a stray -r as the whole one does.
func RewriteArgs(args []string) []string {
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

// RawString decodes a string argument or flag value as its bytes. kong's
// own string mapper passes the value through encoding/json, which turns
// bytes that are not UTF-8 into U+FFFD: a file name such as "x\xff" would
// name another file ("x\uFFFD"), and a tool would write that one.
type RawString struct{}

func (RawString) Decode(ctx *kong.DecodeContext, target reflect.Value) error {
	t, err := ctx.Scan.PopValue("string")
	if err != nil {
		return err
	}
	if s, ok := t.Value.(string); ok {
		target.SetString(s)
	} else {
		target.SetString(fmt.Sprint(t.Value))
	}
	return nil
}
