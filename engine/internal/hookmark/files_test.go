package hookmark

import (
	"encoding/json"
	"errors"
	"path"
	"strings"
	"testing"
	"time"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/errs"
	"cairn/internal/vfs"
)

// A plain call id names its marker; anything else is hashed, so no call
// id can reach outside the hooks folder or hide as a dot file.
func TestName(t *testing.T) {
	if got := Name("hooks/s", "toolu_1"); got != "hooks/s/toolu_1.json" {
		t.Fatalf("Name(toolu_1) = %q", got)
	}
	for _, call := range []string{"../x", ".hidden", "a/b", strings.Repeat("a", 129)} {
		got := Name("hooks/s", call)
		if path.Dir(got) != "hooks/s" || len(path.Base(got)) != 32+len(".json") {
			t.Errorf("Name(%q) = %q, want a hashed name in hooks/s", call, got)
		}
	}
}

// ReadChange takes a whole file edit marker and refuses, as ErrFormat,
// one of another version, a bad tool, no files or a bad path.
func TestReadChange(t *testing.T) {
	mk := func(f func(*Change)) []byte {
		p := Change{V: 1, Tool: "write", Files: []changes.FileChange{{Path: "a.txt"}}}
		f(&p)
		b, _ := json.Marshal(p)
		return b
	}
	p, err := ReadChange("m", mk(func(*Change) {}))
	if err != nil || p.Tool != "write" || len(p.Files) != 1 {
		t.Fatalf("ReadChange = %+v, %v", p, err)
	}
	for name, b := range map[string][]byte{
		"version":  mk(func(p *Change) { p.V = 2 }),
		"tool":     mk(func(p *Change) { p.Tool = "a b" }),
		"no files": mk(func(p *Change) { p.Files = nil }),
		"path":     mk(func(p *Change) { p.Files[0].Path = "../x" }),
		"json":     []byte("{"),
	} {
		if _, err := ReadChange("m", b); !errors.Is(err, errs.ErrFormat) {
			t.Errorf("%s: ReadChange err = %v, want ErrFormat", name, err)
		}
	}
}

// Sweep removes what is older than the cut but the files it keeps, and
// returns the shell command markers among them; newer ones stay.
func TestSweep(t *testing.T) {
	fsys := vfs.NewMem()
	start := time.Now().Add(24 * time.Hour) // after the times Mem handed out already
	now := start
	fsys.SetClock(func() time.Time { return now })
	dir := "hooks/s"
	if err := fsys.MkdirAll(dir, vfs.DirPerm); err != nil {
		t.Fatal(err)
	}
	ex := Exec{V: 1, Kind: KindExec, Tool: "exec", ID: changes.NewSnapID(start)}
	b, _ := json.Marshal(ex)
	write := func(name string, b []byte) {
		if err := vfs.WriteFileAtomic(fsys, path.Join(dir, name), b); err != nil {
			t.Fatal(err)
		}
	}
	write("old-exec.json", b)
	write("old-edit.json", []byte(`{"v":1,"tool":"write"}`))
	write("transcript.read", []byte("x"))
	now = start.Add(time.Hour)
	write("new-exec.json", b)

	stale, err := Sweep(fsys, dir, start.Add(time.Minute), "transcript.read")
	if err != nil || len(stale) != 1 || stale[0].ID != ex.ID {
		t.Fatalf("Sweep = %+v, %v; want the old exec marker", stale, err)
	}
	ents, _ := fsys.ReadDir(dir)
	var left []string
	for _, e := range ents {
		left = append(left, e.Name())
	}
	if strings.Join(left, " ") != "new-exec.json transcript.read" {
		t.Fatalf("left %v", left)
	}
	if _, err := Sweep(fsys, "hooks/none", now, "transcript.read"); err == nil {
		t.Fatal("Sweep of a missing folder: no error")
	}
}
