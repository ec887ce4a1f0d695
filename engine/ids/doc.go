// Package ids makes the short, readable ids cairn gives to tasks, shell
// jobs, tool outputs and workflow runs.
//
// # Slugs
//
// A slug is made from a description: ASCII letters are lowercased, digits
// are kept, and every other run of characters (spaces, punctuation, '-',
// '_', anything outside ASCII) becomes one '-'; leading and trailing '-' go.
// "Implement active footer chips" becomes "implement-active-footer-chips".
// A description with nothing usable left falls back to "task".
//
// # Prefixed handles
//
// Shell job labels and output handles are slugs after a fixed prefix:
// "shell-cargo-test", "output-file-grep". A handle with nothing usable after
// its prefix is the bare prefix word: "shell", "output".
//
// # Shell labels
//
// A shell job's label names only what is safe to show: a recognized
// executable name and, where that executable has fixed subcommands, one of
// them ("cargo test --release" is "shell-cargo-test"). Arguments, paths and
// output never contribute. A line that is not one simple command, or whose
// executable is not recognized, is labelled "shell".
//
// # Word ids
//
// Workflow run ids are random word-list names: adjective, adjective, animal
// ("neat-wanted-cowbird"). The lists are part of this package and plain
// ASCII.
//
// # Collisions and length
//
// Every id is at most MaxLen (64) characters, prefix and suffix included.
// When an id is taken, "-2", "-3", ... is appended, cutting the base (never
// the prefix) so that base and suffix fit, and never leaving a '-' before the
// suffix. The caller says what is taken; ids never reads the disk.
package ids
