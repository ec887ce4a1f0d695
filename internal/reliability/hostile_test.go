package reliability

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"cairn/engine"
	"cairn/internal/vfs"
)

// swapFS is the workspace's real disk (os.Root), but the first time cairn
// touches a file under sub/, the folder sub is swapped for a symbolic link
// to a folder outside the workspace: a check-then-use race won by the
// attacker every time.
type swapFS struct {
	*vfs.Disk
	dir, outside string
	sw           *swapper // shared by every FS the engine opens for one test
}

// swapper swaps the folder once, whichever FS of the test gets there first.
// The swap (a rename, then a link) holds mu, and every other operation
// waits on it, so none runs between the two steps: cairn staging a file
// concurrently would otherwise recreate sub in the gap and make the
// attacker's link fail.
type swapper struct {
	once    sync.Once
	mu      sync.RWMutex
	swapped atomic.Bool
}

// hold keeps an operation that does not trigger the swap outside it; call
// the returned func when the operation is over.
func (s *swapFS) hold() func() {
	s.sw.mu.RLock()
	return s.sw.mu.RUnlock
}

func (s *swapFS) swap(name string) {
	if !strings.HasPrefix(name, "sub/") {
		return
	}
	s.sw.once.Do(func() {
		s.sw.mu.Lock()
		defer s.sw.mu.Unlock()
		os.Rename(filepath.Join(s.dir, "sub"), filepath.Join(s.dir, "sub-moved"))
		if os.Symlink(s.outside, filepath.Join(s.dir, "sub")) == nil {
			s.sw.swapped.Store(true)
		}
	})
}

func (s *swapFS) OpenFile(name string, flag int, perm fs.FileMode) (vfs.File, error) {
	s.swap(name)
	return s.Disk.OpenFile(name, flag, perm)
}

func (s *swapFS) Rename(a, b string) error   { s.swap(b); return s.Disk.Rename(a, b) }
func (s *swapFS) Exchange(a, b string) error { s.swap(b); return s.Disk.Exchange(a, b) }
func (s *swapFS) Remove(name string) error   { s.swap(name); return s.Disk.Remove(name) }

func (s *swapFS) Stat(name string) (fs.FileInfo, error)  { defer s.hold()(); return s.Disk.Stat(name) }
func (s *swapFS) Lstat(name string) (fs.FileInfo, error) { defer s.hold()(); return s.Disk.Lstat(name) }
func (s *swapFS) MkdirAll(name string, perm fs.FileMode) error {
	defer s.hold()()
	return s.Disk.MkdirAll(name, perm)
}
func (s *swapFS) Chmod(name string, mode fs.FileMode) error {
	defer s.hold()()
	return s.Disk.Chmod(name, mode)
}
func (s *swapFS) ReadDir(name string) ([]fs.DirEntry, error) {
	defer s.hold()()
	return s.Disk.ReadDir(name)
}

// snapshotDir returns every file under dir with its content.
func snapshotDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			b, _ := os.ReadFile(p)
			out[p] = string(b)
		}
		return nil
	})
	return out
}

func sameDir(t *testing.T, what string, before, after map[string]string) {
	t.Helper()
	if len(before) != len(after) {
		t.Fatalf("%s: the outside folder changed: %d files, now %d", what, len(before), len(after))
	}
	for p, c := range before {
		if after[p] != c {
			t.Fatalf("%s: %s outside the workspace was changed", what, p)
		}
	}
}

// TestFolderSwappedForLink: every file tool, undo and redo, with a folder
// swapped for a link between cairn's check and its use, leave the outside
// world untouched.
func TestFolderSwappedForLink(t *testing.T) {
	ctx := context.Background()
	tries := 0
	for _, op := range []string{"write", "edit", "rm", "undo", "redo"} {
		t.Run(op, func(t *testing.T) {
			project, outside := t.TempDir(), t.TempDir()
			os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("outside\n"), 0o600)
			os.WriteFile(filepath.Join(outside, "f.txt"), []byte("outside f\n"), 0o600)
			os.MkdirAll(filepath.Join(project, "sub"), 0o700)
			os.WriteFile(filepath.Join(project, "sub", "f.txt"), []byte("inside f\n"), 0o600)
			before := snapshotDir(t, outside)

			sw := &swapper{}
			var armed atomic.Bool
			store, err := engine.Open(filepath.Join(t.TempDir(), "home"), engine.WithWorkspaceFS(func(dir string) (vfs.FS, error) {
				d, err := vfs.OpenDisk(dir)
				if err != nil || !armed.Load() {
					return d, err
				}
				return &swapFS{Disk: d, dir: dir, outside: outside, sw: sw}, nil
			}))
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			ws, _ := store.Workspace(project)
			sess := ws.Create(engine.SessionOptions{})
			defer sess.Close()
			sess.Append(ctx, engine.Item{Type: engine.User, Text: "go"})
			if op == "undo" || op == "redo" {
				if _, err := sess.ToolWrite(ctx, "sub/f.txt", []byte("changed\n")); err != nil {
					t.Fatal(err)
				}
			}
			if op == "redo" {
				if _, err := sess.Undo(ctx); err != nil {
					t.Fatal(err)
				}
			}
			armed.Store(true)
			switch op {
			case "write":
				_, err = sess.ToolWrite(ctx, "sub/f.txt", []byte("written\n"))
			case "edit":
				_, err = sess.ToolEdit(ctx, "sub/f.txt", "inside", "edited")
			case "rm":
				_, err = sess.ToolRm(ctx, "sub/f.txt")
			case "undo":
				_, err = sess.Undo(ctx)
			case "redo":
				_, err = sess.Redo(ctx)
			}
			tries++
			if !sw.swapped.Load() {
				t.Fatalf("%s: the folder was never swapped (err %v)", op, err)
			}
			sameDir(t, op, before, snapshotDir(t, outside))
			// Nothing outside was read either: no stored object holds the
			// content of a file outside the workspace.
			for _, content := range before {
				sum := sha256.Sum256([]byte(content))
				oid := hex.EncodeToString(sum[:])
				for _, suffix := range []string{"", ".zst"} {
					if _, err := os.Stat(filepath.Join(ws.Folder(), "objects", oid[:2], oid[2:]+suffix)); err == nil {
						t.Fatalf("%s: a file outside the workspace was read into the object store", op)
					}
				}
			}
		})
	}
}

