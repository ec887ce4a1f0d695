package cli

import "cairn/cli/hookcmd"

// HookCmd is `cairn hook`: cairn under an agent's command hooks (Claude
// Code, Codex), package cli/hookcmd's, which the hook program
// (cmd/cairn-hook) runs alone.
type HookCmd = hookcmd.HookCmd
