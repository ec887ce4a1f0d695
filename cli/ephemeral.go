package cli

import (
	"fmt"
	"strings"

	"cairn/engine"
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
	return stateCommands[first] || strings.HasPrefix(cmd, "hook install") || strings.HasPrefix(cmd, "hook uninstall")
}

// openHome opens the state folder home for this command: an ephemeral
// root under --ephemeral; the folder itself under --no-ephemeral, for a
// command about the state folder, or when storage.ephemeral is off. The
// setting is read by the engine's own loader (Store.Config) from the
// folder just opened, so the cli reads no file of the state folder itself.
// A config.json that cannot be read leaves the run recorded: the commands
// that read it later say why. When the setting alone decides, it says so
// on stderr once, so a script is not left to guess.
func (g *Globals) OpenHome(home string) (*engine.Store, error) {
	if g.Ephemeral != nil && *g.Ephemeral && !g.StateCmd {
		return engine.OpenEphemeral(home, storeOptions()...)
	}
	s, err := engine.Open(home, storeOptions()...)
	if err != nil || g.Ephemeral != nil || g.StateCmd {
		return s, err
	}
	if cfg, err := s.Config(); err != nil || !cfg.Storage.Ephemeral {
		return s, nil
	}
	if err := s.Close(); err != nil {
		return nil, err
	}
	if !g.ToldEphemeral {
		g.ToldEphemeral = true
		fmt.Fprintln(g.Stderr, "cairn: storage.ephemeral is on (config.json): nothing this run records of sessions is kept; --no-ephemeral records it")
	}
	return engine.OpenEphemeral(home, storeOptions()...)
}
