package cmdbase

import (
	"fmt"
	"os"
	"strconv"

	"cairn/engine"
)

// OpenHome opens the state folder home for this command: an ephemeral
// root under --ephemeral; the folder itself under --no-ephemeral, for a
// command about the state folder (StateCmd), or when storage.ephemeral
// is off. The setting is read by the engine's own loader (Store.Config)
// from the folder just opened, so no command reads a file of the state
// folder itself. A config.json that cannot be read leaves the run
// recorded: the commands that read it later say why. When the setting
// alone decides, it says so on stderr once, so a script is not left to
// guess.
func (g *Globals) OpenHome(home string) (*engine.Store, error) {
	if g.Ephemeral != nil && *g.Ephemeral && !g.StateCmd {
		return engine.OpenEphemeral(home, StoreOptions()...)
	}
	s, err := engine.Open(home, StoreOptions()...)
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
	return engine.OpenEphemeral(home, StoreOptions()...)
}

// StoreOptions are the engine options the environment asks for:
// CAIRN_MAX_EAGER_LOAD_MB (engine.WithMaxEagerLoadMB; one that is not a
// positive number is ignored) and XDG_RUNTIME_DIR, where --ephemeral puts
// its root (engine.WithEphemeralRoot).
func StoreOptions() []engine.Option {
	var opts []engine.Option
	if n, err := strconv.Atoi(os.Getenv("CAIRN_MAX_EAGER_LOAD_MB")); err == nil && n > 0 {
		opts = append(opts, engine.WithMaxEagerLoadMB(n))
	}
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		opts = append(opts, engine.WithEphemeralRoot(d))
	}
	return opts
}
