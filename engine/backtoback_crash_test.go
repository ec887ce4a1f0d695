package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"testing"

	"cairn/internal/vfs"
	"cairn/journal"
)

// TestBackToBackToolWritesCrashAtEverySync runs the tool writes of one turn
// back to back (one file twice in a row, two files of one folder, a file of
// another folder), then the Commit that ends the turn, and cuts the power at
// each of their sync points in turn: cleanly, and for a few seeds with a
// random share of the unsynced changes surviving. Each write's change line
// is synced while the folder sync of the write before it is under way, and
// the test holds that folder sync back until the next line has been synced
// (syncGate), so every sync point of the overlapped order is met: among
// them a crash that loses the rename of a write that returned while the
// next write's line is durable, leaving two changes unmade. Then it checks
// the crash guarantee of the file tools: the files hold the first k writes,
// where k is at least the writes that had returned less one and at most
// one more than had returned (the write under way); all of them once
// Commit returned; no file is partial. The session, opened again, lists
// exactly those k changes (recovery judged the two newest change lines
// together: for the same file twice, a file as the first's pre-image means
// both unmade), and undoing the newest puts back what was there before it.
// It fails unless it met, for each pair of writes in a row, the crash that
// unmade both.
func TestBackToBackToolWritesCrashAtEverySync(t *testing.T) {
	ctx := context.Background()
	paths := []string{"src/a.txt", "src/a.txt", "src/b.txt", "lib/c.txt", "src/a.txt"}
	content := func(i int) []byte { // write i's content; 10,000 bytes, so the pre-image is inline
		return []byte(strings.Repeat(fmt.Sprintf("write %d of the turn\n", i), 500))
	}
	initial := map[string][]byte{}
	for _, p := range paths {
		initial[p] = []byte(strings.Repeat("the content before the turn: "+p+"\n", 300))
	}
	// after(k) is what each file holds once the first k writes are made.
	after := func(k int) map[string][]byte {
		m := map[string][]byte{}
		for p, b := range initial {
			m[p] = b
		}
		for i := range k {
			m[paths[i]] = content(i)
		}
		return m
	}
	dir := t.TempDir()
	points := 0
	bothUnmade := map[int]bool{} // the pairs (write i-1, write i) a crash unmade together
	for n := 0; ; n++ {
		completed := false
		for seed := range 3 {
			mem := vfs.NewMem()
			gate := newSyncGate()
			wsfs := WithWorkspaceFS(func(string) (vfs.FS, error) { return gatedWorkspace{mem, gate}, nil })
			st, err := OpenFS(gatedStore{mem, gate}, "/mem", wsfs)
			if err != nil {
				t.Fatal(err)
			}
			ws := must(st.Workspace(dir))(t)
			s := ws.Create(SessionOptions{})
			must(s.ToolWrite(ctx, "src/warm.txt", []byte("materializes the session")))(t)
			must(0, s.Commit(ctx))(t)
			for p, b := range initial {
				if err := mem.MkdirAll(p[:strings.LastIndexByte(p, '/')], vfs.DirPerm); err != nil {
					t.Fatal(err)
				}
				if err := vfs.WriteFileAtomic(mem, p, b); err != nil {
					t.Fatal(err)
				}
			}
			for _, d := range []string{"src", "lib", "."} {
				if err := mem.SyncDir(d); err != nil {
					t.Fatal(err)
				}
			}
			gate.setOpen(false)
			mem.FailAfterSyncs(n)
			returned := 0
			for i, p := range paths {
				if _, err = s.ToolWrite(ctx, p, content(i)); err != nil {
					break
				}
				returned++
			}
			gate.setOpen(true) // the last write's folder sync has no next line to wait for
			if err == nil {
				err = s.Commit(ctx) // the end of the turn: every write is durable
			}
			if err != nil && !errors.Is(err, vfs.ErrCrashed) {
				t.Fatalf("sync point %d: %v", n, err)
			}
			completed = err == nil
			crashBySeed(mem, n, seed)
			s.Close()
			st.Close()
			lines := turnChangeLines(t, mem, changesName(ws.dir, s.ID()))

			where := fmt.Sprintf("sync point %d seed %d (%d writes returned)", n, seed, returned)
			got := map[string][]byte{}
			for _, p := range paths {
				b, err := vfs.ReadFile(mem, p)
				if err != nil {
					t.Fatalf("%s: %s: %v", where, p, err)
				}
				got[p] = b
			}
			k := -1
			for j := len(paths); j >= 0; j-- {
				if sameFiles(got, after(j)) {
					k = j
					break
				}
			}
			switch {
			case k < 0:
				t.Fatalf("%s: the files hold no prefix of the writes (a partial file, or a change lost behind a later one)", where)
			case completed && seed == 0 && k != len(paths):
				t.Fatalf("%s: the turn ended, yet only %d of %d writes are there", where, k, len(paths))
			case k < returned-1:
				t.Fatalf("%s: %d writes are there: more than the newest change was unmade", where, k)
			case k > returned+1:
				t.Fatalf("%s: %d writes are there, more than were made", where, k)
			case lines > returned+1:
				t.Fatalf("%s: %d change lines of the turn", where, lines)
			}
			if returned > 0 && k == returned-1 && lines == returned+1 {
				bothUnmade[returned] = true
			}

			st = must(OpenFS(mem, "/mem", wsfs))(t)
			ws = must(st.Workspace(dir))(t)
			s2, err := ws.Open(ctx, s.ID(), SessionOptions{})
			if err != nil {
				t.Fatalf("%s: open: %v", where, err)
			}
			l := must(s2.Snapshots(ctx))(t)
			listed := 0
			for _, sn := range l.Snapshots {
				if sn.Applied && len(sn.Files) == 1 && !strings.HasSuffix(sn.Files[0].Path, "warm.txt") {
					listed++
				}
			}
			if listed != k {
				t.Fatalf("%s: the files hold %d writes, the session lists %d changes", where, k, listed)
			}
			if k > 0 {
				must(s2.Undo(ctx))(t)
				want := after(k - 1)[paths[k-1]]
				if b, _ := vfs.ReadFile(mem, paths[k-1]); !bytes.Equal(b, want) {
					t.Fatalf("%s: undoing write %d gave %d bytes, not what was there before it", where, k-1, len(b))
				}
			}
			s2.Close()
			st.Close()
			if completed {
				break
			}
		}
		if completed {
			break
		}
		points++
		if n > 400 {
			t.Fatal("the turn never completed")
		}
	}
	if points < 2*len(paths) { // a change line and a folder sync a write, at least
		t.Fatalf("only %d sync points", points)
	}
	for i := 1; i < len(paths); i++ {
		if !bothUnmade[i] {
			t.Errorf("no crash unmade writes %d (%s) and %d (%s) together", i-1, paths[i-1], i, paths[i])
		}
	}
	t.Logf("%d sync points", points)
}

