package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"sync"
	"testing"
	"time"

	"cairn/engine/internal/fstate"
	"cairn/internal/vfs"
	"cairn/journal"
)

// TestBackToBackToolWritesCrashAtEverySync runs the tool writes of one turn
// back to back (one file twice in a row, two files of one folder, a file of
// another folder), then the Commit that ends the turn, and cuts the power at
// each of their sync points in turn: cleanly, and for a few seeds with a
// random share of the unsynced changes surviving. It does so for writes of
// two sizes, which take the two ways a file tool makes its change durable
// (changes.Syncs):
//
//   - 10,000 bytes: the new content is in the change line, and the tool
//     leaves its folder's sync to the end of the turn. A crash may lose the
//     rename of any write that returned; the session opened again makes it
//     again from its line, unless its line is the newest (its tool may have
//     stopped before its write: it is unmade). So once opened, the files
//     hold the first k writes, and only the newest durable change line may
//     name a write not made. It fails unless it met, for each write but
//     the last two, a crash that lost it while a later line was durable,
//     and made it again on open.
//   - 20,000 bytes: the new content is not in the line. Each write's change
//     line is synced while the folder sync of the write before it is under
//     way, and the test holds that folder sync back until the next line has
//     been synced (syncGate), so every sync point of the overlapped order
//     is met: among them a crash that loses the rename of a write that
//     returned while the next write's line is durable, leaving two changes
//     unmade. The staged file's fsync, which the engine issues together
//     with the line's, is held back behind the line too for seeds 0 and 2,
//     so that the crash just after the line's sync is a fixed sync point;
//     seed 1 leaves the two to race (a staged file durable before its line
//     is a temp file the sweep removes). Then the files hold the first k writes, where k is at least
//     the writes that had returned less one. It fails unless it met, for
//     each pair of writes in a row, the crash that unmade both (recovery
//     judged the two newest change lines together: for the same file twice,
//     a file as the first's pre-image means both unmade).
//
// Either way all writes are there once Commit returned, no file is partial,
// the session opened again lists exactly those k changes, and undoing the
// newest puts back what was there before it.
func TestBackToBackToolWritesCrashAtEverySync(t *testing.T) {
	for _, size := range []int{10_000, 20_000} {
		t.Run(fmt.Sprint(size), func(t *testing.T) { backToBackCrashes(t, size) })
	}
}

