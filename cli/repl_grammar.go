package cli

import (
	"cairn/cli/cmdbase"
	"context"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
	"unicode"

	"github.com/alecthomas/kong"
)

// The REPL's commands are a kong grammar, as the plumbing's are: one
// XxxCmd struct per command with a Run method, flags and arguments parsed
// by kong (--flag=value and --flag value alike, -- before an argument that
// starts with -), and /help and every usage line written from the same
// help strings. A command acts on the REPL's open session, so it takes no
// SESSION; where a plumbing command's arguments and flags are the same
// (:edit, :write, :rm, /snapshots restore, /migrate-sessions), its struct
// is embedded and its help is the one help text.
//
// How the words after a command's name reach kong is the command's `line`
// tag:
//
//   - words (no tag): shell words (repl_words.go).
//   - rest: the rest of the line as one argument: the one shell word it is
//     when it is one ("my file.txt"), else the rest as typed (my file.txt,
//     it's), so a name holding spaces works either way and quotes never end
//     up in a name.
//   - raw: the rest of the line as typed, for sh -c (:exec).
//   - text: the whole text after the name, every line of it (!LINE).
//
// A command tagged `body` takes the lines after its first as its content
// (a :write's or a :patch's, pasted or typed with Alt+Enter); any other
// refuses them.

// replCLI is the REPL's grammar; its order is /help's: the slash
// commands, the tool lines, then !LINE.
type replCLI struct {
	Rename    replRenameCmd    `cmd:"" name:"/rename" line:"rest" help:"rename this session"`
	Clear     replClearCmd     `cmd:"" name:"/clear" aliases:"/new" help:"start a new session here (this one stays resumable)"`
	History   replHistoryCmd   `cmd:"" name:"/history" help:"show the prompt history"`
	Shells    replShellsCmd    `cmd:"" name:"/shells" help:"list this session's shell history, or show what command RUN printed; /shells stop JOB stops a background shell job; /shells stop (the leader, then k) lists the running ones, Ctrl-K stops the selected one"`
	Tasks     replTasksCmd     `cmd:"" name:"/tasks" help:"the session's background work, newest first: list, status ID, background ID, cancel ID, older (the next page), recent"`
	Message   replMessageCmd   `cmd:"" name:"/message" help:"send TEXT to another live session, shown above its input line (with cross-session messaging switched on in config.json)"`
	Undo      replUndoCmd      `cmd:"" name:"/undo" help:"restore the files of the newest snapshot (Alt+Z)"`
	Redo      replRedoCmd      `cmd:"" name:"/redo" help:"put the undone edit back (Alt+R)"`
	Snapshots replSnapshotsCmd `cmd:"" name:"/snapshots" help:"list this session's snapshots (F9), or undo every one down to SNAP"`
	Diff      replDiffCmd      `cmd:"" name:"/diff" help:"the unified diff of what a tool call changed (the newest, or ITEM), or a whole turn (ITEM a prompt)"`
	Resume    replResumeCmd    `cmd:"" name:"/resume" line:"rest" help:"switch to another session: the picker, or the one NAME names"`
	Rewind    replRewindCmd    `cmd:"" name:"/rewind" help:"go back to before a prompt, which comes back for editing (Esc Esc); stops the session's running tasks instead, when some run"`
	Fork      replForkCmd      `cmd:"" name:"/fork" help:"fork this session (at the head, or at ITEM) and switch to the fork"`
	Revert    replRevertCmd    `cmd:"" name:"/revert" help:"move the head back: a prompt lands before it and comes back for editing; files (or both) reverts the recorded file changes after ITEM: the first such line previews, the same line again runs it"`
	Unrevert  replUnrevertCmd  `cmd:"" name:"/unrevert" help:"undo the reverts since the last new work (files, then the head)"`
	Compact   replCompactCmd   `cmd:"" name:"/compact" help:"replace the older conversation by a summary in the request view"`
	Storage   replStorageCmd   `cmd:"" name:"/storage" help:"where the state folder's disk went, and the change stores (all: every one)"`
	Migrate   replMigrateCmd   `cmd:"" name:"/migrate-sessions" help:"move the saved sessions of directory FROM to TO (asks first, unless --yes)"`
	Help      replHelpCmd      `cmd:"" name:"/help" help:"show this help, or what COMMAND takes"`
	Exit      replExitCmd      `cmd:"" name:"/exit" help:"leave (Ctrl-D too)"`
	Quit      replExitCmd      `cmd:"" name:"/quit" hidden:"" help:"leave"`
	Write     replWriteCmd     `cmd:"" name:":write" line:"rest" body:"" help:"write PATH with the lines that follow, up to a line holding only \".\" (or with the lines pasted or typed after it with Alt+Enter, in one text)"`
	Edit      replEditCmd      `cmd:"" name:":edit" help:"the edit file tool: replace the one occurrence of OLD in PATH by NEW (--all: every one; quote words holding spaces, as in a shell)"`
	Rm        replRmCmd        `cmd:"" name:":rm" line:"rest" help:"the rm file tool: delete PATH"`
	Exec      replExecCmd      `cmd:"" name:":exec" line:"raw" help:"run a shell line (sh -c, in the workspace), recording what it changes for file revert; a --timeout over the async threshold (120 s) runs it in the background and answers with a receipt"`
	Patch     replPatchCmd     `cmd:"" name:":patch" line:"rest" body:"" help:"apply a patch (git diff, or *** Begin Patch) from FILE, or from the lines that follow up to a line holding only \".\" (or pasted with it, in one text); /undo undoes all of it"`
	Attach    replAttachCmd    `cmd:"" name:":attach" line:"rest" help:"attach a file to the next prompt (:attach alone lists them)"`
	Own       replOwnCmd       `cmd:"" name:"!" line:"text" help:"run a shell line of your own: kept in the shell history, given no change record"`
}

