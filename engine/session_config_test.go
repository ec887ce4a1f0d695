package engine

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestConfigReadOncePerSession: a session reads config.json at its first
// file tool and keeps it: a later edit of the file, even a broken one, does
// not change what its tools do until ReloadConfig, which refuses a broken
// file and keeps the config the session had.
func TestConfigReadOncePerSession(t *testing.T) {
	e := newSnapEnv(t, `{"snapshots":{"enabled":true}}`)
	s := e.session()
	cfgPath := filepath.Join(e.store.Home(), "config.json")
	write := func(body string) {
		t.Helper()
		if err := os.WriteFile(cfgPath, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if a, err := s.ToolWrite(e.ctx, "a.txt", []byte("one")); err != nil || a.Snapshot == nil {
		t.Fatalf("first write: %+v, %v", a, err)
	}
	write(`{"snapshots":{"enabled":"nope"}}`)
	if a, err := s.ToolWrite(e.ctx, "a.txt", []byte("two")); err != nil || a.Snapshot == nil {
		t.Fatalf("write after config.json broke: %+v, %v; want the config read at the first tool", a, err)
	}
	if _, err := s.Undo(e.ctx); err != nil {
		t.Fatalf("undo after config.json broke: %v", err)
	}
	var ce *configError
	if err := s.ReloadConfig(); !errors.As(err, &ce) {
		t.Fatalf("reload of a broken config.json: err = %v, want *configError", err)
	}
	if a, err := s.ToolWrite(e.ctx, "a.txt", []byte("three")); err != nil || a.Snapshot == nil {
		t.Fatalf("write after a refused reload: %+v, %v", a, err)
	}
	write(`{"snapshots":{"enabled":false}}`)
	if a, err := s.ToolWrite(e.ctx, "a.txt", []byte("four")); err != nil || a.Snapshot == nil {
		t.Fatalf("write before reload: %+v, %v; want snapshots still on", a, err)
	}
	if err := s.ReloadConfig(); err != nil {
		t.Fatal(err)
	}
	if a, err := s.ToolWrite(e.ctx, "a.txt", []byte("five")); err != nil || a.Snapshot != nil {
		t.Fatalf("write after reload: %+v, %v; want no snapshot (snapshots off)", a, err)
	}
	e.want("a.txt", "five")
}
