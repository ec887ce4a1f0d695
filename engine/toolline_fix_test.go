package engine

// The file tools' fault cases (ENOSPC, EIO, crashes between the line and
// the file) with the faultEnv helper; long because each fault is a case.

import (
	"context"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"cairn/engine/internal/fstate"
	"cairn/internal/vfs"
)

// Regression tests of the line-first file tools.

// faultEnv is a store, with config (when not ""), and a workspace, both on
// one vfs.Mem behind one vfs.Faulty.
func faultEnv(t *testing.T, config string) (*vfs.Mem, *vfs.Faulty, *Store, *Workspace) {
	t.Helper()
	st := openStore(t, storeSpec{mem: vfs.NewMem(), faults: true, wsOnState: true, config: config})
	return st.mem, st.faulty, st.Store, must(st.Workspace(t.TempDir()))(t)
}

// TestReaderPutsBackHeldBranch: a reader hiding an unmade change puts back
// the undone branch its line ended, as the owner does: both list the same.
func TestReaderPutsBackHeldBranch(t *testing.T) {
	e := newSnapEnv(t, "")
	e.put("a.txt", "one\n")
	s := e.session()
	must(s.ToolWrite(e.ctx, "a.txt", []byte("two\n")))(t)
	must(s.Undo(e.ctx))(t)
	id := s.ID()
	s.Close()
	line := `{"v":1,"kind":"change","id":"mx00001-0000000a","seq":2,"at":"2026-01-01T00:00:00.000Z","tool":"write","scope":"paths","files":[{"path":"a.txt",` +
		`"before":{"sha256":"` + sumHex("one\n") + `","size":4,"mode":"file","data":"` + base64.StdEncoding.EncodeToString([]byte("one\n")) + `"},` +
		`"after":{"sha256":"` + sumHex("three\n") + `","size":6,"mode":"file"}}]}`
	e.plant(id, []string{line})
	reader := must(e.ws.Snapshots(e.ctx, id))(t)
	s = must(e.ws.Open(e.ctx, id, SessionOptions{}))(t)
	defer s.Close()
	owner := must(s.Snapshots(e.ctx))(t)
	if len(reader.Snapshots) != 1 || len(owner.Snapshots) != 1 || owner.Snapshots[0].Applied {
		t.Fatalf("reader %s, owner %s: want the undone write in both", propList(reader), propList(owner))
	}
	must(s.Redo(e.ctx))(t)
	e.want("a.txt", "two\n")
}

// TestReplacedFileRemoveFails: the old content a tool swapped out is
// removed in the background; when that fails, the end of the turn says so,
// and the next open removes it (this process let go of it).
func TestReplacedFileRemoveFails(t *testing.T) {
	mem := vfs.NewMem()
	fa := vfs.NewFaulty(mem)
	now := time.Now()
	clock := func() time.Time { return now }
	wsfs := WithWorkspaceFS(func(string) (vfs.FS, error) { return fa, nil })
	st := must(OpenFS(fa, "/mem", wsfs, WithClock(clock)))(t)
	defer st.Close()
	ws := must(st.Workspace(t.TempDir()))(t)
	vfs.WriteFileAtomic(mem, "a.txt", []byte("old content"))
	s := ws.Create(SessionOptions{})
	must(s.ToolWrite(context.Background(), "warm.txt", []byte("w")))(t)
	fa.Inject(vfs.Rule{Op: vfs.OpRemove, Path: ".a.txt.*" + vfs.TempSuffix})
	must(s.ToolWrite(context.Background(), "a.txt", []byte("new")))(t)
	if err := s.Commit(context.Background()); err == nil || !strings.Contains(err.Error(), "replaced file") {
		t.Fatalf("commit: %v, want the failed removal", err)
	}
	fa.Reset()
	s.Close()
	temps := func() (n int) {
		for _, ent := range must(mem.ReadDir("."))(t) {
			if strings.HasPrefix(ent.Name(), ".a.txt.") && vfs.IsTemp(ent.Name()) {
				n++
			}
		}
		return n
	}
	if temps() != 1 {
		t.Fatalf("%d temp files beside a.txt, want the replaced one", temps())
	}
	s = must(ws.Open(context.Background(), s.ID(), SessionOptions{}))(t)
	s.Close()
	if temps() != 0 {
		t.Fatal("the replaced file was left after the next open")
	}
	if b, _ := vfs.ReadFile(mem, "a.txt"); string(b) != "new" {
		t.Fatalf("a.txt holds %q", b)
	}
}