// replLine is the line a command runs for: its context (Ctrl-C cancels
// it), the content that came with it (body, when multi), and, set by the
// command, whether the REPL ends after it.
type replLine struct {
	ctx   context.Context
	body  string
	multi bool
	quit  bool
}

// replGrammar is the REPL's grammar without a REPL, for /help and the
// list of commands; it is built once, when first asked for.
var replGrammar = sync.OnceValue(func() *kong.Application {
	return kong.Must(&replCLI{}, replParserOptions(io.Discard, func(int) {})...).Model
})

// replParserOptions are the options of the REPL's parser: its usage and
// errors go to out, and kong's exit (after --help) calls exit rather than
// ending the process.
func replParserOptions(out io.Writer, exit func(int)) []kong.Option {
	return []kong.Option{
		kong.Name(""),
		kong.Writers(out, out),
		kong.Exit(exit),
		kong.KindMapper(reflect.String, cmdbase.RawString{}),
		kong.Help(func(_ kong.HelpOptions, ctx *kong.Context) error {
			if n := ctx.Selected(); n != nil {
				writeUsage(ctx.Stdout, n, true)
			}
			return nil
		}),
	}
}

// parser is this REPL's parser, made at its first command.
func (r *repl) parser() (*kong.Kong, error) {
	if r.kong != nil {
		return r.kong, nil
	}
	k, err := kong.New(&r.cmds, replParserOptions(r.out, func(int) { r.kongExited = true })...)
	if err != nil {
		return nil, err
	}
	r.kong = k
	return k, nil
}

// commandNode is the command name names in the grammar app, or nil.
func commandNode(app *kong.Application, name string) *kong.Node {
	for _, n := range app.Children {
		if n.Name == name {
			return n
		}
		for _, a := range n.Aliases {
			if a == name {
				return n
			}
		}
	}
	return nil
}

// splitCommand cuts a command line's first line into the command's name
// and the rest: "!" and what follows it, else the first word.
func splitCommand(first string) (name, rest string) {
	if strings.HasPrefix(first, "!") {
		return "!", first[1:]
	}
	i := strings.IndexFunc(first, unicode.IsSpace)
	if i < 0 {
		return first, ""
	}
	return first[:i], first[i:]
}

