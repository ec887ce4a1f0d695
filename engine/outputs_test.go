package engine

// Tool outputs: ids, the cap, reading only from the owning session, search,
// copy and delete, crashes, faults, concurrent ids and orphan cleaning; long
// because each is a case of one small store with its fixtures above.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"cairn/engine/internal/durable"
	"cairn/engine/internal/outputs"
	"cairn/internal/vfs"
)

// memWorkspace is a store on an in-memory filesystem (wrapped in Faulty)
// with a clock the test moves, and a workspace in it.
type memEnv struct {
	mem    *vfs.Mem
	faulty *vfs.Faulty
	store  *Store
	ws     *Workspace
	now    time.Time
	mu     sync.Mutex
}

func newMemEnv(t *testing.T) *memEnv {
	t.Helper()
	// The clock starts after the real time: Mem's modification times only
	// move forward.
	e := &memEnv{mem: vfs.NewMem(), now: time.Now().Add(time.Hour).UTC().Truncate(time.Millisecond)}
	e.mem.SetClock(e.clock)
	// A made "workspaces" folder, durable: wskey.Resolve does not sync the
	// state folder's entry for it (reported).
	if err := e.mem.MkdirAll(workspacesDir, vfs.DirPerm); err != nil {
		t.Fatal(err)
	}
	if err := e.mem.SyncDir("."); err != nil {
		t.Fatal(err)
	}
	st := openStore(t, storeSpec{mem: e.mem, faults: true, clock: e.clock})
	e.faulty, e.store = st.faulty, st.Store
	e.ws = must(st.Workspace(t.TempDir()))(t)
	return e
}

func (e *memEnv) clock() time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.now
}

func (e *memEnv) advance(d time.Duration) {
	e.mu.Lock()
	e.now = e.now.Add(d)
	e.mu.Unlock()
}

