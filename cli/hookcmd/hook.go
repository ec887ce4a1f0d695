package hookcmd

// HookCmd is `cairn hook`: cairn under an agent's command hooks (Claude
// Code, Codex). `install` and `uninstall` put cairn's entries into the
// agent's settings file (install.go); `claude-code` and `codex` are
// what those entries run (event.go).
type HookCmd struct {
	Install   HookInstallCmd   `cmd:"" help:"Add cairn's hook entries to an agent's settings file (nothing else in it changes)."`
	Uninstall HookUninstallCmd `cmd:"" help:"Take cairn's hook entries out of an agent's settings file."`
	Claude    HookClaudeCmd    `cmd:"" name:"claude-code" help:"Run one Claude Code hook: the event's JSON on stdin (Claude Code runs it)."`
	Codex     HookCodexCmd     `cmd:"" name:"codex" help:"Run one Codex hook: the event's JSON on stdin (Codex runs it)."`
}
