package hookcmd

import (
	"strings"

	"cairn/cli/cmdbase"
)

// The command lines an agent's hook entries run, `hook claude-code` and
// `hook codex` (cairn-hook's arguments, after the "hook" Main puts
// before them), are run without kong: building the grammar (every
// field's tags parsed, help interpolated, the build info read) was about
// 100 of an edit hook process's 590 page faults, at every tool call.
// They are exactly what `hook install` writes (install.go:
// hookCommand, and `--command CMD` adds " hook AGENT"); any other
// command line, a flag or a typo among them, goes through kong as ever,
// with its help, errors and exit codes.

// fastRun is the command of the fast command lines, by the word after
// "hook".
func fastRun(word string) func(*cmdbase.Globals) error {
	switch word {
	case "claude-code":
		return (&HookClaudeCmd{}).Run
	case "codex":
		return (&HookCodexCmd{}).Run
	}
	return nil
}

// fastArgs is the word after "hook" when args (cairn's, from "hook" on)
// are `hook WORD` exactly; "" otherwise.
func fastArgs(args []string) string {
	if len(args) != 2 || args[0] != "hook" {
		return ""
	}
	return args[1]
}

// AgentEvent reports whether args, cairn's from "hook" on, are a command
// line an agent's hook entry runs: `hook claude-code` or `hook codex`
// exactly. Such a run watches for no signal (processContext).
func AgentEvent(args []string) bool { return fastRun(fastArgs(args)) != nil }

// fast is cmdbase.Command.Fast for the hook command, whose Globals are
// g: the run of args when they are `hook claude-code` or `hook codex`
// exactly, with g as kong and Command's Check leave it for them; nil for
// any other args.
func fast(g *cmdbase.Globals, args []string) func() error {
	run := fastRun(fastArgs(args))
	if run == nil {
		return nil
	}
	g.Unflagged()
	// Check's, for these lines: no state command, and no --ssh or
	// --cairn-path to refuse.
	g.StateCmd = StateCommand(strings.Join(args, " "))
	return func() error { return run(g) }
}