// command runs a command line (text as typed or pasted: lines after the
// first may come with it); it reports whether the REPL should end. A line
// naming no command is refused, and a line kong refuses prints the
// command's usage: neither sends or changes anything, and the REPL goes
// on.
func (r *repl) command(ctx context.Context, text string) bool {
	text = strings.TrimLeftFunc(text, unicode.IsSpace)
	first, body, _ := strings.Cut(text, "\n")
	name, rest := splitCommand(strings.TrimRightFunc(first, unicode.IsSpace))
	k, err := r.parser()
	if err != nil {
		fmt.Fprintln(r.out, "cairn:", err)
		return false
	}
	n := commandNode(k.Model, name)
	if n == nil {
		hint := "/help says more"
		if strings.HasPrefix(name, "/") {
			hint += "; start a prompt that begins with / with //"
		}
		fmt.Fprintf(r.out, "Unknown command %s; nothing was sent. Commands: %s (%s).\n", firstLine(name), commandList(), hint)
		return false
	}
	l := &replLine{ctx: ctx}
	mode := n.Tag.Get("line")
	switch {
	case mode == "text":
		rest = strings.TrimPrefix(strings.TrimRightFunc(text, unicode.IsSpace), name)
	case strings.TrimSpace(body) == "":
	case n.Tag.Has("body"):
		l.body, l.multi = blockContent(body), true
	default:
		fmt.Fprintf(r.out, "%s takes one line; nothing was run.\n", name)
		return false
	}
	args, err := commandArgs(mode, name, rest)
	if err != nil {
		r.refuse(n, err)
		return false
	}
	r.kongExited = false
	kctx, err := k.Parse(args)
	switch {
	case r.kongExited: // --help: the usage is printed
		return false
	case err != nil:
		r.refuse(n, err)
		return false
	}
	if err := kctx.Run(r, l); err != nil {
		fmt.Fprintln(r.out, "cairn:", userError(err))
	}
	return l.quit
}

// commandArgs are the words kong parses for a command line: the command's
// name, then the rest of its line as its line mode says (see above). An
// argument taken whole comes after --, so that it may start with -.
func commandArgs(mode, name, rest string) ([]string, error) {
	args := []string{name}
	switch mode {
	case "raw":
		// Flags first (--timeout 121), as shell words; the line after
		// them, or after a "--", as typed.
		flags, line := leadingFlags(rest)
		args = append(args, flags...)
		if strings.TrimSpace(line) == "" {
			return args, nil
		}
		return append(args, "--", line), nil
	case "text":
		if strings.TrimSpace(rest) == "" {
			return args, nil
		}
		return append(args, "--", rest), nil
	case "rest":
		rest = strings.TrimSpace(rest)
		if rest == "" {
			return args, nil
		}
		if w, err := shellWords(rest); err == nil && len(w) == 1 {
			rest = w[0]
		}
		return append(args, "--", rest), nil
	}
	w, err := shellWords(rest)
	if err != nil {
		return nil, err
	}
	return append(args, w...), nil
}

// leadingFlags cuts the flags off the front of a raw line: each word that
// starts with "--" and a letter, with the word after it as its value
// unless it holds "=", up to the first other word; a "--" word ends them
// and is dropped. The rest is returned as typed.
func leadingFlags(rest string) (flags []string, line string) {
	line = rest
	for {
		t := strings.TrimLeftFunc(line, unicode.IsSpace)
		word, after := splitWord(t)
		switch {
		case word == "--":
			return flags, after
		case len(word) > 2 && strings.HasPrefix(word, "--") && isLetter(word[2]):
			flags = append(flags, word)
			if !strings.Contains(word, "=") {
				v, after2 := splitWord(strings.TrimLeftFunc(after, unicode.IsSpace))
				if v == "" {
					return flags, ""
				}
				flags, after = append(flags, v), after2
			}
			line = after
		default:
			return flags, line
		}
	}
}

// splitWord cuts s at its first blank.
func splitWord(s string) (word, rest string) {
	i := strings.IndexFunc(s, unicode.IsSpace)
	if i < 0 {
		return s, ""
	}
	return s[:i], s[i:]
}

// refuse says why a command line was not run, then the command's usage.
func (r *repl) refuse(n *kong.Node, err error) {
	fmt.Fprintf(r.out, "cairn: %s: %v; nothing was run.\n", n.Name, err)
	var b strings.Builder
	writeUsage(&b, n, false)
	fmt.Fprint(r.out, fitText(b.String(), r.width()))
}

// writeUsage writes the usage of command n: "Usage: " and its summary,
// its help below; full adds each argument and flag with its help.
func writeUsage(w io.Writer, n *kong.Node, full bool) {
	fmt.Fprintf(w, "Usage: %s\n  %s\n", commandSummary(n), n.Help)
	if !full {
		return
	}
	type row struct{ left, help string }
	var args, flags []row
	var walk func(n *kong.Node)
	walk = func(n *kong.Node) {
		for _, p := range n.Positional {
			args = append(args, row{argName(p), p.Help})
		}
		for _, f := range n.Flags {
			if f.Hidden || f.Name == "help" {
				continue
			}
			flags = append(flags, row{flagSummary(f), f.Help})
		}
		for _, c := range n.Children {
			if !c.Hidden {
				walk(c)
			}
		}
	}
	walk(n)
	for _, sec := range []struct {
		head string
		rows []row
	}{{"Arguments", args}, {"Flags", flags}} {
		if len(sec.rows) == 0 {
			continue
		}
		wide := 0
		for _, r := range sec.rows {
			wide = max(wide, len(r.left))
		}
		fmt.Fprintf(w, "%s:\n", sec.head)
		for _, r := range sec.rows {
			fmt.Fprintf(w, "  %-*s  %s\n", wide, r.left, r.help)
		}
	}
}

