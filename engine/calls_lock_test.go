package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"cairn/internal/vfs"
)

// TestCallLockOnDisk: the call lock a store keeps open holds off a file
// revert of any session, in this store or another, while any call runs,
// and only then; after the workspace folder is removed by hand, the next
// call makes it again and takes the lock on the new lock file, the one
// other stores open, also when it was removed while a call ran.
func TestCallLockOnDisk(t *testing.T) {
	ctx := context.Background()
	home, dir := t.TempDir(), t.TempDir()
	st := must(Open(home))(t)
	defer st.Close()
	st2 := must(Open(home))(t)
	defer st2.Close()
	ws := must(st.Workspace(dir))(t)
	ws2 := must(st2.Workspace(dir))(t)
	a, b := ws.Create(SessionOptions{}), ws.Create(SessionOptions{})
	other := ws2.Create(SessionOptions{})
	must(a.ToolWrite(ctx, "x.txt", []byte("x")))(t)

	alone := func(s *Session) error {
		l, err := s.lockCallsAlone("revert")
		if err == nil {
			l.Release()
		}
		return err
	}
	busy := func(when string) {
		t.Helper()
		for _, s := range []*Session{b, other} {
			if err := alone(s); !errors.Is(err, ErrRefused) {
				t.Fatalf("%s: a revert took the call lock while a call runs: %v", when, err)
			}
		}
	}
	free := func(when string) {
		t.Helper()
		for _, s := range []*Session{b, other} {
			if err := alone(s); err != nil {
				t.Fatalf("%s: no call runs, yet: %v", when, err)
			}
		}
	}

	end := must(a.beginCall(ctx))(t)
	end2 := must(a.beginCall(ctx))(t) // two calls: the lock is held until both end
	busy("two calls")
	end()
	busy("one call of two ended")
	end2()
	free("both ended")

	if err := os.RemoveAll(ws.Folder()); err != nil {
		t.Fatal(err)
	}
	end = must(a.beginCall(ctx))(t)
	if _, err := os.Stat(filepath.Join(ws.Folder(), "calls.lock")); err != nil {
		t.Fatalf("the call did not make the workspace folder again: %v", err)
	}
	busy("after the folder was removed")
	end()
	free("after the folder was removed, the call ended")
	must(a.ToolWrite(ctx, "x.txt", []byte("y")))(t)

	// Removed while a call runs: the next call locks the new file too.
	end = must(a.beginCall(ctx))(t)
	if err := os.RemoveAll(ws.Folder()); err != nil {
		t.Fatal(err)
	}
	end2 = must(b.beginCall(ctx))(t)
	if _, err := os.Stat(filepath.Join(ws.Folder(), "calls.lock")); err != nil {
		t.Fatalf("the second call did not make the workspace folder again: %v", err)
	}
	if err := alone(other); !errors.Is(err, ErrRefused) {
		t.Fatalf("a revert in another store took the new lock file while two calls run: %v", err)
	}
	end2()
	if err := alone(other); !errors.Is(err, ErrRefused) {
		t.Fatalf("a revert in another store took the new lock file while a call runs: %v", err)
	}
	end()
	if err := alone(other); err != nil {
		t.Fatalf("no call runs, yet: %v", err)
	}
}

// TestCallLockOutlivesStoreClose: a store closed while one of its calls
// still runs keeps the call lock until the call ends, as the call's own
// lock did: a file revert in another store is refused meanwhile, and
// allowed once the call ends.
func TestCallLockOutlivesStoreClose(t *testing.T) {
	ctx := context.Background()
	home, dir := t.TempDir(), t.TempDir()
	st := must(Open(home))(t)
	st2 := must(Open(home))(t)
	defer st2.Close()
	a := must(st.Workspace(dir))(t).Create(SessionOptions{})
	other := must(st2.Workspace(dir))(t).Create(SessionOptions{})
	must(a.ToolWrite(ctx, "x.txt", []byte("x")))(t)

	end := must(a.beginCall(ctx))(t)
	noErr(t, st.Close())
	if l, err := other.lockCallsAlone("revert"); !errors.Is(err, ErrRefused) {
		if err == nil {
			l.Release()
		}
		t.Fatalf("a revert took the call lock while a call of a closed store runs: %v", err)
	}
	end()
	l, err := other.lockCallsAlone("revert")
	if err != nil {
		t.Fatalf("the call ended, yet: %v", err)
	}
	l.Release()
}

// TestCallRefusedWithoutItsLock: a call whose workspace call lock cannot
// be taken for a reason other than a file revert (the lock file cannot be
// made or locked) is refused, naming why, and runs nothing: a file tool
// changes no file, a shell line does not run.
func TestCallRefusedWithoutItsLock(t *testing.T) {
	e := newRvEnvWith(t, nil, true)
	e.prompt("go")
	e.faulty.Inject(vfs.Rule{Op: vfs.OpLock, Path: "workspaces/*/calls.lock", Err: syscall.EACCES})
	_, err := e.s.ToolWrite(e.ctx, "a.txt", []byte("a1"))
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "call lock") {
		t.Fatalf("ToolWrite: %v; want a refusal naming the call lock", err)
	}
	_, err = e.s.Exec(e.ctx, "echo ran > b.txt", ExecOptions{})
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "call lock") {
		t.Fatalf("Exec: %v; want a refusal naming the call lock", err)
	}
	e.want(map[string]string{"a.txt": "<none>"})
	if _, err := os.Stat(filepath.Join(e.dir, "b.txt")); !os.IsNotExist(err) {
		t.Fatalf("the shell line ran: %v", err)
	}
	e.faulty.Reset()
	must(e.s.ToolWrite(e.ctx, "a.txt", []byte("a1")))(t)
	e.want(map[string]string{"a.txt": "a1"})
}