// TestUndoLineSyncFails: an undo or redo whose line's fsync fails leaves
// the owner's stack as the journal folds it, and fsck clean.
func TestUndoLineSyncFails(t *testing.T) {
	for _, op := range []string{"undo", "redo"} {
		t.Run(op, func(t *testing.T) {
			_, fa, st, ws := faultEnv(t, "")
			ctx := context.Background()
			s := ws.Create(SessionOptions{})
			defer s.Close()
			must(s.ToolWrite(ctx, "a.txt", []byte("one")))(t)
			must(s.ToolWrite(ctx, "a.txt", []byte("two")))(t)
			if op == "redo" {
				must(s.Undo(ctx))(t)
			}
			fa.Inject(vfs.Rule{Op: vfs.OpSync, Path: "workspaces/*/sessions/*.changes.jsonl", Count: 1})
			var err error
			if op == "undo" {
				_, err = s.Undo(ctx)
			} else {
				_, err = s.Redo(ctx)
			}
			if err == nil {
				t.Fatalf("%s with a failing line sync succeeded", op)
			}
			fa.Reset()
			mine := must(s.Snapshots(ctx))(t)
			theirs := must(ws.Snapshots(ctx, s.ID()))(t)
			if propList(mine) != propList(theirs) {
				t.Fatalf("owner %s, journal %s", propList(mine), propList(theirs))
			}
			must(s.Undo(ctx))(t)
			if rep := must(st.Fsck(ctx))(t); len(rep.Problems) != 0 {
				t.Fatalf("fsck: %+v", rep.Problems)
			}
		})
	}
}

// TestLazyLinesLost: when the lines that follow a tool's change (the drop
// of the oldest snapshot) cannot be written, the owner's stack is what the
// journal folds to.
func TestLazyLinesLost(t *testing.T) {
	_, fa, _, ws := faultEnv(t, `{"snapshots":{"max_per_session":1}}`)
	ctx := context.Background()
	s := ws.Create(SessionOptions{})
	defer s.Close()
	must(s.ToolWrite(ctx, "a.txt", []byte("one")))(t)
	fa.Inject(vfs.Rule{Op: vfs.OpWrite, Path: "workspaces/*/sessions/*.changes.jsonl", Skip: 1, Count: 1})
	must(s.ToolWrite(ctx, "a.txt", []byte("two")))(t)
	fa.Reset()
	mine := must(s.Snapshots(ctx))(t)
	theirs := must(ws.Snapshots(ctx, s.ID()))(t)
	if propList(mine) != propList(theirs) {
		t.Fatalf("owner %s, journal %s", propList(mine), propList(theirs))
	}
}

// gateFS blocks the first Lstat of name until released.
type gateFS struct {
	vfs.FS
	name    string
	once    sync.Once
	reached chan struct{}
	release chan struct{}
}

func (g *gateFS) Lstat(name string) (os.FileInfo, error) {
	if name == g.name {
		g.once.Do(func() { close(g.reached); <-g.release })
	}
	return g.FS.Lstat(name)
}

// TestCloseWaitsForTool: Close waits for a tool under way, whose write is
// then made and recorded; a tool after Close changes nothing.
func TestCloseWaitsForTool(t *testing.T) {
	mem := vfs.NewMem()
	g := &gateFS{FS: mem, name: "a.txt", reached: make(chan struct{}), release: make(chan struct{})}
	st := must(OpenFS(mem, "/mem", WithWorkspaceFS(func(string) (vfs.FS, error) { return g, nil })))(t)
	defer st.Close()
	ws := must(st.Workspace(t.TempDir()))(t)
	ctx := context.Background()
	vfs.WriteFileAtomic(mem, "a.txt", []byte("before"))
	s := ws.Create(SessionOptions{})
	must(s.ToolWrite(ctx, "warm.txt", []byte("w")))(t)
	tool := make(chan error, 1)
	go func() { _, err := s.ToolWrite(ctx, "a.txt", []byte("during close")); tool <- err }()
	<-g.reached
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	select {
	case err := <-closed:
		t.Fatalf("Close returned (%v) while a tool was under way", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(g.release)
	if err := <-tool; err != nil {
		t.Fatal(err)
	}
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	if b, _ := vfs.ReadFile(mem, "a.txt"); string(b) != "during close" {
		t.Fatalf("a.txt holds %q", b)
	}
	if _, err := s.ToolWrite(ctx, "a.txt", []byte("after close")); err == nil {
		t.Fatal("a tool after Close succeeded")
	}
	if l := must(ws.Snapshots(ctx, s.ID()))(t); len(l.Snapshots) != 2 {
		t.Fatalf("snapshots %s, want the warm-up and the write", propList(l))
	}
}

// blockedSync makes SyncDir wait until released (a slow filesystem), and
// says when one is waiting.
type blockedSync struct {
	vfs.FS
	entered chan struct{}
	release chan struct{}
	once    *sync.Once
}

func (b blockedSync) SyncDir(name string) error {
	b.once.Do(func() { close(b.entered) })
	<-b.release
	return b.FS.SyncDir(name)
}

// TestLedgerLockIsShort: the usage ledger's lock is held while a writer
// opens it and appends, not while its session waits for its own syncs: a
// session whose folder sync hangs does not hold up another's turn.
func TestLedgerLockIsShort(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	slowDir, _ := Canonical(t.TempDir())
	fastDir, _ := Canonical(t.TempDir())
	entered, release := make(chan struct{}), make(chan struct{})
	once := &sync.Once{}
	st := must(Open(home, WithWorkspaceFS(func(dir string) (vfs.FS, error) {
		d, err := vfs.OpenDisk(dir)
		if err != nil || dir != slowDir {
			return d, err
		}
		return blockedSync{d, entered, release, once}, nil
	})))(t)
	defer st.Close()
	ctx := context.Background()
	a := must(st.Workspace(slowDir))(t).Create(SessionOptions{})
	b := must(st.Workspace(fastDir))(t).Create(SessionOptions{})
	for _, s := range []*Session{a, b} {
		must(s.Append(ctx, Item{Type: User, Text: "go"}))(t)
	}
	must(a.ToolWrite(ctx, "x.txt", []byte("x")))(t) // its folder sync hangs
	turn := Turn{Model: "m", Spend: Spend{InputTokens: 1}}
	aDone := make(chan error, 1)
	go func() { aDone <- a.EndTurn(ctx, turn) }()
	<-entered // a's folder sync hangs, the end of its turn waiting for it
	// a's turn writes its usage line, then waits for its folder sync.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		if b, _ := os.ReadFile(filepath.Join(home, "usage.jsonl")); len(b) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("session a's turn wrote no usage line")
		}
	}
	bDone := make(chan error, 1)
	go func() { bDone <- b.EndTurn(ctx, turn) }()
	select {
	case err := <-bDone:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("session b's turn waited for session a's folder sync")
	}
	close(release)
	if err := <-aDone; err != nil {
		t.Fatal(err)
	}
	a.Close()
	b.Close()
	if u := must(st.Usage(ctx))(t); len(u) == 0 {
		t.Fatal("no usage recorded")
	}
}

