package cli

import (
	"fmt"
	"strings"

	"cairn/engine"
	"cairn/internal/vfs"
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
// it, moving its sessions, its HTTP API and credentials.
var stateCommands = map[string]bool{
	"storage": true, "where": true, "history": true, "import": true, "migrate-sessions": true,
	"serve": true, "pair": true, "completion": true,
}

// stateCommand reports whether the command kong chose ("storage fsck",
// "run", ...) is about the state folder itself.
func stateCommand(cmd string) bool {
	first, _, _ := strings.Cut(cmd, " ")
	return stateCommands[first]
}

// ephemeral reports whether this command works in an ephemeral root (see
// above): --ephemeral or --no-ephemeral, else storage.ephemeral of the
// state folder home's config.json. When the setting alone decides, it
// says so on stderr once, so a script is not left to guess.
func (g *Globals) ephemeral(home string) bool {
	if g.stateCmd {
		return false
	}
	if g.Ephemeral != nil {
		return *g.Ephemeral
	}
	if !configEphemeral(home) {
		return false
	}
	if !g.toldEphemeral {
		g.toldEphemeral = true
		fmt.Fprintln(g.stderr, "cairn: storage.ephemeral is on (config.json): nothing this run records of sessions is kept; --no-ephemeral records it")
	}
	return true
}

// configEphemeral is storage.ephemeral of the state folder home's
// config.json; false when it cannot be read (a command that then opens the
// store says why).
func configEphemeral(home string) bool {
	if home == "" {
		return false
	}
	// Through the vfs seam, which refuses a FIFO rather than wait on it.
	d, err := vfs.OpenDisk(home)
	if err != nil {
		return false
	}
	defer d.Close()
	b, err := vfs.ReadFile(d, "config.json")
	if err != nil {
		return false
	}
	c, err := engine.ParseConfig(b)
	return err == nil && c.Storage.Ephemeral
}