// TestHostileReferences: session references, item ids and payload names
// that try to leave the state folder are refused and change nothing.
func TestHostileReferences(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	home := filepath.Join(base, "home")
	victim := filepath.Join(base, "victim")
	os.MkdirAll(victim, 0o700)
	os.WriteFile(filepath.Join(victim, "x.json"), []byte("{}"), 0o600)
	before := snapshotDir(t, victim)
	store, err := engine.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ws, _ := store.Workspace(t.TempDir())
	sess := ws.Create(engine.SessionOptions{})
	sess.Append(ctx, engine.Item{Type: engine.User, Text: "hi"})
	sess.Close()

	refs := []string{"../../victim/x", "../victim/x", "/etc/passwd", filepath.Join(victim, "x"), "..", ".", "a/../../b",
		"\x00", strings.Repeat("../", 40) + "x", "sessions/../../x", "~", "*"}
	n := 0
	for _, ref := range refs {
		n++
		if id, err := ws.Resolve(ctx, ref); err == nil {
			t.Errorf("Resolve(%q) = %s", ref, id)
		}
		for _, call := range []func() error{
			func() error { _, err := ws.Open(ctx, ref, engine.SessionOptions{}); return err },
			func() error { _, err := ws.Read(ctx, ref); return err },
			func() error { _, err := ws.Fork(ctx, ref, ""); return err },
			func() error { _, err := ws.Snapshots(ctx, ref); return err },
			func() error { _, err := ws.ReadOutput(ctx, ref, "output"); return err },
			func() error { _, err := ws.ReadOutput(ctx, sess.ID(), ref); return err },
		} {
			n++
			if err := call(); err == nil {
				t.Errorf("a call with %q succeeded", ref)
			}
		}
		// Items naming a hostile parent are refused too.
		s2, err := ws.Open(ctx, sess.ID(), engine.SessionOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s2.Append(ctx, engine.Item{Type: engine.Assistant, Parent: ref, Text: "x"}); err == nil {
			t.Errorf("an item with parent %q was appended", ref)
		}
		if _, err := s2.Revert(ctx, ref, engine.RevertConversation); err == nil {
			t.Errorf("a revert to %q was accepted", ref)
		}
		s2.Close()
		n += 2
	}
	sameDir(t, "references", before, snapshotDir(t, victim))
	if _, err := os.Stat(filepath.Join(base, "x")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a file appeared outside the state folder")
	}
	t.Logf("hostile references tried: %d", n)
}

// TestHostileJournalLines: a journal line whose payload names a path instead
// of an oid, or an item whose parent is a path, cannot make a read leave the
// object store.
func TestHostileJournalLines(t *testing.T) {
	ctx := context.Background()
	store, err := engine.Open(filepath.Join(t.TempDir(), "home"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ws, _ := store.Workspace(t.TempDir())
	sess := ws.Create(engine.SessionOptions{})
	sess.Append(ctx, engine.Item{Type: engine.User, Text: "hi"})
	id := sess.ID()
	sess.Close()
	name := filepath.Join(ws.Folder(), "sessions", id+".items.jsonl")
	f, _ := os.OpenFile(name, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"v":1,"kind":"item","id":"i-evil","type":"assistant","payload":{"oid":"../../../../etc/passwd","size":10}}` + "\n")
	f.Close()
	// The session reads; the hostile item is unavailable, nothing read.
	v, err := ws.Read(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	tr := v.Transcript()
	evil := tr[len(tr)-1]
	if evil.ID != "i-evil" || evil.Text != "" || evil.Unavailable == nil || !strings.Contains(evil.Unavailable.Error, "bad object id") {
		t.Fatalf("a payload naming a path was read: %+v", evil)
	}
	rep, _ := store.Fsck(ctx)
	found := false
	for _, p := range rep.Problems {
		if strings.Contains(p.Problem, "bad object id") || strings.Contains(p.Problem, "passwd") {
			found = true
		}
	}
	if !found {
		t.Fatalf("fsck does not name the hostile line: %+v", rep.Problems)
	}
}
