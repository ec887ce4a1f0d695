package engine

import (
	"context"
	"io/fs"
	"os"
	"strings"
	"sync"
	"testing"

	"cairn/internal/vfs"
)

// TestEndOfTurnCloseLineWaitsForUndo: the end of a turn (Commit) runs
// while an undo in another goroutine is putting its files back. The close
// line the end of the turn writes once the turn's folders are synced says
// every change before it was made; it must not follow the undo's line
// while the undo's files are not all put back, else a crash after the
// line reached the disk leaves the undo half made and no owner finishes
// it (finishRestore). Opened again after such a crash, the file is as the
// stack says.
func TestEndOfTurnCloseLineWaitsForUndo(t *testing.T) {
	ctx := context.Background()
	mem := vfs.NewMem()
	g := &raceGates{readAt: make(chan struct{}), read: make(chan struct{}), itemsAt: make(chan struct{}), itemsSync: make(chan struct{}), renameAt: make(chan struct{}), rename: make(chan struct{})}
	wsfs := WithWorkspaceFS(func(string) (vfs.FS, error) { return raceWorkspace{mem, g}, nil })
	st := must(OpenFS(raceStore{mem, g}, "/mem", wsfs))(t)
	dir := t.TempDir()
	ws := must(st.Workspace(dir))(t)
	if err := vfs.WriteFileAtomic(mem, "a.txt", []byte("a0")); err != nil {
		t.Fatal(err)
	}
	if err := mem.SyncDir("."); err != nil {
		t.Fatal(err)
	}
	s := ws.Create(SessionOptions{})
	must(s.Append(ctx, Item{Type: User, Text: "edit"}))(t)
	must(0, s.EndTurn(ctx, Turn{}))(t)
	must(s.ToolWrite(ctx, "a.txt", []byte("a1")))(t)
	must(s.Append(ctx, Item{Type: User, Text: "undo it"}))(t)
	id := s.ID()

	g.arm()
	undone := make(chan error, 1)
	go func() { _, err := s.Undo(ctx); undone <- err }()
	<-g.readAt // the undo reads the file it keeps, its line not written yet
	committed := make(chan error, 1)
	go func() { committed <- s.Commit(ctx) }() // its items sync waits for the undo's rename
	<-g.itemsAt                                // the turn's folders are being synced
	close(g.read)
	<-g.renameAt // the undo's line is written; its file is not put back yet
	close(g.itemsSync)
	if err := <-committed; err != nil {
		t.Fatal(err)
	}
	// The kernel may write the journal's pages back at any time: the
	// crash keeps what was appended so far.
	if f, err := mem.OpenFile(changesName(ws.dir, id), os.O_RDWR, 0); err == nil {
		f.Sync()
		f.Close()
	}
	mem.Crash()
	close(g.rename)
	<-undone
	s.Close()
	st.Close()

	st = must(OpenFS(mem, "/mem", WithWorkspaceFS(func(string) (vfs.FS, error) { return mem, nil })))(t)
	defer st.Close()
	ws = must(st.Workspace(dir))(t)
	s = must(ws.Open(ctx, id, SessionOptions{}))(t)
	defer s.Close()
	l := must(s.Snapshots(ctx))(t)
	b := must(vfs.ReadFile(mem, "a.txt"))(t)
	want := "a1"
	if l.Cursor == 0 {
		want = "a0"
	}
	if string(b) != want {
		t.Fatalf("a.txt holds %q, the stack has %d of %d changes applied", b, l.Cursor, len(l.Snapshots))
	}
}

// raceGates holds back, once armed, the first read of a.txt (signalling
// readAt) until read is closed, the sync of a session's items journal
// (signalling itemsAt) until itemsSync is closed, and the workspace's rename onto a.txt (signalling
// renameAt) until rename is closed.
type raceGates struct {
	mu        sync.Mutex
	armed     bool
	readAt    chan struct{}
	readOnce  sync.Once
	read      chan struct{}
	itemsAt   chan struct{}
	itemsOnce sync.Once
	itemsSync chan struct{}
	renameAt  chan struct{}
	rename    chan struct{}
	once      sync.Once
}

func (g *raceGates) arm() {
	g.mu.Lock()
	g.armed = true
	g.mu.Unlock()
}

func (g *raceGates) isArmed() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.armed
}

type raceWorkspace struct {
	*vfs.Mem
	g *raceGates
}

func (w raceWorkspace) Rename(oldname, newname string) error {
	if newname == "a.txt" && w.g.isArmed() {
		w.g.once.Do(func() { close(w.g.renameAt) })
		<-w.g.rename
	}
	return w.Mem.Rename(oldname, newname)
}

func (w raceWorkspace) OpenFile(name string, flag int, perm fs.FileMode) (vfs.File, error) {
	if name == "a.txt" && flag == os.O_RDONLY && w.g.isArmed() {
		w.g.readOnce.Do(func() { close(w.g.readAt) })
		<-w.g.read
	}
	return w.Mem.OpenFile(name, flag, perm)
}

type raceStore struct {
	*vfs.Mem
	g *raceGates
}

func (s raceStore) OpenFile(name string, flag int, perm fs.FileMode) (vfs.File, error) {
	f, err := s.Mem.OpenFile(name, flag, perm)
	if err != nil || !strings.HasSuffix(name, ".items.jsonl") {
		return f, err
	}
	return raceItems{f, s.g}, nil
}

type raceItems struct {
	vfs.File
	g *raceGates
}

func (f raceItems) Sync() error {
	if f.g.isArmed() {
		f.g.itemsOnce.Do(func() { close(f.g.itemsAt) })
		<-f.g.itemsSync
	}
	return f.File.Sync()
}
