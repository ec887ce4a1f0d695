package cli

import (
	"os"
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
