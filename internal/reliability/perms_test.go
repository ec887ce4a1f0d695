package reliability

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"cairn/engine"
	"cairn/httpapi"
)

// TestPermissions: after a session that uses every kind of file cairn writes
// (records, journals, objects, outputs, shell history, history, usage,
// credentials, the gateway token), the state folder and every folder in it
// are 0700 and every file is 0600, whatever the umask.
func TestPermissions(t *testing.T) {
	ctx := context.Background()
	// With no umask, a file created with a looser mode would show it.
	defer syscall.Umask(syscall.Umask(0))
	home := filepath.Join(t.TempDir(), "home")
	store, err := engine.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ws, _ := store.Workspace(t.TempDir())
	s := ws.Create(engine.SessionOptions{})
	s.Append(ctx, engine.Item{Type: engine.User, Text: "hello"})
	s.Append(ctx, engine.Item{Type: engine.Assistant, Text: strings.Repeat("big ", 10000)})
	if err := s.EndTurn(ctx, engine.Turn{Model: "m", Spend: engine.Spend{InputTokens: 1}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ToolWrite(ctx, "f.txt", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutOutput(ctx, "grep", strings.NewReader("out")); err != nil {
		t.Fatal(err)
	}
	run, err := s.ShellStart(ctx, "ls")
	if err != nil {
		t.Fatal(err)
	}
	run.Finish(ctx, 0, []byte("a"), nil)
	if _, err := s.Fork(ctx, ""); err != nil {
		t.Fatal(err)
	}
	s.Close()
	store.AddHistory("hello", ws.Path())
	if _, _, err := httpapi.GatewayToken(store); err != nil {
		t.Fatal(err)
	}
	if _, _, err := httpapi.Pair(ctx, store, []string{httpapi.ScopeAttach}, []string{s.ID()}); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	err = filepath.Walk(home, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		perm := fi.Mode().Perm()
		switch {
		case fi.IsDir() && perm != 0o700:
			t.Errorf("folder %s is %o, want 700", p, perm)
		case fi.Mode().IsRegular() && perm != 0o600:
			t.Errorf("file %s is %o, want 600", p, perm)
		}
		for _, kind := range []string{".items.jsonl", ".audit.jsonl", ".changes.jsonl", ".shell.jsonl", ".json", ".lock", ".zst", "usage.jsonl", "history.jsonl", "gateway.token", "credentials.json", "FORMAT"} {
			if strings.HasSuffix(p, kind) {
				seen[kind] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{".items.jsonl", ".audit.jsonl", ".changes.jsonl", ".shell.jsonl", ".json", ".lock", ".zst", "usage.jsonl", "history.jsonl", "gateway.token", "credentials.json", "FORMAT"} {
		if !seen[kind] {
			t.Errorf("no %s file was written: the test does not cover it", kind)
		}
	}
}

// TestWorkspacePermissionsUnderUmask077: on the real disk under umask 077,
// a file the write tool creates is 0600 and its new folder 0700; a 0600
// file a tool removed comes back 0600 from undo, and one that was 0644
// comes back 0644 (the recorded bits, not the umask). The umask is the
// process's: this test must not run in parallel with others.
func TestWorkspacePermissionsUnderUmask077(t *testing.T) {
	ctx := context.Background()
	defer syscall.Umask(syscall.Umask(0o077))
	store, err := engine.Open(filepath.Join(t.TempDir(), "home"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	dir := t.TempDir()
	ws, err := store.Workspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := ws.Create(engine.SessionOptions{})
	defer s.Close()
	if _, err := s.ToolWrite(ctx, "new/a.txt", []byte("a")); err != nil {
		t.Fatal(err)
	}
	wantPerm := func(rel string, want os.FileMode) {
		t.Helper()
		fi, err := os.Lstat(filepath.Join(dir, rel))
		if err != nil || fi.Mode().Perm() != want {
			t.Fatalf("%s: %v %v, want %04o", rel, fi, err, want)
		}
	}
	wantPerm("new/a.txt", 0o600)
	wantPerm("new", 0o700)
	for name, perm := range map[string]os.FileMode{".env": 0o600, "pub.txt": 0o644} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), perm); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, perm)
		if _, err := s.ToolRm(ctx, name); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Undo(ctx); err != nil {
			t.Fatal(err)
		}
		wantPerm(name, perm)
	}
}
