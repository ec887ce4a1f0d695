package cli

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
)

// A shell completing a word runs cairn with COMP_LINE set: it prints the
// commands and flags that fit, and nothing runs.
func TestCompletionAnswers(t *testing.T) {
	home := t.TempDir()
	for _, c := range []struct{ line, want string }{
		{"cairn ses", "sessions"},
		{"cairn completion ", "bash fish zsh"},
		{"cairn storage fs", "fsck"},
		{"cairn --ho", "--home"},
	} {
		t.Setenv("COMP_LINE", c.line)
		var out, errb bytes.Buffer
		code := Main(context.Background(), []string{"--home", home}, strings.NewReader(""), &out, &errb)
		words := strings.Fields(out.String())
		slices.Sort(words)
		if code != 0 || strings.Join(words, " ") != c.want {
			t.Errorf("%q: exit %d, %q (stderr %q), want %q", c.line, code, out.String(), errb.String(), c.want)
		}
	}
}

// `cairn completion SHELL` prints the lines for that shell, naming this
// command by its path.
func TestCompletionScripts(t *testing.T) {
	for shell, want := range map[string]string{
		"bash": "complete -C '", "zsh": "bashcompinit\ncomplete -C '", "fish": "set -lx COMP_LINE (commandline -cp)",
	} {
		out := plumb(t, "completion", shell)
		if !strings.Contains(out, want) {
			t.Errorf("%s: %q lacks %q", shell, out, want)
		}
	}
	var out, errb bytes.Buffer
	if code := Main(context.Background(), []string{"completion", "tcsh"}, strings.NewReader(""), &out, &errb); code != ExitUsage {
		t.Errorf("an unknown shell: exit %d, want %d", code, ExitUsage)
	}
}
