package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Shell completion. The shell runs cairn itself to complete a word: with
// COMP_LINE set it prints the words that fit and exits (kongplete, from the
// kong grammar, so every command and flag completes as it is defined).
// `cairn completion SHELL` prints the lines that tell a shell to do so.

// CompletionCmd is `cairn completion bash|zsh|fish`.
type CompletionCmd struct {
	Shell string `arg:"" enum:"bash,zsh,fish" help:"The shell: bash, zsh or fish."`
}

func (c *CompletionCmd) Run(g *Globals) error {
	bin, err := os.Executable()
	if err != nil {
		return fmt.Errorf("cannot find the cairn command's own path: %w", err)
	}
	if bin, err = filepath.Abs(bin); err != nil {
		return err
	}
	q := shellQuote(bin)
	switch c.Shell {
	case "bash":
		fmt.Fprintf(g.term, "complete -C %s cairn\n", q)
	case "zsh":
		fmt.Fprintf(g.term, "autoload -U +X bashcompinit && bashcompinit\ncomplete -C %s cairn\n", q)
	case "fish":
		fmt.Fprintf(g.term, `function __complete_cairn
    set -lx COMP_LINE (commandline -cp)
    test -z (commandline -ct)
    and set COMP_LINE "$COMP_LINE "
    %s
end
complete -f -c cairn -a "(__complete_cairn)"
`, q)
	}
	return nil
}

// shellQuote quotes s for a POSIX shell and fish alike.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
