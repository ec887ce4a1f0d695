package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"cairn/engine"
	"cairn/importer"
)

// The environment of the cairn command. The engine reads none: what it
// needs from here is passed in as options.
//
//	CAIRN_HOME               the state folder (also --home), else ~/.cairn
//	CAIRN_MAX_EAGER_LOAD_MB  the load ceiling for this run (engine.WithMaxEagerLoadMB)
//	XDG_RUNTIME_DIR          where --ephemeral puts its root (engine.WithEphemeralRoot)
//	CLAUDE_CONFIG_DIR        Claude Code's folder, which `cairn import claude-code` reads, else ~/.claude
//	CODEX_HOME               Codex's folder, which `cairn import codex` reads, else ~/.codex
//	CLAUDE_PROJECT_DIR       set by Claude Code for its hooks: the project the session started in
//	COMP_LINE                set by a shell completing a word (completion.go)

// completing reports whether a shell is asking cairn to complete a word
// (COMP_LINE, read again by the parser's completion).
func completing() bool { return os.Getenv("COMP_LINE") != "" }

// defaultHome is the state folder: $CAIRN_HOME, else ~/.cairn. A home
// folder that does not exist (HOME=/nonexistent, as system accounts have)
// is an error, never made: the REPL then runs unrecorded and says so, as
// for any state folder it cannot use. A folder named by CAIRN_HOME or
// --home is made, since it was asked for.
func defaultHome() (string, error) {
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

// storeOptions are the engine options the environment asks for. A
// CAIRN_MAX_EAGER_LOAD_MB that is not a positive number is ignored.
func storeOptions() []engine.Option {
	var opts []engine.Option
	if n, err := strconv.Atoi(os.Getenv("CAIRN_MAX_EAGER_LOAD_MB")); err == nil && n > 0 {
		opts = append(opts, engine.WithMaxEagerLoadMB(n))
	}
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		opts = append(opts, engine.WithEphemeralRoot(d))
	}
	return opts
}

// agentHome is the folder an agent keeps its sessions under:
// $CLAUDE_CONFIG_DIR or ~/.claude for Claude Code, $CODEX_HOME or ~/.codex
// for Codex.
func agentHome(agent string) (string, error) {
	env, dot := "CLAUDE_CONFIG_DIR", ".claude"
	if agent == importer.AgentCodex {
		env, dot = "CODEX_HOME", ".codex"
	}
	if d := os.Getenv(env); d != "" {
		return filepath.Abs(d)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no %s folder: set %s or HOME: %w", agent, env, err)
	}
	return filepath.Join(home, dot), nil
}

// hookProjectDir is the folder an agent's session started in, when the
// agent tells its hooks ($CLAUDE_PROJECT_DIR for Claude Code, whose event
// cwd follows the agent's cd); "" otherwise.
func hookProjectDir(agent string) string {
	if agent == importer.AgentClaudeCode {
		return os.Getenv("CLAUDE_PROJECT_DIR")
	}
	return ""
}
