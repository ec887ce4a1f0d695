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
// Exit codes: 0 done, 1 failed, 2 bad usage, 3 refused, 4 busy (errors.go).
package cli