// turnChangeLines counts the change lines of a turn's writes in the changes
// journal name (the warm-up write's left out).
func turnChangeLines(t *testing.T, fsys vfs.FS, name string) int {
	n := 0
	_, err := journal.Read(fsys, name, func(b []byte) error {
		var l struct {
			Kind  string `json:"kind"`
			Files []struct {
				Path string `json:"path"`
			} `json:"files"`
		}
		if json.Unmarshal(b, &l) == nil && l.Kind == "change" && len(l.Files) == 1 && !strings.HasSuffix(l.Files[0].Path, "warm.txt") {
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// syncGate holds back the folder syncs of the workspace (gatedWorkspace)
// while it is closed: the j-th since it closed waits until the changes
// journal has been synced j+1 times (gatedStore), so the folder sync of
// each tool write runs after the next write's change line, the widest the
// overlap gets. A write or sync of the journal that failed counts too:
// past the crash point no line will be synced. Open, it holds nothing
// back.
type syncGate struct {
	mu        sync.Mutex
	cond      *sync.Cond
	lineSyncs int // since the gate closed
	dirSyncs  int // since the gate closed
	open      bool
}

// newSyncGate returns an open gate.
func newSyncGate() *syncGate {
	g := &syncGate{open: true}
	g.cond = sync.NewCond(&g.mu)
	return g
}

func (g *syncGate) setOpen(open bool) {
	g.mu.Lock()
	g.open, g.lineSyncs, g.dirSyncs = open, 0, 0
	g.mu.Unlock()
	g.cond.Broadcast()
}

func (g *syncGate) lineSynced() {
	g.mu.Lock()
	g.lineSyncs++
	g.mu.Unlock()
	g.cond.Broadcast()
}

func (g *syncGate) waitLine() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.dirSyncs++
	for j := g.dirSyncs; !g.open && g.lineSyncs <= j; {
		g.cond.Wait()
	}
}

// gatedWorkspace is the workspace's files, its folder syncs held back.
type gatedWorkspace struct {
	*vfs.Mem
	g *syncGate
}

func (w gatedWorkspace) SyncDir(name string) error {
	w.g.waitLine()
	return w.Mem.SyncDir(name)
}

// gatedStore is the store's files, telling the gate of each sync of a
// changes journal.
type gatedStore struct {
	*vfs.Mem
	g *syncGate
}

func (s gatedStore) OpenFile(name string, flag int, perm fs.FileMode) (vfs.File, error) {
	f, err := s.Mem.OpenFile(name, flag, perm)
	if !strings.HasSuffix(name, ".changes.jsonl") {
		return f, err
	}
	if err != nil { // past the crash point: no line will be synced
		s.g.lineSynced()
		return f, err
	}
	return gatedJournal{f, s.g}, nil
}

type gatedJournal struct {
	vfs.File
	g *syncGate
}

func (f gatedJournal) Write(b []byte) (int, error) {
	n, err := f.File.Write(b)
	if err != nil { // past the crash point: no line will be synced
		f.g.lineSynced()
	}
	return n, err
}

func (f gatedJournal) Sync() error {
	defer f.g.lineSynced()
	return f.File.Sync()
}

func sameFiles(a, b map[string][]byte) bool {
	for p, x := range b {
		if !bytes.Equal(a[p], x) {
			return false
		}
	}
	return true
}
