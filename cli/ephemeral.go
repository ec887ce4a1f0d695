package cli

import (
	"cairn/cli/hookcmd"
	"strings"
)

// One rule for ephemeral runs, the REPL and every other command alike:
// under --ephemeral, or storage.ephemeral in config.json when neither
// --ephemeral nor --no-ephemeral is given, a command that records or reads
// sessions (the REPL, the plumbing of prompts, items, turns, file tools,
// undo, revert and forks, `cairn hook`, `cairn mcp`) works in a private
// temporary state folder, removed when it ends: nothing of its sessions
// is kept, saved sessions are not seen, and its spend still reaches the
// usage ledger, labelled ephemeral. A command about the state folder
// itself works on it as always: stateCommands.

// stateCommands are the commands about the state folder itself: its
// storage, where a directory's state is, the prompt history, imports into
// it, moving its sessions, its HTTP API and credentials; and cairn host,
// which keeps a remote client's change records (the client decides
// whether its session is ephemeral, never the host's setting).
var stateCommands = map[string]bool{
	"storage": true, "where": true, "history": true, "import": true, "migrate-sessions": true,
	"serve": true, "pair": true, "completion": true, "host": true, "remote": true, "sync": true,
}

// stateCommand reports whether the command kong chose ("storage fsck",
// "run", ...) is about the state folder itself. `cairn hook install` and
// `uninstall` are: what install notes for uninstall (Store.HookKept) must
// outlive the run.
func stateCommand(cmd string) bool {
	first, _, _ := strings.Cut(cmd, " ")
	return stateCommands[first] || hookcmd.StateCommand(cmd)
}