func backToBackCrashes(t *testing.T, size int) {
	ctx := context.Background()
	redo := size <= fstate.MaxInline
	paths := []string{"src/a.txt", "src/a.txt", "src/b.txt", "lib/c.txt", "src/a.txt"}
	content := func(i int) []byte { // write i's content
		line := fmt.Sprintf("write %d of the turn\n", i)
		return []byte(strings.Repeat(line, size/len(line)+1)[:size])
	}
	initial := map[string][]byte{}
	for _, p := range paths {
		initial[p] = []byte(strings.Repeat("the content before the turn: "+p+"\n", 300))
	}
	seq := turnWrites{paths: paths, initial: initial, content: content}
	after, prefix := seq.after, seq.prefix
	dir := t.TempDir()
	points := 0
	bothUnmade := map[int]bool{} // the pairs (write i-1, write i) a crash unmade together
	redone := map[int]bool{}     // the writes a crash lost after they returned, made again on open
	for n := 0; ; n++ {
		completed := false
		for seed := range 3 {
			mem := vfs.NewMem()
			gate := newSyncGate()
			gate.stagedAfterLine = seed != 1
			wsfs := WithWorkspaceFS(func(string) (vfs.FS, error) { return gatedWorkspace{mem, gate}, nil })
			st, err := OpenFS(gatedStore{mem, gate}, "/mem", wsfs)
			if err != nil {
				t.Fatal(err)
			}
			ws := must(st.Workspace(dir))(t)
			s := ws.Create(SessionOptions{})
			must(s.ToolWrite(ctx, "src/warm.txt", []byte("materializes the session")))(t)
			must(0, s.Commit(ctx))(t)
			putDurably(t, mem, initial)
			gate.setOpen(redo) // the redo path syncs no folder until the end of the turn
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
			read := func() map[string][]byte {
				got := map[string][]byte{}
				for _, p := range paths {
					b, err := vfs.ReadFile(mem, p)
					if err != nil {
						t.Fatalf("%s: %s: %v", where, p, err)
					}
					got[p] = b
				}
				return got
			}
			got := read()
			for _, p := range paths { // no file is partial
				whole := bytes.Equal(got[p], initial[p])
				for i := range paths {
					whole = whole || (paths[i] == p && bytes.Equal(got[p], content(i)))
				}
				if !whole {
					t.Fatalf("%s: %s holds %d bytes, none of its contents", where, p, len(got[p]))
				}
			}
			k := prefix(got)
			switch {
			case lines > returned+1:
				t.Fatalf("%s: %d change lines of the turn", where, lines)
			case redo:
				// judged once the session is opened again
			case k < 0:
				t.Fatalf("%s: the files hold no prefix of the writes (a partial file, or a change lost behind a later one)", where)
			case completed && seed == 0 && k != len(paths):
				t.Fatalf("%s: the turn ended, yet only %d of %d writes are there", where, k, len(paths))
			case k < returned-1:
				t.Fatalf("%s: %d writes are there: more than the newest change was unmade", where, k)
			case k > returned+1:
				t.Fatalf("%s: %d writes are there, more than were made", where, k)
			}
			if !redo && returned > 0 && k == returned-1 && lines == returned+1 {
				bothUnmade[returned] = true
			}

			st = must(OpenFS(mem, "/mem", wsfs))(t)
			ws = must(st.Workspace(dir))(t)
			s2, err := ws.Open(ctx, s.ID(), SessionOptions{})
			if err != nil {
				t.Fatalf("%s: open: %v", where, err)
			}
			if redo {
				// Opened, only the newest change line may name a change
				// not made: the write under way, or the last that returned.
				now := read()
				if k = prefix(now); k < max(returned, lines)-1 || k > min(returned+1, lines) || (completed && k != len(paths)) {
					t.Fatalf("%s: opened again, the files hold %d writes (%d change lines)", where, k, lines)
				}
				if !sameFiles(now, got) {
					redone[returned] = true
				}
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
	if min := len(paths); !redo && points < 2*min || redo && points < min { // a change line a write, and a folder sync too on the ahead path
		t.Fatalf("only %d sync points", points)
	}
	for i := 1; i <= len(paths); i++ {
		if !redo && i < len(paths) && !bothUnmade[i] {
			t.Errorf("no crash unmade writes %d (%s) and %d (%s) together", i-1, paths[i-1], i, paths[i])
		}
		if redo && i >= 2 && !redone[i] {
			t.Errorf("no crash lost write %d (%s) after it returned, behind a later line", i-2, paths[i-2])
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
// back. With stagedAfterLine, the j-th file sync of the workspace (the
// staged content of write j, fstate.Stage) waits while closed until the
// changes journal has been synced j times: its write's line first.
type syncGate struct {
	mu              sync.Mutex
	cond            *sync.Cond
	lineSyncs       int // since the gate closed
	dirSyncs        int // since the gate closed
	fileSyncs       int // since the gate closed
	open            bool
	stagedAfterLine bool
}

// newSyncGate returns an open gate.
func newSyncGate() *syncGate {
	g := &syncGate{open: true}
	g.cond = sync.NewCond(&g.mu)
	return g
}

func (g *syncGate) setOpen(open bool) {
	g.mu.Lock()
	g.open, g.lineSyncs, g.dirSyncs, g.fileSyncs = open, 0, 0, 0
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

// waitStagedLine holds back the j-th file sync since the gate closed until
// the j-th line sync, unless the file's Mem has crashed (crashed polled):
// then no line may come, as when a tool stops before its line.
func (g *syncGate) waitStagedLine(crashed func() bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.fileSyncs++
	for j := g.fileSyncs; g.stagedAfterLine && !g.open && g.lineSyncs < j && !crashed(); {
		g.mu.Unlock()
		time.Sleep(50 * time.Microsecond)
		g.mu.Lock()
	}
}

// gatedWorkspace is the workspace's files, its folder syncs held back, and
// its file syncs when the gate says so.
type gatedWorkspace struct {
	*vfs.Mem
	g *syncGate
}

func (w gatedWorkspace) SyncDir(name string) error {
	w.g.waitLine()
	return w.Mem.SyncDir(name)
}

func (w gatedWorkspace) OpenFile(name string, flag int, perm fs.FileMode) (vfs.File, error) {
	f, err := w.Mem.OpenFile(name, flag, perm)
	if err != nil || flag&(os.O_WRONLY|os.O_RDWR) == 0 {
		return f, err
	}
	return gatedFile{f, w.g}, nil
}

type gatedFile struct {
	vfs.File
	g *syncGate
}

func (f gatedFile) Sync() error {
	f.g.waitStagedLine(func() bool {
		_, err := f.File.Stat()
		return errors.Is(err, vfs.ErrCrashed)
	})
	return f.File.Sync()
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

// turnWrites is the writes of a turn a crash test runs: write i puts
// content(i) in paths[i], over what initial held before the turn.
type turnWrites struct {
	paths   []string
	initial map[string][]byte
	content func(i int) []byte
}

// after is what each file holds once the first k writes are made.
func (w turnWrites) after(k int) map[string][]byte {
	m := map[string][]byte{}
	for p, b := range w.initial {
		m[p] = b
	}
	for i := range k {
		m[w.paths[i]] = w.content(i)
	}
	return m
}

// prefix is the k for which files hold after(k), or -1.
func (w turnWrites) prefix(files map[string][]byte) int {
	for j := len(w.paths); j >= 0; j-- {
		if sameFiles(files, w.after(j)) {
			return j
		}
	}
	return -1
}

func sameFiles(a, b map[string][]byte) bool {
	for p, x := range b {
		if !bytes.Equal(a[p], x) {
			return false
		}
	}
	return true
}

// putDurably writes files (path to content) and syncs their folders and
// the root: the state before a turn.
func putDurably(t *testing.T, mem *vfs.Mem, files map[string][]byte) {
	t.Helper()
	dirs := map[string]bool{".": true}
	for p, b := range files {
		dir := path.Dir(p)
		if err := mem.MkdirAll(dir, vfs.DirPerm); err != nil {
			t.Fatal(err)
		}
		if err := vfs.WriteFileAtomic(mem, p, b); err != nil {
			t.Fatal(err)
		}
		dirs[dir] = true
	}
	for d := range dirs {
		if err := mem.SyncDir(d); err != nil {
			t.Fatal(err)
		}
	}
}
