package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"cairn/engine"
)

// The environment of the cairn command. The engine reads none: what it
// needs from here is passed in as options.
//
//	CAIRN_HOME               the state folder (also --home), else ~/.cairn
//	CAIRN_MAX_EAGER_LOAD_MB  the load ceiling for this run (engine.WithMaxEagerLoadMB)
//	XDG_RUNTIME_DIR          where --ephemeral puts its root (engine.WithEphemeralRoot)

// defaultHome is the state folder: $CAIRN_HOME, else ~/.cairn.
func defaultHome() (string, error) {
	if h := os.Getenv("CAIRN_HOME"); h != "" {
		return filepath.Abs(h)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no state folder: set CAIRN_HOME or HOME: %w", err)
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