// newSession creates a recorded session with one prompt.
func newSession(t *testing.T, ws *Workspace) *Session {
	t.Helper()
	s := ws.Create(SessionOptions{})
	if _, err := s.Append(context.Background(), Item{Type: User, Text: "hello"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func readOutput(t *testing.T, ws *Workspace, session, id string) string {
	t.Helper()
	rc, err := ws.ReadOutput(context.Background(), session, id)
	if err != nil {
		t.Fatalf("ReadOutput(%s): %v", id, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestOutputPutReadIDs(t *testing.T) {
	ctx := context.Background()
	_, ws := testStore(t)
	s := newSession(t, ws)
	want := map[string]string{}
	for _, c := range []struct{ producer, body, id string }{
		{"file_grep", "a\nb\n", "output-file-grep"},
		{"file_grep", "second", "output-file-grep-2"},
		{"shell-cargo-test", strings.Repeat("test ok\n", 10000), "output-cargo-test"},
		{"shell", "", "output-shell"},
		{"", "x", "output"},
		{"", "y", "output-2"},
	} {
		id, err := s.PutOutput(ctx, c.producer, strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		if id != c.id {
			t.Errorf("PutOutput(%q) id %q, want %q", c.producer, id, c.id)
		}
		want[id] = c.body
	}
	for id, body := range want {
		if got := readOutput(t, ws, s.ID(), id); got != body {
			t.Errorf("%s: read %d bytes, want %d", id, len(got), len(body))
		}
	}
	// Stored as a zstd frame at outputs/<session>/<id>.zst.
	raw, err := vfs.ReadFile(ws.s.fsys, path.Join(ws.dir, "outputs", s.ID(), "output-cargo-test.zst"))
	if err != nil {
		t.Fatal(err)
	}
	d, _ := zstd.NewReader(nil)
	plain, err := d.DecodeAll(raw, nil)
	if err != nil || string(plain) != want["output-cargo-test"] || len(raw) >= len(plain)/10 {
		t.Fatalf("stored frame: %d bytes -> %d, %v", len(raw), len(plain), err)
	}
}

func TestOutputOnlyFromItsSession(t *testing.T) {
	ctx := context.Background()
	_, ws := testStore(t)
	a, b := newSession(t, ws), newSession(t, ws)
	id, err := a.PutOutput(ctx, "file_read", strings.NewReader("secret of a"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws.ReadOutput(ctx, b.ID(), id); !errors.Is(err, ErrNotFound) {
		t.Fatalf("read from another session: %v", err)
	}
	if _, err := ws.SearchOutput(ctx, b.ID(), id, "secret"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("search from another session: %v", err)
	}
	if _, err := ws.ReadOutput(ctx, a.ID(), "output-nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing output: %v", err)
	}
	for _, bad := range []string{"../" + b.ID() + "/" + id, "Output", "", "a/b", "x.zst", "..", strings.Repeat("a", 65)} {
		if _, err := ws.ReadOutput(ctx, a.ID(), bad); !errors.Is(err, ErrBadInput) {
			t.Errorf("id %q: %v", bad, err)
		}
	}
	if _, err := ws.ReadOutput(ctx, "../x", id); !errors.Is(err, ErrBadInput) {
		t.Errorf("bad session: %v", err)
	}
	// A well-formed session id with no session.
	if _, err := ws.ReadOutput(ctx, newSessionID(), id); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown session: %v", err)
	}
}

func TestOutputCap(t *testing.T) {
	ctx := context.Background()
	if maxOutputSize != 100<<20 {
		t.Fatalf("maxOutputSize %d", maxOutputSize)
	}
	e := newMemEnv(t)
	s := newSession(t, e.ws)
	// The real cap: one byte over 100 MiB is refused, and nothing is left.
	_, err := s.PutOutput(ctx, "shell", io.LimitReader(zeros{}, maxOutputSize+1))
	if !errors.Is(err, ErrOutputTooLarge) || !errors.Is(err, ErrBadInput) {
		t.Fatalf("over the cap: %v", err)
	}
	ents, _ := e.mem.ReadDir(path.Join(e.ws.dir, "outputs", s.ID()))
	if len(ents) != 0 {
		t.Fatalf("a refused output left %d files", len(ents))
	}
	// Exactly the cap is kept.
	id, err := s.PutOutput(ctx, "shell", io.LimitReader(zeros{}, maxOutputSize))
	if err != nil || id != "output-shell" {
		t.Fatalf("at the cap: %q %v", id, err)
	}
	rc, err := e.ws.ReadOutput(ctx, s.ID(), id)
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, rc)
	rc.Close()
	if err != nil || n != maxOutputSize {
		t.Fatalf("read back %d bytes: %v", n, err)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// A frame that expands past the cap (planted, or written by a build with a
// larger cap) is refused on read rather than expanded without bound.
func TestOutputReadRefusesPastCap(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t)
	s := newSession(t, e.ws)
	id, err := s.PutOutput(ctx, "shell", strings.NewReader(strings.Repeat("z", 5000)))
	if err != nil {
		t.Fatal(err)
	}
	e.store.outputCap = 1000
	rc, err := e.ws.ReadOutput(ctx, s.ID(), id)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	if _, err := io.ReadAll(rc); !errors.Is(err, ErrBadInput) {
		t.Fatalf("read past the cap: %v", err)
	}
	if _, err := s.PutOutput(ctx, "shell", strings.NewReader(strings.Repeat("z", 1001))); !errors.Is(err, ErrOutputTooLarge) {
		t.Fatalf("put past a lowered cap: %v", err)
	}
}

func TestOutputSearch(t *testing.T) {
	ctx := context.Background()
	_, ws := testStore(t)
	s := newSession(t, ws)
	long := strings.Repeat("x", outputs.MaxMatchText+100) + "needle"
	body := "alpha needle\r\nbeta\nneedle gamma\n\n" + long + "\nlast needle"
	id, err := s.PutOutput(ctx, "file_grep", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	got, err := ws.SearchOutput(ctx, s.ID(), id, "needle")
	if err != nil {
		t.Fatal(err)
	}
	want := []OutputMatch{{Line: 1, Text: "alpha needle"}, {Line: 3, Text: "needle gamma"}, {Line: 5, Text: long[:outputs.MaxMatchText], Cut: true}, {Line: 6, Text: "last needle"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("matches:\n%v\nwant\n%v", got, want)
	}
	if got, err := ws.SearchOutput(ctx, s.ID(), id, "absent"); err != nil || len(got) != 0 {
		t.Fatalf("no match: %v %v", got, err)
	}
	if _, err := ws.SearchOutput(ctx, s.ID(), id, ""); !errors.Is(err, ErrBadInput) {
		t.Fatalf("empty text: %v", err)
	}
}

func TestOutputCopyAndDelete(t *testing.T) {
	ctx := context.Background()
	_, ws := testStore(t)
	parent, child := newSession(t, ws), newSession(t, ws)
	a, _ := parent.PutOutput(ctx, "file_read", strings.NewReader("aaa"))
	b, _ := parent.PutOutput(ctx, "file_read", strings.NewReader("bbb"))
	c, _ := parent.PutOutput(ctx, "web_fetch", strings.NewReader("ccc"))
	if err := ws.copyOutputs(ctx, parent.ID(), child.ID(), []string{a, c}); err != nil {
		t.Fatal(err)
	}
	if readOutput(t, ws, child.ID(), a) != "aaa" || readOutput(t, ws, child.ID(), c) != "ccc" {
		t.Fatal("copied outputs differ")
	}
	if _, err := ws.ReadOutput(ctx, child.ID(), b); !errors.Is(err, ErrNotFound) {
		t.Fatalf("an output off the path was copied: %v", err)
	}
	// Copying again is a no-op; a missing id is named, the rest still copied.
	err := ws.copyOutputs(ctx, parent.ID(), child.ID(), []string{"output-gone", b})
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "output-gone") {
		t.Fatalf("missing id: %v", err)
	}
	if readOutput(t, ws, child.ID(), b) != "bbb" {
		t.Fatal("b not copied next to a missing id")
	}
	// The child allocates after the kept ids.
	if id, _ := child.PutOutput(ctx, "file_read", strings.NewReader("x")); id != "output-file-read-3" {
		t.Fatalf("child id %q", id)
	}
	if err := ws.deleteOutputs(ctx, parent.ID()); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.ReadOutput(ctx, parent.ID(), a); !errors.Is(err, ErrNotFound) {
		t.Fatalf("after delete: %v", err)
	}
	if _, err := ws.s.fsys.Stat(path.Join(ws.dir, "outputs", parent.ID())); !vfs.IsNotExist(err) {
		t.Fatalf("folder left: %v", err)
	}
	if readOutput(t, ws, child.ID(), a) != "aaa" {
		t.Fatal("deleting the parent's outputs touched the child's")
	}
	if err := ws.deleteOutputs(ctx, parent.ID()); err != nil {
		t.Fatalf("second delete: %v", err)
	}
}

func TestOutputDurableAcrossCrash(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t)
	s := newSession(t, e.ws)
	id, err := s.PutOutput(ctx, "file_grep", strings.NewReader("kept"))
	if err != nil {
		t.Fatal(err)
	}
	e.mem.Crash()
	if got := readOutput(t, e.ws, s.ID(), id); got != "kept" {
		t.Fatalf("after a crash: %q", got)
	}
}

func TestOutputWriteFaults(t *testing.T) {
	ctx := context.Background()
	for _, op := range []vfs.Op{vfs.OpWrite, vfs.OpSync, vfs.OpRename, vfs.OpCreate} {
		t.Run(op.String(), func(t *testing.T) {
			e := newMemEnv(t)
			s := newSession(t, e.ws)
			e.faulty.Inject(vfs.Rule{Op: op, Path: "workspaces/*/outputs/*", Count: 1})
			e.faulty.Inject(vfs.Rule{Op: op, Path: "workspaces/*/outputs/*/*", Count: 1})
			if _, err := s.PutOutput(ctx, "shell", strings.NewReader("data")); err == nil {
				t.Fatal("a failed write returned no error")
			}
			ents, _ := e.mem.ReadDir(path.Join(e.ws.dir, "outputs", s.ID()))
			if len(ents) != 0 {
				t.Fatalf("a failed write left %v", ents)
			}
			e.faulty.Reset()
			id, err := s.PutOutput(ctx, "shell", strings.NewReader("data"))
			if err != nil || id != "output-shell" || readOutput(t, e.ws, s.ID(), id) != "data" {
				t.Fatalf("after the fault: %q %v", id, err)
			}
		})
	}
}

func TestOutputConcurrentIDs(t *testing.T) {
	ctx := context.Background()
	_, ws := testStore(t)
	s := newSession(t, ws)
	var wg sync.WaitGroup
	ids := make([]string, 16)
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id, err := s.PutOutput(ctx, "file_grep", bytes.NewReader(bytes.Repeat([]byte{byte('a' + i)}, 100000)))
			if err != nil {
				t.Error(err)
			}
			ids[i] = id
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for i, id := range ids {
		if seen[id] {
			t.Fatalf("id %q given twice", id)
		}
		seen[id] = true
		if got := readOutput(t, ws, s.ID(), id); got != strings.Repeat(string(rune('a'+i)), 100000) {
			t.Fatalf("%s holds another call's output", id)
		}
	}
}

func TestCleanOrphanOutputs(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t)
	live := newSession(t, e.ws)
	gone := newSession(t, e.ws)
	if _, err := live.PutOutput(ctx, "shell", strings.NewReader("live")); err != nil {
		t.Fatal(err)
	}
	if _, err := gone.PutOutput(ctx, "shell", strings.NewReader("orphan")); err != nil {
		t.Fatal(err)
	}
	// The session "gone" loses its journal (a delete that stopped half way).
	fsys := e.mem
	if err := fsys.Remove(itemsName(e.ws.dir, gone.ID())); err != nil {
		t.Fatal(err)
	}
	junk := path.Join(e.ws.dir, "outputs", "not-a-session")
	fsys.MkdirAll(junk, vfs.DirPerm)
	vfs.WriteFileAtomic(fsys, path.Join(junk, "x.zst"), []byte("x"))
	// A temp file of an interrupted write in the live session's folder.
	tmp := deadTemp(path.Join(e.ws.dir, "outputs", live.ID()), "output-shell-2.zst")
	vfs.WriteFileAtomic(fsys, tmp, []byte("partial"))

	// Within the grace period nothing goes.
	removed, err := e.ws.cleanOrphanOutputs(ctx, e.clock().Add(outputGrace-time.Minute), outputGrace)
	if err != nil || len(removed) != 0 {
		t.Fatalf("inside the grace: %v %v", removed, err)
	}
	// A write into the orphan folder restarts its grace (newest mtime).
	e.advance(3 * 24 * time.Hour)
	vfs.WriteFileAtomic(fsys, path.Join(junk, "y.zst"), []byte("y"))
	removed, err = e.ws.cleanOrphanOutputs(ctx, e.clock().Add(outputGrace-24*time.Hour), outputGrace)
	if err != nil || fmt.Sprint(removed) != fmt.Sprint([]string{gone.ID()}) {
		t.Fatalf("after the grace of one: %v %v", removed, err)
	}
	removed, err = e.ws.cleanOrphanOutputs(ctx, e.clock().Add(outputGrace+time.Minute), outputGrace)
	if err != nil || fmt.Sprint(removed) != "[not-a-session]" {
		t.Fatalf("after the grace of the other: %v %v", removed, err)
	}
	if got := readOutput(t, e.ws, live.ID(), "output-shell"); got != "live" {
		t.Fatalf("a live session's output: %q", got)
	}
	if _, err := fsys.Stat(tmp); !vfs.IsNotExist(err) {
		t.Fatalf("an old temp file in a live folder was kept: %v", err)
	}
	if _, err := fsys.Stat(path.Join(e.ws.dir, "outputs", gone.ID())); !vfs.IsNotExist(err) {
		t.Fatalf("orphan folder left: %v", err)
	}
}

// Opening a session runs the cleanup (once per workspace and process).
func TestCleanOrphanOutputsOnOpen(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t)
	keep := newSession(t, e.ws)
	orphan := path.Join(e.ws.dir, "outputs", newSessionID())
	e.mem.MkdirAll(orphan, vfs.DirPerm)
	vfs.WriteFileAtomic(e.mem, path.Join(orphan, "output.zst"), []byte("x"))
	id := keep.ID()
	keep.Close()
	e.advance(outputGrace + time.Hour)
	s, err := e.ws.Open(ctx, id, SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := e.mem.Stat(orphan); !vfs.IsNotExist(err) {
		t.Fatalf("open left the orphan: %v", err)
	}
}

// deleteOutputs removes every output of session, and its folder.
func (w *Workspace) deleteOutputs(ctx context.Context, session string) error {
	if !validSessionID(session) {
		return fmt.Errorf("%w: %q is not a session id", ErrBadInput, session)
	}
	if err := durable.RemoveFolder(ctx, w.s.fsys, outputDir(w.dir, session)); err != nil {
		return fmt.Errorf("engine: delete outputs of %s: %w", session, err)
	}
	return nil
}
