// Package cli is the cairn command: one kong command struct per command
// (main.go, plumbing.go, storage.go, …), the line REPL (repl*.go, with the
// line editor and picker of cli/term), and the printing of stored text for
// people (cli/display).
//
// It holds no mechanism of its own: commands call package engine for
// sessions and package httpapi for the HTTP API (`serve`, `pair`,
// `--listen` in server_cmd.go). It is the only package that reads the
// environment (env.go): CAIRN_HOME, CAIRN_MAX_EAGER_LOAD_MB and
// XDG_RUNTIME_DIR are turned into engine options here.
//
// `cairn hook` (cli/hookcmd, hook.go) runs under an agent's command hooks: install
// merges its entries into the agent's settings file, and each event the
// agent runs it for is one process. A hook never fails the agent: its
// errors are one stderr line and exit 0, except the block of a
// snapshots.required refusal (exit 2, the agents' block contract).
//
// Exit codes: 0 done, 1 failed, 2 bad usage, 3 refused, 4 busy (errors.go).
package cli
