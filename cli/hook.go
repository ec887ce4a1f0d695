package cli

// HookCmd is `cairn hook`: cairn under an agent's command hooks (Claude
// Code, Codex). `install` and `uninstall` put cairn's entries into the
// agent's settings file (hook_install.go).
type HookCmd struct {
	Install   HookInstallCmd   `cmd:"" help:"Add cairn's hook entries to an agent's settings file (nothing else in it changes)."`
	Uninstall HookUninstallCmd `cmd:"" help:"Take cairn's hook entries out of an agent's settings file."`
}
