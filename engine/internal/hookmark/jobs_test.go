package hookmark

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/overlap"
	"cairn/internal/vfs"
)

// LeftJobs lists the background jobs with a marker in the folder, not
// those known; DropJobs removes a job's marker and tree, returning the
// exec marker only of a job that ran.
func TestJobMarkers(t *testing.T) {
	fsys := vfs.NewMem()
	dir := "hooks/s"
	if err := fsys.MkdirAll(dir, vfs.DirPerm); err != nil {
		t.Fatal(err)
	}
	ex := Exec{V: 1, Kind: KindExec, Tool: "exec", ID: changes.NewSnapID(time.Now())}
	b, _ := json.Marshal(ex)
	for _, name := range []string{Name(dir, JobCall("a")), Name(dir, JobCall("b")), Name(dir, "toolu_1"),
		overlap.TreeName(Name(dir, JobCall("a")))} {
		if err := vfs.WriteFileAtomic(fsys, name, b); err != nil {
			t.Fatal(err)
		}
	}
	if got := LeftJobs(fsys, dir, []string{"b"}); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("LeftJobs = %v, want [a]", got)
	}
	if got := LeftJobs(fsys, "hooks/none", nil); got != nil {
		t.Fatalf("LeftJobs of a missing folder = %v", got)
	}
	if stale := DropJobs(fsys, dir, false, "b"); len(stale) != 0 {
		t.Fatalf("DropJobs of a job that did not run = %v", stale)
	}
	if stale := DropJobs(fsys, dir, true, "a", "gone"); len(stale) != 1 || stale[0].ID != ex.ID {
		t.Fatalf("DropJobs = %+v, want a's marker", stale)
	}
	ents, _ := fsys.ReadDir(dir)
	if len(ents) != 1 || ents[0].Name() != "toolu_1.json" {
		t.Fatalf("left %v, want only toolu_1.json", ents)
	}
}
