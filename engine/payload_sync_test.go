package engine

import (
	"context"
	"errors"
	"path"
	"syscall"
	"testing"

	"cairn/internal/vfs"
	"cairn/objects"
)

// TestPayloadFolderSyncFailureWrittenAgain: a payload whose object's folder
// sync failed is stored again by the next Put of the same text, even
// through another call of the session: the workspace keeps one object store,
// which remembers the failure. The second, acknowledged item survives a
// power loss.
func TestPayloadFolderSyncFailureWrittenAgain(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t)
	text := bigText("again")
	s := e.ws.Create(SessionOptions{})
	if _, err := s.Append(ctx, Item{Type: User, Text: "go"}); err != nil {
		t.Fatal(err)
	}
	oid := objects.Sum([]byte(text)).String()
	e.faulty.Inject(vfs.Rule{Op: vfs.OpSync, Path: path.Join(e.ws.dir, "objects", oid[:2]), Count: 1})
	if _, err := s.Append(ctx, Item{Type: Assistant, Text: text}); !errors.Is(err, syscall.EIO) {
		t.Fatalf("Append: %v, want EIO", err)
	}
	it, err := s.Append(ctx, Item{Type: Assistant, Text: text})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	e.mem.Crash()
	store, err := OpenFS(e.mem, "/mem")
	if err != nil {
		t.Fatal(err)
	}
	ws, err := store.Workspace(e.ws.Path())
	if err != nil {
		t.Fatal(err)
	}
	v, err := ws.Read(ctx, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	tr := v.Transcript()
	if last := tr[len(tr)-1]; last.ID != it.ID || last.Text != text {
		t.Fatalf("after the crash the acknowledged item is %s, %d bytes, unavailable %+v", last.ID, len(last.Text), last.Unavailable)
	}
}
