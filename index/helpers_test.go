package index

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"cairn/internal/vfs"
)

var ctx = context.Background()

const ws = "workspaces/-w" // the workspace folder the tests use

// onEachFS runs test against the real disk and the in-memory FS.
func onEachFS(t *testing.T, test func(t *testing.T, fsys vfs.FS)) {
	t.Run("disk", func(t *testing.T) { test(t, newDisk(t)) })
	t.Run("mem", func(t *testing.T) { test(t, vfs.NewMem()) })
}

func newDisk(t testing.TB) *vfs.Disk {
	t.Helper()
	d, err := vfs.OpenDisk(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func id(n int) string { return fmt.Sprintf("%08x-0000-4000-8000-%012x", n, n) }

var t0 = time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC)

// at is t0 plus n minutes.
func at(n int) time.Time { return t0.Add(time.Duration(n) * time.Minute) }

// rec is a record as the engine writes it, with the fields the index does
// not read as well.
func rec(n int, title string, updated time.Time) map[string]any {
	return map[string]any{
		"v": 1, "id": id(n), "path": "/w", "title": title, "title_source": "prompt",
		"created_at": t0.Format(timeLayout),
		"updated_at": updated.Format(timeLayout),
		"opened_at":  updated.Format(timeLayout),
		"head":       "i-123", "branch": "main", "build": "0.1.0-dev",
		"plan": nil, "spend": map[string]any{"usd": 0.12}, "trust": map[string]any{"rules": []string{"a"}},
		"allowed_commands": []string{"go test"}, "fork_of": nil, "tier": "full", "pinned": false,
		"counts": map[string]any{"items": n, "bytes": n * 100}, "journals": map[string]any{"items": n * 1000},
	}
}

func writeRec(t testing.TB, fsys vfs.FS, r map[string]any) {
	t.Helper()
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	writeRaw(t, fsys, r["id"].(string)+".json", string(data))
}

func writeRaw(t testing.TB, fsys vfs.FS, name, data string) {
	t.Helper()
	if err := fsys.MkdirAll(ws+"/sessions", vfs.DirPerm); err != nil {
		t.Fatal(err)
	}
	if err := vfs.WriteFileAtomic(fsys, ws+"/sessions/"+name, []byte(data)); err != nil {
		t.Fatal(err)
	}
}

// writeFast writes a record without syncing, for big fixtures.
func writeFast(t testing.TB, fsys vfs.FS, name string, data []byte) {
	t.Helper()
	f, err := fsys.OpenFile(ws+"/sessions/"+name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, vfs.FilePerm)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func remove(t testing.TB, fsys vfs.FS, name string) {
	t.Helper()
	if err := fsys.Remove(ws + "/sessions/" + name); err != nil {
		t.Fatal(err)
	}
}

// refresh runs Refresh and checks changed and how many records it parsed.
func refresh(t *testing.T, x *Index, wantChanged bool, wantParses int) {
	t.Helper()
	before := x.parses
	changed, err := x.Refresh(ctx)
	if err != nil {
		t.Fatalf("Refresh: %v", err)
	}
	if changed != wantChanged {
		t.Errorf("Refresh changed = %v, want %v", changed, wantChanged)
	}
	if got := x.parses - before; got != wantParses {
		t.Errorf("Refresh parsed %d records, want %d", got, wantParses)
	}
}

func ids(es []Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}

func titles(es []Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Title
	}
	return out
}

func contextWithCancel() (context.Context, context.CancelFunc) { return context.WithCancel(ctx) }

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