// commandSummary is how /help and a usage line show command n: its name
// (and aliases), its arguments in capitals ([optional ones] bracketed),
// its subcommands, then its flags.
func commandSummary(n *kong.Node) string {
	words := []string{strings.Join(append([]string{n.Name}, n.Aliases...), ", ")}
	if n.Tag.Get("line") == "text" {
		// !LINE: the line follows the ! with no blank.
		return n.Name + argWords(n)
	}
	if a := argWords(n); a != "" {
		words = append(words, a)
	}
	for _, c := range n.Children {
		if !c.Hidden {
			words = append(words, "["+strings.TrimSpace(c.Name+" "+argWords(c))+"]")
		}
	}
	for _, f := range n.Flags {
		if !f.Hidden && f.Name != "help" {
			words = append(words, "["+flagSummary(f)+"]")
		}
	}
	return strings.Join(words, " ")
}

// argWords are n's arguments as a summary shows them.
func argWords(n *kong.Node) string {
	var words []string
	for _, p := range n.Positional {
		if p.Required {
			words = append(words, argName(p))
		} else {
			words = append(words, "["+argName(p)+"]")
		}
	}
	return strings.Join(words, " ")
}

// argName is an argument's placeholder, else its name in capitals.
func argName(p *kong.Positional) string {
	if p.Tag.PlaceHolder != "" {
		return p.Tag.PlaceHolder
	}
	return strings.ToUpper(p.Name)
}

// flagSummary is a flag as a summary shows it: --name, and its value's
// placeholder when it takes one.
func flagSummary(f *kong.Flag) string {
	s := "--" + f.Name
	if !f.IsBool() {
		s += " " + f.FormatPlaceHolder()
	}
	return s
}

// helpEntries are the commands /help lists, each with what it does, in
// the grammar's order.
func helpEntries() [][2]string {
	var out [][2]string
	for _, n := range replGrammar().Children {
		if !n.Hidden {
			out = append(out, [2]string{commandSummary(n), n.Help})
		}
	}
	return out
}

// commandList names every command, for a line that names none: the
// slash commands, then the tool lines, then !LINE.
func commandList() string {
	var slash, colon, other []string
	for _, n := range replGrammar().Children {
		if n.Hidden {
			continue
		}
		names := append([]string{n.Name}, n.Aliases...)
		switch {
		case strings.HasPrefix(n.Name, "/"):
			slash = append(slash, names...)
		case strings.HasPrefix(n.Name, ":"):
			colon = append(colon, names...)
		default:
			other = append(other, commandSummary(n))
		}
	}
	return strings.Join(slash, " ") + ", " + strings.Join(colon, " ") + ", " + strings.Join(other, " ")
}

// replHelpCmd is /help [COMMAND].
type replHelpCmd struct {
	Command string `arg:"" optional:"" help:"A command (/revert, :edit; revert and edit name them too): what it takes."`
}

func (c *replHelpCmd) Run(r *repl) error {
	if c.Command == "" {
		fmt.Fprint(r.out, helpText(r.width(), r.leaderName()))
		return nil
	}
	n := commandNode(replGrammar(), c.Command)
	if n == nil && !strings.HasPrefix(c.Command, "/") && !strings.HasPrefix(c.Command, ":") {
		// "/help revert", as one would say it: the command of that name.
		if n = commandNode(replGrammar(), "/"+c.Command); n == nil {
			n = commandNode(replGrammar(), ":"+c.Command)
		}
	}
	if n == nil || n.Hidden {
		return usageErrorf("no command %s; /help lists them", firstLine(c.Command))
	}
	var b strings.Builder
	writeUsage(&b, n, true)
	fmt.Fprint(r.out, fitText(b.String(), r.width()))
	return nil
}

// replExitCmd is /exit (and /quit).
type replExitCmd struct{}

func (c *replExitCmd) Run(l *replLine) error {
	l.quit = true
	return nil
}
