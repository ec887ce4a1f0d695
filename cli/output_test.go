package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"cairn/engine"
)

func TestOutputCommand(t *testing.T) {
	ctx := context.Background()
	home, dir, st, ws := openTestWorkspace(t)
	mk := func(prompt string) *engine.Session {
		s := ws.Create(engine.SessionOptions{})
		if _, err := s.Append(ctx, engine.Item{Type: engine.User, Text: prompt}); err != nil {
			t.Fatal(err)
		}
		return s
	}
	a, b := mk("first"), mk("second")
	out, err := a.PutOutput(ctx, "shell-cargo-test", strings.NewReader("running 3 tests\ntest a ... ok\ntest b ... FAILED\n"))
	if err != nil {
		t.Fatal(err)
	}
	bin, err := a.PutOutput(ctx, "dump", strings.NewReader("\xff\xfe"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []*engine.Session{a, b} {
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	run := func(args ...string) (int, string, string) {
		var o, e bytes.Buffer
		code := Main(ctx, append([]string{"--home", home, "-C", dir}, args...), strings.NewReader(""), &o, &e)
		return code, o.String(), e.String()
	}
	if code, o, e := run("output", a.ID(), out); code != 0 || o != "running 3 tests\ntest a ... ok\ntest b ... FAILED\n" {
		t.Fatalf("read: %d %q %q", code, o, e)
	}
	if code, o, e := run("output", a.ID(), out, "--search", "test "); code != 0 || o != "2:test a ... ok\n3:test b ... FAILED\n" {
		t.Fatalf("search: %d %q %q", code, o, e)
	}
	// --json is one JSON value: an array of matches (empty for none), and
	// the output as an object.
	if code, o, _ := run("--json", "output", a.ID(), out, "--search", "FAILED"); code != 0 || o != `[{"line":3,"text":"test b ... FAILED"}]`+"\n" {
		t.Fatalf("search --json: %d %q", code, o)
	}
	if code, o, _ := run("--json", "output", a.ID(), out, "--search", "nowhere"); code != 0 || o != "[]\n" {
		t.Fatalf("search --json, no match: %d %q", code, o)
	}
	want := `{"session":"` + a.ID() + `","output":"` + out + `","size":48,"text":"running 3 tests\ntest a ... ok\ntest b ... FAILED\n"}` + "\n"
	if code, o, _ := run("--json", "output", a.ID(), out); code != 0 || o != want {
		t.Fatalf("read --json: %d %q", code, o)
	}
	// Bytes that are not UTF-8 come in base64, never mangled.
	if code, o, _ := run("--json", "output", a.ID(), bin); code != 0 || o != `{"session":"`+a.ID()+`","output":"`+bin+`","size":2,"base64":"//4="}`+"\n" {
		t.Fatalf("read --json of bytes: %d %q", code, o)
	}
	// Only from its own session.
	if code, o, e := run("output", b.ID(), out); code != ExitFailed || o != "" || !strings.Contains(e, out) {
		t.Fatalf("other session: %d %q %q", code, o, e)
	}
	if code, _, _ := run("output", a.ID(), "../x"); code != ExitUsage {
		t.Fatalf("bad id: exit %d", code)
	}
}

// openTestWorkspace opens a fresh state folder (home) and the workspace of
// a fresh directory (dir) in it; the caller closes st.
func openTestWorkspace(t *testing.T) (home, dir string, st *engine.Store, ws *engine.Workspace) {
	t.Helper()
	home, dir = filepath.Join(t.TempDir(), "home"), t.TempDir()
	st, err := engine.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	ws, err = st.Workspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	return home, dir, st, ws
}
