package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// With --json every command prints one JSON value on stdout, whether it
// succeeds, is refused, or its command line does not parse. (trail prints
// the journal's lines, JSONL, and is left out.)
func TestJSONAnswersAreOneValue(t *testing.T) {
	home, dir := filepath.Join(t.TempDir(), "home"), t.TempDir()
	run := func(stdin string, args ...string) (int, string) {
		t.Helper()
		var o, e bytes.Buffer
		code := Main(context.Background(), append([]string{"--home", home, "-C", dir, "--json"}, args...), strings.NewReader(stdin), &o, &e)
		return code, o.String()
	}
	one := func(what, out string) {
		t.Helper()
		dec := json.NewDecoder(strings.NewReader(out))
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%s: stdout is not JSON: %v: %q", what, err, out)
		}
		if err := dec.Decode(&v); !errors.Is(err, io.EOF) {
			t.Fatalf("%s: stdout holds more than one JSON value: %q", what, out)
		}
	}
	code, out := run("", "prompt", "--new", "json answers")
	if code != 0 {
		t.Fatalf("prompt: %d %s", code, out)
	}
	var ans struct{ Session string }
	json.Unmarshal([]byte(out), &ans)
	s := ans.Session
	code, out = run("an output\n", "output", "put", "--session", s, "--producer", "ls")
	if code != 0 {
		t.Fatalf("output put: %d %s", code, out)
	}
	for _, c := range []struct {
		stdin string
		args  []string
	}{
		{"", []string{"append", "--session", s, "--type", "assistant", "an answer"}},
		{"", []string{"turn", "--session", s, "--model", "m"}},
		{"", []string{"sessions"}},
		{"", []string{"show", s}},
		{"", []string{"transcript", s}},
		{"", []string{"output", s, "output-ls"}},
		{"", []string{"output", s, "output-ls", "--search", "output"}},
		{"", []string{"output", s, "output-ls", "--search", "nowhere"}},
		{"", []string{"history"}},
		{"", []string{"history", "--clear"}},
		{"", []string{"fork", s, "--at", "1"}},
		{"", []string{"revert", s, "--to", "1"}},
		{"", []string{"unrevert", s}},
		{"", []string{"unrevert", s}}, // refused
		{"", []string{"where"}},
		{"", []string{"snapshots", "--session", s}},
		{"", []string{"undo", "--session", s}}, // refused
		{"", []string{"storage", "fsck"}},
		{"", []string{"storage", "usage"}},
		{"", []string{"rename", s, "renamed"}},
		{"", []string{"append", "--session", s, "--type", "tool_call", "--tool", "task", "a task"}},
		{"", []string{"append", "--session", s, "--task", "a-task", "--type", "assistant", "in the task"}},
		{"", []string{"tasks", s}},
		{"", []string{"task", s, "a-task"}},
		{"", []string{"task", s, "a-task", "--cancel"}},
		{"", []string{"task", s, "no-task"}}, // not found
		{"", []string{"attachment", "--list", s, "1"}},
		{"", []string{"attachment", s, "1"}},                                   // bytes are not JSON: bad usage
		{"", []string{"append", "--session", s, "--type", "tool_result", "x"}}, // bad usage
		{"", []string{"nosuchcommand"}},                                        // does not parse
	} {
		_, out := run(c.stdin, c.args...)
		one(strings.Join(c.args, " "), out)
	}
}
