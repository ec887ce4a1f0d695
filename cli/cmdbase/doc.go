// Package cmdbase is what every cairn command line shares, below the
// commands themselves: the global flags and the run's own state
// (Globals: context, stdin/stdout/stderr, the state folder opened once),
// exit codes and how an error becomes one, the words a person reads of
// an error, and the one way a grammar is parsed and run (Main).
//
// Package cli's Globals embeds Globals, so its commands reach these
// fields and methods as their own. The hook command (cli/hookcmd) imports
// this package and not cli: the hook program an agent runs at every tool
// call links none of the REPL, the MCP server, the HTTP API or the whole
// command grammar, whose package init would cost every call milliseconds.
package cmdbase
