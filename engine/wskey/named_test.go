package wskey

import (
	"testing"
	"time"

	"cairn/internal/vfs"
)

// Named finds the folder whose workspace.json names the path, under its
// own key or any other, and nothing for a path no folder names.
func TestNamed(t *testing.T) {
	fsys := vfs.NewMem()
	now := func() time.Time { return time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC) }
	for _, d := range []string{"ws/" + Key("/a"), "ws/moved-1", "ws/.tmp"} {
		if err := fsys.MkdirAll(d, vfs.DirPerm); err != nil {
			t.Fatal(err)
		}
	}
	if err := WriteInfo(fsys, "ws", Key("/a"), "/a", now); err != nil {
		t.Fatal(err)
	}
	if err := WriteInfo(fsys, "ws", "moved-1", "/b", now); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{"/a": Key("/a"), "/b": "moved-1"} {
		if k, ok := Named(fsys, "ws", p); !ok || k != want {
			t.Errorf("Named(%s) = %q, %v; want %q", p, k, ok, want)
		}
	}
	if k, ok := Named(fsys, "ws", "/c"); ok {
		t.Errorf("Named(/c) = %q, want none", k)
	}
}
