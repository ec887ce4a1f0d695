package hookcmd

import (
	"cairn/importer"
	"fmt"
	"os"
	"path/filepath"
)

// AgentHome is the folder an agent keeps its sessions under:
// $CLAUDE_CONFIG_DIR or ~/.claude for Claude Code, $CODEX_HOME or ~/.codex
// for Codex.
func AgentHome(agent string) (string, error) {
	env, dot := "CLAUDE_CONFIG_DIR", ".claude"
	if agent == importer.AgentCodex {
		env, dot = "CODEX_HOME", ".codex"
	}
	if d := os.Getenv(env); d != "" {
		return filepath.Abs(d)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no %s folder: set %s or HOME: %w", agent, env, err)
	}
	return filepath.Join(home, dot), nil
}

// hookProjectDir is the folder an agent's session started in, when the
// agent tells its hooks ($CLAUDE_PROJECT_DIR for Claude Code, whose event
// cwd follows the agent's cd); "" otherwise.
func hookProjectDir(agent string) string {
	if agent == importer.AgentClaudeCode {
		return os.Getenv("CLAUDE_PROJECT_DIR")
	}
	return ""
}
