package httpapi_test

import (
	"context"
	"testing"

	"cairn/engine"
	"cairn/httpapi/httpapitest"
)

// TestServerPatchSnapshot: an apply_patch change is one snapshot listing
// every file it touched, and one undo through the API puts them all back.
func TestServerPatchSnapshot(t *testing.T) {
	f := httpapitest.NewFixture(t)
	id := f.Session(f.WS, "patch")
	f.Write(id, "a.txt", "one\n")
	f.Write(id, "b.txt", "bee\n")
	ctx := context.Background()
	s, err := f.WS.Open(ctx, id, engine.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.ToolPatch(ctx, []byte("*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n*** Delete File: b.txt\n*** Add File: c.txt\n+sea\n*** End Patch\n"))
	s.Close()
	if err != nil {
		t.Fatal(err)
	}

	a := f.Do("GET", httpapitest.SnapshotsPath(id), f.Gateway, "")
	f.Want(a, 200, "")
	var l engine.SnapshotList
	a.JSON(t, &l)
	if len(l.Snapshots) != 3 {
		t.Fatalf("list: %s", a.Body)
	}
	p := l.Snapshots[2]
	if p.Tool != engine.ToolPatchName || len(p.Files) != 3 || !p.Files[0].Existed || !p.Files[1].Existed || p.Files[2].Existed {
		t.Fatalf("the patch's snapshot: %+v", p)
	}

	a = f.Do("POST", httpapitest.RestorePath(id), f.Gateway, "")
	f.Want(a, 200, "")
	var r engine.RestoreResult
	a.JSON(t, &r)
	if len(r.Steps) != 1 || len(r.Steps[0].Restored) != 2 || len(r.Steps[0].Removed) != 1 {
		t.Fatalf("undo: %s", a.Body)
	}
	if f.Read("a.txt") != "one\n" || f.Read("b.txt") != "bee\n" || f.Read("c.txt") != "<absent>" {
		t.Fatalf("after undo: a %q, b %q, c %q", f.Read("a.txt"), f.Read("b.txt"), f.Read("c.txt"))
	}
}