// TestFailedFolderSyncStopsLines: after a tool's folder sync failed, no
// change line follows until the end of the turn has reported it, so a
// crash cannot leave an older change that was never made in the stack.
// The new content is too large for the change line, so the tool's folder
// is synced at once, not at the end of the turn (changes.Syncs).
func TestFailedFolderSyncStopsLines(t *testing.T) {
	big := func(s string) []byte { return []byte(strings.Repeat(s, fstate.MaxInline)) }
	mem := vfs.NewMem()
	fa := vfs.NewFaulty(mem)
	wsfs := WithWorkspaceFS(func(string) (vfs.FS, error) { return fa, nil })
	st := must(OpenFS(fa, "/mem", wsfs))(t)
	dir := t.TempDir()
	ws := must(st.Workspace(dir))(t)
	ctx := context.Background()
	mem.MkdirAll("d", 0o755)
	vfs.WriteFileAtomic(mem, "a.txt", []byte("a0"))
	vfs.WriteFileAtomic(mem, "d/b.txt", []byte("b0"))
	mem.SyncDir(".")
	mem.SyncDir("d")
	s := ws.Create(SessionOptions{})
	must(s.Append(ctx, Item{Type: User, Text: "go"}))(t)
	if err := s.EndTurn(ctx, Turn{}); err != nil {
		t.Fatal(err)
	}
	fa.Inject(vfs.Rule{Op: vfs.OpSync, Path: ".", Count: 1}) // a.txt's folder sync
	must(s.ToolWrite(ctx, "a.txt", big("a1")))(t)
	// No change line may follow, so no snapshot of b.txt can be taken:
	// the write that would replace it is refused and changes nothing.
	if b, err := s.ToolWrite(ctx, "d/b.txt", big("b1")); !errors.Is(err, ErrRefused) {
		t.Fatalf("a write with no snapshot possible: %+v, %v", b, err)
	}
	if b, _ := vfs.ReadFile(mem, "d/b.txt"); string(b) != "b0" {
		t.Fatalf("the refused write changed b.txt to %q", b)
	}
	fa.Reset()
	s.files.Wait()
	id := s.ID()
	mem.Crash()
	s.Close()
	st.Close()
	st = must(OpenFS(mem, "/mem", wsfs))(t)
	defer st.Close()
	ws = must(st.Workspace(dir))(t)
	s = must(ws.Open(ctx, id, SessionOptions{}))(t)
	defer s.Close()
	a, _ := vfs.ReadFile(mem, "a.txt")
	if l := must(s.Snapshots(ctx))(t); string(a) == "a0" && len(l.Snapshots) > 0 {
		t.Fatalf("a.txt is %q (its write lost) yet the stack lists %s", a, propList(l))
	}
}

