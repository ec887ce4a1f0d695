package engine

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"cairn/internal/vfs"
)

// opensUnder records the files opened under a folder named sessions, the
// folders of sessions listed, and the remote's list of objects read.
type opensUnder struct {
	vfs.FS
	mu     sync.Mutex
	opened []string
	listed []string
}

func (o *opensUnder) OpenFile(name string, flag int, perm fs.FileMode) (vfs.File, error) {
	if strings.Contains(name, "/sessions/") || strings.HasSuffix(name, "objects.txt") && flag == os.O_RDONLY {
		o.mu.Lock()
		o.opened = append(o.opened, name)
		o.mu.Unlock()
	}
	return o.FS.OpenFile(name, flag, perm)
}

func (o *opensUnder) ReadDir(name string) ([]fs.DirEntry, error) {
	if strings.HasSuffix(name, "/sessions") {
		o.mu.Lock()
		o.listed = append(o.listed, name)
		o.mu.Unlock()
	}
	return o.FS.ReadDir(name)
}

// TestSyncCostGrowsWithTheChange: after a first push, a sync that follows
// one turn in one session of many opens that session's files alone and
// lists no folder of sessions: the record of changed sessions names it.
// Nor does it read the list of every object sent. What it writes
// of its own state is that session's line, appended: the state of the
// others is neither read from its files nor written again.
func TestSyncCostGrowsWithTheChange(t *testing.T) {
	ctx := context.Background()
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	counted := &opensUnder{FS: s.fsys}
	s.fsys = counted
	if err := s.AddRemote(ctx, "origin", "file://"+filepath.ToSlash(t.TempDir())); err != nil {
		t.Fatal(err)
	}
	project := t.TempDir()
	var ids []string
	for range 12 {
		id, _ := aSession(t, s, project)
		ids = append(ids, id)
	}
	if rep, err := s.Sync(ctx, "", SyncOptions{}); err != nil || rep.Pushed.Sessions != len(ids) {
		t.Fatalf("the first push: %+v, %v", rep, err)
	}
	w, _ := s.Workspace(project)
	sess, err := w.Open(ctx, ids[5], SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sess.Append(ctx, Item{Type: User, Text: "one more"})
	if err := sess.EndTurn(ctx, Turn{Model: "m"}); err != nil {
		t.Fatal(err)
	}
	sess.Close()

	journal := filepath.Join(s.Home(), "remotes", "origin", "sessions.jsonl")
	before, err := os.ReadFile(journal)
	if err != nil {
		t.Fatal(err)
	}
	counted.mu.Lock()
	counted.opened, counted.listed = nil, nil
	counted.mu.Unlock()
	rep, err := s.Sync(ctx, "", SyncOptions{})
	if err != nil || rep.Pushed.Sessions != 1 {
		t.Fatalf("the sync after one turn: %+v, %v", rep, err)
	}
	after, _ := os.ReadFile(journal)
	if !bytes.HasPrefix(after, before) {
		t.Error("the sync after one turn rewrote the state of every session")
	}
	for _, line := range strings.Split(strings.TrimSpace(string(after[min(len(before), len(after)):])), "\n") {
		if !strings.Contains(line, ids[5]) {
			t.Errorf("the sync after one turn in %s wrote state %q", ids[5], line)
		}
	}
	if head, _ := os.ReadFile(filepath.Join(s.Home(), "remotes", "origin", "state.json")); bytes.Contains(head, []byte(ids[0])) {
		t.Error("state.json holds the state of sessions")
	}
	counted.mu.Lock()
	defer counted.mu.Unlock()
	for _, name := range counted.opened {
		if !strings.Contains(name, ids[5]) {
			t.Errorf("the sync after one turn in %s opened %s", ids[5], name)
		}
	}
	if len(counted.listed) > 0 {
		t.Errorf("the sync after one turn listed %v", counted.listed)
	}
	if len(counted.opened) == 0 {
		t.Error("the sync after one turn opened none of the changed session's files")
	}
}
