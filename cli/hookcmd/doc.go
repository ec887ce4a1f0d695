// Package hookcmd is `cairn hook`: cairn under an agent's command hooks
// (Claude Code, Codex). `hook install` and `hook uninstall` put cairn's
// entries into the agent's settings file (install.go); `hook claude-code`
// and `hook codex` are what those entries run, one event on stdin
// (event.go). Package cli's `cairn hook` runs this package's commands,
// and so does the hook program (cmd/cairn-hook, Main), which links this
// package and cli/cmdbase but none of the rest of the cairn command.
package hookcmd
