package engine

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"strconv"
	"sync"
	"testing"

	"cairn/internal/vfs"
)

// lettingGoFS is a store whose session lock file, read for its owner,
// shows a brief owner the first time and is empty from then on: the owner
// let go just after the first read.
type lettingGoFS struct {
	vfs.FS
	name  string
	mu    sync.Mutex
	reads int
}

func (f *lettingGoFS) OpenFile(name string, flag int, perm fs.FileMode) (vfs.File, error) {
	if name == f.name && flag == os.O_RDONLY {
		f.mu.Lock()
		f.reads++
		if f.reads > 1 {
			if w, err := f.FS.OpenFile(name, os.O_WRONLY|os.O_TRUNC, 0); err == nil {
				w.Close()
			}
		}
		f.mu.Unlock()
	}
	return f.FS.OpenFile(name, flag, perm)
}

// TestBusyBriefFromOneRead: a session held by a brief owner (a hook) is
// busy as a brief one even when the owner lets go while it is looked at,
// so a hook waits for it instead of saying the session is held open by
// a person. The pid and the word after it are one read of the lock file.
func TestBusyBriefFromOneRead(t *testing.T) {
	ctx := context.Background()
	mem := vfs.NewMem()
	gate := &lettingGoFS{FS: mem}
	st := must(OpenFS(gate, "/mem", WithWorkspaceFS(func(string) (vfs.FS, error) { return mem, nil })))(t)
	defer st.Close()
	ws := must(st.Workspace(t.TempDir()))(t)
	a := AgentSession{Agent: "claude-code", ID: "let-go"}
	s := must(ws.OpenAgent(ctx, a, SessionOptions{Brief: true}, true, 0))(t)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	id := ImportSessionID(a.Agent, a.ID)
	name := lockName(ws.dir, id)
	held, err := mem.Lock(name)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	if _, err := held.File().Write([]byte(strconv.Itoa(os.Getpid()) + " " + ownerBrief + "\n")); err != nil {
		t.Fatal(err)
	}
	gate.name = name
	l, err := ws.acquireAs(id, true)
	if err == nil {
		l.Release()
		t.Fatal("the lock was taken while another owner held it")
	}
	var busy *BusyError
	if !errors.As(err, &busy) || !busy.Brief || busy.PID != os.Getpid() {
		t.Fatalf("busy: %#v (%v), want a *BusyError of a brief owner, pid %d", busy, err, os.Getpid())
	}
}