// TestCleanCloseSettlesNothing: after a clean Close, whose close line says
// every file change before it was made, the next open touches nothing: a
// change whose file the user put back by hand is not cancelled, and an
// undo whose file the user set back to what the undo kept is not redone.
func TestCleanCloseSettlesNothing(t *testing.T) {
	e := newSnapEnv(t, "")
	e.put("a.txt", "one")
	e.put("b.txt", "bee")
	s := e.session()
	must(s.ToolWrite(e.ctx, "b.txt", []byte("bee two")))(t)
	must(s.Undo(e.ctx))(t) // b.txt is "bee" again; the undo kept "bee two"
	must(s.ToolWrite(e.ctx, "a.txt", []byte("two")))(t)
	s.Close()
	if !strings.HasSuffix(e.kinds(s), ",close") {
		t.Fatalf("no close line: %s", e.kinds(s))
	}
	e.put("a.txt", "one") // the user puts a.txt back by hand
	kinds := e.kinds(s)
	s = must(e.ws.Open(e.ctx, s.ID(), SessionOptions{}))(t)
	defer s.Close()
	if e.kinds(s) != kinds {
		t.Fatalf("the open wrote %s after %s", e.kinds(s), kinds)
	}
	if l := must(s.Snapshots(e.ctx))(t); len(l.Snapshots) != 1 || !l.Snapshots[0].Applied {
		t.Fatalf("stack %s, want a.txt's write", propList(l))
	}
	e.want("a.txt", "one")
	e.want("b.txt", "bee")
}

// TestInterruptedUndoFinished: an undo stopped after its line and before
// its files were put back (no close line followed) is finished by the next
// owner, from what its line holds; so is a redo.
func TestInterruptedUndoFinished(t *testing.T) {
	for _, op := range []string{"undo", "redo"} {
		t.Run(op, func(t *testing.T) {
			e := newSnapEnv(t, "")
			e.put("a.txt", "one")
			s := e.session()
			must(s.ToolWrite(e.ctx, "a.txt", []byte("two")))(t)
			if op == "redo" {
				must(s.Undo(e.ctx))(t)
			}
			s.Close()
			snap := must(e.ws.Snapshots(e.ctx, s.ID()))(t).Snapshots[0].ID
			// The line as the stopped undo or redo wrote it; its files were
			// not reached.
			line := `{"v":1,"kind":"redo","id":"` + snap + `","at":"2026-01-01T00:00:00.000Z"}`
			if op == "undo" {
				line = `{"v":1,"kind":"undo","id":"` + snap + `","at":"2026-01-01T00:00:00.000Z","files":[{"path":"a.txt","kept":` +
					`{"oid":"` + must(e.ws.objects().PutBytes(e.ctx, []byte("two")))(t).ID.String() + `","size":3,"mode":"file"}}]}`
			}
			e.plant(s.ID(), []string{line})
			s = must(e.ws.Open(e.ctx, s.ID(), SessionOptions{}))(t)
			defer s.Close()
			want := map[string]string{"undo": "one", "redo": "two"}[op]
			e.want("a.txt", want)
		})
	}
}

// TestRequiredRefusalComesFirst: an edit of a required file whose
// pre-image cannot be captured (too large) is refused as such, with its
// evidence line, before the tool's own checks of the content it captured.
// An edit whose text is not in the file is bad input, checked first: it
// would change nothing, so no snapshot is wanted.
func TestRequiredRefusalComesFirst(t *testing.T) {
	e := newSnapEnv(t, `{"snapshots":{"required":true,"max_file_bytes":10}}`)
	s := e.session()
	e.put("a.txt", "more than ten bytes")
	_, err := s.ToolEdit(e.ctx, "a.txt", "ten", "10")
	refused(t, err, "too large")
	if !strings.Contains(e.kinds(s), "evidence") {
		t.Fatalf("no evidence line: %s", e.kinds(s))
	}
	if _, err := s.ToolEdit(e.ctx, "a.txt", "not there", "x"); !errors.Is(err, ErrBadInput) {
		t.Fatalf("err %v, want ErrBadInput", err)
	}
	e.want("a.txt", "more than ten bytes")
}

// TestBadEditStoresNothing: an edit refused for bad input stores no
// pre-image, even of a file too large to keep inline.
func TestBadEditStoresNothing(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.session()
	must(s.ToolWrite(e.ctx, "warm.txt", []byte("w")))(t)
	e.put("big.txt", strings.Repeat("x", fstate.MaxInline+100))
	if _, err := s.ToolEdit(e.ctx, "big.txt", "not there", "y"); !errors.Is(err, ErrBadInput) {
		t.Fatalf("err %v, want ErrBadInput", err)
	}
	if got := e.objectIDs(); len(got) != 0 {
		t.Fatalf("objects %v after a refused edit", got)
	}
}
