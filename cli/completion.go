package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/alecthomas/kong"
	"github.com/posener/complete"
	"github.com/willabides/kongplete"

	"cairn/cli/cmdbase"
	"cairn/cli/display"
	"cairn/engine"
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
	q := cmdbase.ShellQuote(bin)
	switch c.Shell {
	case "bash":
		fmt.Fprintf(g.Term, "complete -C %s cairn\n", q)
	case "zsh":
		fmt.Fprintf(g.Term, "autoload -U +X bashcompinit && bashcompinit\ncomplete -C %s cairn\n", q)
	case "fish":
		fmt.Fprintf(g.Term, `function __complete_cairn
    set -lx COMP_LINE (commandline -cp)
    set -lx CAIRN_COMPLETE_SHELL fish
    test -z (commandline -ct)
    and set COMP_LINE "$COMP_LINE "
    %s
end
complete -f -c cairn -a "(__complete_cairn)"
`, q)
	}
	return nil
}

// answerCompletion answers a shell completing a word (COMP_LINE set) and reports
// whether it did. Every command and flag completes from the kong grammar
// (kongplete); the REPL's flags, which belong to the default command, also
// complete before any command word (`cairn -r <TAB>`), and a session
// argument (-r/--resume, `resume`) completes to this directory's session
// ids and titles.
func answerCompletion(parser *kong.Kong, stdout io.Writer) bool {
	if !completing() {
		return false
	}
	cmd, err := kongplete.Command(parser, kongplete.WithPredictor("session", complete.PredictFunc(predictSessions)))
	if err != nil {
		return false
	}
	if run, ok := cmd.Sub["run"]; ok {
		for name, p := range run.GlobalFlags {
			if _, taken := cmd.GlobalFlags[name]; !taken {
				cmd.GlobalFlags[name] = p
			}
		}
	}
	c := complete.New("cairn", cmd)
	c.Out = stdout
	return c.Complete()
}

// predictSessions are the sessions a SESSION word can complete to: the ids
// and titles of the directory the command line names (-C), in the state
// folder it names (--home), newest first. A title is quoted for the shell
// (fish quotes completions itself); one holding a control character or a
// line break is left out.
func predictSessions(a complete.Args) []string {
	home := argValue(a.Completed, "--home")
	if home == "" {
		h, err := cmdbase.DefaultHome()
		if err != nil {
			return nil
		}
		home = h
	}
	if fi, err := os.Stat(home); err != nil || !fi.IsDir() {
		return nil // a completion never makes the state folder
	}
	dir := argValue(a.Completed, "-C", "--chdir")
	if dir == "" {
		d, err := os.Getwd()
		if err != nil {
			return nil
		}
		dir = d
	}
	s, err := engine.Open(home, cmdbase.StoreOptions()...)
	if err != nil {
		return nil
	}
	defer s.Close()
	ws, err := s.Workspace(dir)
	if err != nil {
		return nil
	}
	l, _, err := ws.List(context.Background())
	if err != nil {
		return nil
	}
	fish := os.Getenv("CAIRN_COMPLETE_SHELL") == "fish"
	var out []string
	for _, e := range l {
		out = append(out, e.ID)
		if e.Title == "" || display.Line(e.Title) != e.Title {
			continue
		}
		if fish {
			out = append(out, e.Title)
		} else {
			out = append(out, shellEscape(e.Title))
		}
	}
	return out
}

// argValue is the value the command line gives the first of names, as
// "NAME VALUE" or "NAME=VALUE"; "" when it gives none.
func argValue(args []string, names ...string) string {
	for i, a := range args {
		for _, n := range names {
			if a == n && i+1 < len(args) {
				return args[i+1]
			}
			if v, ok := strings.CutPrefix(a, n+"="); ok {
				return v
			}
		}
	}
	return ""
}

// shellEscape backslash-escapes every character of s a POSIX shell would
// take for something else, so that the completed word is s.
func shellEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-/:@+,=%^", r) || r > 0x7f) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
