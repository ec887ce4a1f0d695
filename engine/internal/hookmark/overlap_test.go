package hookmark

import (
	"encoding/json"
	"testing"
	"time"

	"cairn/engine/internal/changes"
)

// Decode reads either kind of marker as the overlap rules see it, and
// nothing that is not a whole marker of its kind.
func TestDecode(t *testing.T) {
	id := changes.NewSnapID(time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC))
	exec := func(f func(*Exec)) []byte {
		p := Exec{V: 1, Kind: KindExec, Tool: "exec", Call: "c1", ID: id, Scope: "paths", Paths: []string{"a.txt"}}
		p.Tree.SHA256 = "ab"
		if f != nil {
			f(&p)
		}
		b, _ := json.Marshal(p)
		return b
	}
	edit := func(files []changes.FileChange) []byte {
		b, _ := json.Marshal(Change{V: 1, Tool: "write", Call: "c2", Files: files})
		return b
	}
	one := []changes.FileChange{{Path: "b.txt"}, {Path: "c/d.txt"}}

	m := Decode(exec(nil))
	if m == nil || !m.Exec || m.Scope.Workspace || len(m.Scope.Paths) != 1 || m.Scope.Paths[0] != "a.txt" ||
		m.TreeSum != "ab" || m.Member.ID != id || m.Member.Call != "c1" {
		t.Fatalf("exec marker of paths: %+v", m)
	}
	if m := Decode(exec(func(p *Exec) { p.Scope, p.Paths = "workspace", nil })); m == nil || !m.Scope.Workspace {
		t.Fatalf("exec marker of the workspace: %+v", m)
	}
	m = Decode(edit(one))
	if m == nil || m.Exec || len(m.Scope.Paths) != 2 || m.Scope.Paths[1] != "c/d.txt" || len(m.Files) != 2 || m.Member.Call != "c2" {
		t.Fatalf("file edit marker: %+v", m)
	}
	for name, b := range map[string][]byte{
		"not JSON":          []byte("{"),
		"exec, bad scope":   exec(func(p *Exec) { p.Scope = "none" }),
		"exec, bad id":      exec(func(p *Exec) { p.ID = "x" }),
		"exec, version 2":   exec(func(p *Exec) { p.V = 2 }),
		"edit with no file": edit(nil),
	} {
		if m := Decode(b); m != nil {
			t.Errorf("%s: read as %+v", name, m)
		}
	}
}
