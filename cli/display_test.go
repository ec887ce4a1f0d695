package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Text from sessions reaches a person escaped: a file name, a title or a
// prompt holding terminal control sequences is printed with them shown as
// \x1b and the like, by every command that prints it, and in errors; the
// file on disk and the JSON answers keep the exact bytes.
func TestControlSequencesShownEscaped(t *testing.T) {
	ctx := context.Background()
	home, dir := filepath.Join(t.TempDir(), "home"), t.TempDir()
	run := func(stdin string, args ...string) (int, string, string) {
		t.Helper()
		var o, e bytes.Buffer
		code := Main(ctx, append([]string{"--home", home, "-C", dir}, args...), strings.NewReader(stdin), &o, &e)
		return code, o.String(), e.String()
	}
	raw := func(what, s string) {
		t.Helper()
		if strings.ContainsAny(s, "\x1b\x07\r") {
			t.Errorf("%s prints a control character raw: %q", what, s)
		}
	}

	red := "esc\x1b[31mRED\x1b[0m"
	if code, o, e := run("", "prompt", "--new", "x \x1b[31mred\x1b[0m prompt\x07"); code != 0 {
		t.Fatalf("prompt: %d %s", code, e)
	} else {
		raw("prompt", o+e)
	}
	code, o, e := run("content\n", "tool", "write", red)
	if code != 0 {
		t.Fatalf("tool write: %d %q", code, e)
	}
	raw("tool write", o+e)
	if !strings.Contains(o, `esc\x1b[31mRED\x1b[0m`) {
		t.Errorf("tool write does not name the file escaped: %q", o)
	}
	if _, err := os.Stat(filepath.Join(dir, red)); err != nil {
		t.Errorf("the file does not keep its name: %v", err)
	}

	var l []struct{ ID, Title string }
	_, o, _ = run("", "--json", "sessions")
	if err := json.Unmarshal([]byte(o), &l); err != nil || len(l) != 1 {
		t.Fatalf("sessions --json: %q %v", o, err)
	}
	id := l[0].ID
	if l[0].Title != "x red prompt" {
		t.Errorf("the title made from the prompt holds controls: %q", l[0].Title)
	}
	evil := "evil\x1b]0;pwn\x07title"
	if code, o, e := run("", "rename", id, evil); code != 0 {
		t.Fatalf("rename: %d %q", code, e)
	} else {
		raw("rename", o+e)
	}
	_, o, _ = run("", "--json", "sessions")
	if json.Unmarshal([]byte(o), &l); l[0].Title != evil {
		t.Errorf("sessions --json changed the title: %q", l[0].Title)
	}

	for _, args := range [][]string{
		{"sessions"}, {"show", id}, {"snapshots", "--session", id}, {"transcript", id},
		{"history"}, {"undo", "--session", id}, {"redo", "--session", id}, {"tool", "rm", red},
	} {
		code, o, e := run("", args...)
		if code != 0 {
			t.Errorf("%v: exit %d %q", args, code, e)
		}
		raw(strings.Join(args, " "), o+e)
	}
	if _, o, _ := run("", "sessions"); !strings.Contains(o, `evil\x1b]0;pwn\x07title`) {
		t.Errorf("sessions does not show the title escaped: %q", o)
	}
	// An error that echoes a name.
	code, o, e = run("", "tool", "edit", "no\x1b[2Jsuch", "a", "b")
	if code == 0 || !strings.Contains(e, `no\x1b[2Jsuch`) {
		t.Errorf("tool edit of a missing file: exit %d, stderr %q", code, e)
	}
	raw("the error", o+e)
}
