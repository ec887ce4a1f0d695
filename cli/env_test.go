package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cairn/cli/cmdbase"
	"cairn/engine"
)

// CAIRN_MAX_EAGER_LOAD_MB raises the load ceiling for one run: the command
// reads it and passes it to the engine, which reads no environment.
func TestEnvRaisesEagerLoadCeiling(t *testing.T) {
	ctx := context.Background()
	home, dir, st, ws := openTestWorkspace(t)
	s := ws.Create(engine.SessionOptions{})
	chunk := strings.Repeat("z", 300<<10)
	for range 4 { // 1.2 MB of payloads
		if _, err := s.Append(ctx, engine.Item{Type: engine.User, Text: chunk}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(`{"storage":{"max_eager_load_mb":1}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	appendItem := func() (int, string) {
		var out, errw bytes.Buffer
		code := Main(ctx, []string{"--home", home, "-C", dir, "append", "--session", s.ID(), "--type", "assistant", "hi"},
			strings.NewReader(""), &out, &errw)
		return code, errw.String()
	}
	t.Setenv("CAIRN_MAX_EAGER_LOAD_MB", "")
	if code, errs := appendItem(); code != ExitRefused || !strings.Contains(errs, "max_eager_load_mb") {
		t.Fatalf("over the ceiling: exit %d, %s", code, errs)
	}
	t.Setenv("CAIRN_MAX_EAGER_LOAD_MB", "2")
	if code, errs := appendItem(); code != 0 {
		t.Fatalf("with CAIRN_MAX_EAGER_LOAD_MB=2: exit %d, %s", code, errs)
	}
}

// XDG_RUNTIME_DIR says where an ephemeral root goes; the command passes it.
func TestEnvEphemeralRoot(t *testing.T) {
	xdg := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", xdg)
	s, err := engine.OpenEphemeral("", cmdbase.StoreOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s.Home(), xdg+string(filepath.Separator)) {
		t.Fatalf("ephemeral root %s is not under $XDG_RUNTIME_DIR %s", s.Home(), xdg)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(xdg); len(left) != 0 {
		t.Fatalf("left in $XDG_RUNTIME_DIR: %v", left)
	}
}

// $CAIRN_HOME, else ~/.cairn.
func TestDefaultHome(t *testing.T) {
	h := t.TempDir()
	t.Setenv("CAIRN_HOME", h)
	if got, err := cmdbase.DefaultHome(); err != nil || got != h {
		t.Fatalf("with CAIRN_HOME: %q %v", got, err)
	}
	t.Setenv("CAIRN_HOME", "")
	t.Setenv("HOME", h)
	if got, err := cmdbase.DefaultHome(); err != nil || got != filepath.Join(h, ".cairn") {
		t.Fatalf("without CAIRN_HOME: %q %v", got, err)
	}
}

// A home folder that does not exist is not made: the REPL runs unrecorded,
// says so, prints no resume line, and leaves nothing on disk.
func TestMissingHomeIsNotMade(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nonexistent")
	t.Setenv("CAIRN_HOME", "")
	t.Setenv("HOME", missing)
	if _, err := cmdbase.DefaultHome(); err == nil || !strings.Contains(err.Error(), missing) {
		t.Fatalf("missing home: %v", err)
	}
	var out, errw bytes.Buffer
	code := Main(context.Background(), []string{"-C", t.TempDir()}, strings.NewReader("hello\n/exit\n"), &out, &errw)
	if code != 0 || !strings.Contains(errw.String()+out.String(), "not recorded") || strings.Contains(out.String(), "--resume") {
		t.Fatalf("REPL with a missing home: exit %d\nstdout %s\nstderr %s", code, out.String(), errw.String())
	}
	if _, err := os.Lstat(missing); !os.IsNotExist(err) {
		t.Fatalf("the missing home was made: %v", err)
	}
	code = Main(context.Background(), []string{"-C", t.TempDir(), "prompt", "hi"}, strings.NewReader(""), &out, &errw)
	if code != ExitFailed {
		t.Fatalf("prompt with a missing home: exit %d", code)
	}
	if _, err := os.Lstat(missing); !os.IsNotExist(err) {
		t.Fatalf("the missing home was made by prompt: %v", err)
	}
}
