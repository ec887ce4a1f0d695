package fileplan

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"cairn/internal/timefmt"
	"cairn/internal/vfs"
)

func write(t *testing.T, fsys vfs.FS, name, data string) {
	t.Helper()
	if err := vfs.MkdirAllDurable(fsys, name[:strings.LastIndex(name, "/")], vfs.DirPerm); err != nil {
		t.Fatal(err)
	}
	if err := vfs.WriteFileAtomic(fsys, name, []byte(data)); err != nil {
		t.Fatal(err)
	}
}

func read(fsys vfs.FS, name string) string {
	b, err := vfs.ReadFile(fsys, name)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

// A plan and the copies it makes survive a power loss once Write and Copy
// return; the originals stay until RemoveFrom, which is durable too.
func TestMoveSurvivesPowerLoss(t *testing.T) {
	ctx := context.Background()
	mem := vfs.NewMem()
	write(t, mem, "ws/sessions/s.items.jsonl", "items\n")
	write(t, mem, "ws/outputs/s/o-1", "output")
	p := &Plan{V: 1, Kind: "forget", Session: "s", Workspace: "ws", Path: "/w", At: timefmt.Mk(time.Now()), Stage: StageCopy,
		Files: []Pair{{"ws/sessions/s.items.jsonl", "trash/s/sessions/s.items.jsonl"}, {"ws/outputs/s/o-1", "trash/s/outputs/s/o-1"}}}
	if err := Write(mem, "plans", p); err != nil {
		t.Fatal(err)
	}
	if err := Copy(ctx, mem, p.Files); err != nil {
		t.Fatal(err)
	}
	mem.Crash()
	got, err := Read(mem, Name("plans", "s"))
	if err != nil || got.Stage != StageCopy || len(got.Files) != 2 {
		t.Fatalf("plan after a crash: %+v %v", got, err)
	}
	for _, f := range p.Files {
		if same, err := Same(mem, f.From, f.To); !same || err != nil {
			t.Fatalf("%s and its copy after a crash: %v %v (%q, %q)", f.From, same, err, read(mem, f.From), read(mem, f.To))
		}
	}
	if err := RemoveFrom(mem, p.Files); err != nil {
		t.Fatal(err)
	}
	if err := Done(mem, "plans", "s"); err != nil {
		t.Fatal(err)
	}
	mem.Crash()
	for _, f := range p.Files {
		if _, err := mem.Lstat(f.From); !vfs.IsNotExist(err) {
			t.Errorf("%s back after a crash: %v", f.From, err)
		}
	}
	if _, err := mem.Lstat(Name("plans", "s")); !vfs.IsNotExist(err) {
		t.Errorf("the plan is back after a crash: %v", err)
	}
	if read(mem, "trash/s/outputs/s/o-1") != "output" {
		t.Errorf("the copy: %q", read(mem, "trash/s/outputs/s/o-1"))
	}
}

// Same tells a copy from a file of another content, length or presence.
func TestSame(t *testing.T) {
	mem := vfs.NewMem()
	big := strings.Repeat("x", 100<<10)
	for name, data := range map[string]string{"d/a": big, "d/b": big, "d/c": big + "y", "d/e": big[:len(big)-1] + "z", "d/empty": "", "d/empty2": ""} {
		write(t, mem, name, data)
	}
	for _, c := range []struct {
		a, b string
		want bool
	}{{"d/a", "d/b", true}, {"d/a", "d/c", false}, {"d/c", "d/a", false}, {"d/a", "d/e", false}, {"d/empty", "d/empty2", true},
		{"d/a", "d/none", false}, {"d/none", "d/a", false}, {"d/none", "d/none2", true}, {"d/empty", "d/none", false}} {
		if got, err := Same(mem, c.a, c.b); got != c.want || err != nil {
			t.Errorf("Same(%s, %s) = %v %v, want %v", c.a, c.b, got, err, c.want)
		}
	}
}

// Read refuses what is not a plan: another version, another session's
// name, an unknown stage, not JSON.
func TestReadRefusesNonPlans(t *testing.T) {
	mem := vfs.NewMem()
	for name, data := range map[string]string{
		"plans/a.json": `{"v":2,"kind":"trim","session":"a","stage":"run"}`,
		"plans/b.json": `{"v":1,"kind":"trim","session":"a","stage":"run"}`,
		"plans/c.json": `{"v":1,"kind":"trim","session":"c","stage":"later"}`,
		"plans/d.json": `{"v":1,`,
	} {
		write(t, mem, name, data)
		if _, err := Read(mem, name); !errors.Is(err, ErrNotPlan) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
