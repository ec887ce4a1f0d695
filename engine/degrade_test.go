package engine

// Degrade mode: a session that cannot be written goes on in memory and is
// recorded again; long because each way a write can fail (full disk, failed
// sync, torn line, record, payload, ledger) is a case of one fixture.

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"syscall"
	"testing"

	"cairn/internal/vfs"
)

// degradeEnv is a store on an in-memory state folder and an in-memory
// workspace, each behind a fault injector, and a Degrade session that
// keeps its notices.
type degradeEnv struct {
	ctx          context.Context
	stateMem     *vfs.Mem
	state, files *vfs.Faulty
	ws           *Workspace
	dir          string
	s            *Session
	notices      []string
}

func newDegradeEnv(t *testing.T) *degradeEnv {
	t.Helper()
	e := &degradeEnv{ctx: context.Background(), stateMem: vfs.NewMem(), dir: t.TempDir()}
	e.files = vfs.NewFaulty(vfs.NewMem())
	st := openStore(t, storeSpec{mem: e.stateMem, faults: true, opts: []Option{WithWorkspaceFS(func(string) (vfs.FS, error) { return e.files, nil })}})
	e.state = st.faulty
	e.ws = must(st.Workspace(e.dir))(t)
	e.s = e.ws.Create(e.opts())
	return e
}

func (e *degradeEnv) opts() SessionOptions {
	return SessionOptions{Degrade: true, Notice: func(m string) { e.notices = append(e.notices, m) }}
}

// full makes both disks full: every write and every new file fails.
func (e *degradeEnv) full() {
	for _, f := range []*vfs.Faulty{e.state, e.files} {
		f.Inject(vfs.Rule{Op: vfs.OpWrite, Err: syscall.ENOSPC})
		f.Inject(vfs.Rule{Op: vfs.OpCreate, Err: syscall.ENOSPC})
	}
}

func (e *degradeEnv) free() {
	e.state.Reset()
	e.files.Reset()
}

func (e *degradeEnv) prompt(t *testing.T, text string) {
	t.Helper()
	if _, err := e.s.Append(e.ctx, Item{Type: User, Text: text}); err != nil {
		t.Fatalf("prompt %.20q: %v", text, err)
	}
	if err := e.s.EndTurn(e.ctx, Turn{Labels: []string{"prompt"}}); err != nil {
		t.Fatalf("turn of %.20q: %v", text, err)
	}
}

func (e *degradeEnv) file(t *testing.T, name string) string {
	t.Helper()
	b, err := vfs.ReadFile(e.files, name)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return string(b)
}

func (e *degradeEnv) noticed(words string) int {
	n := 0
	for _, m := range e.notices {
		if strings.Contains(m, words) {
			n++
		}
	}
	return n
}

// texts is the transcript of session id as a reader sees it on disk.
func (e *degradeEnv) texts(t *testing.T, id string) []string {
	t.Helper()
	r := must(e.ws.Open(e.ctx, id, SessionOptions{}))(t)
	defer r.Close()
	var out []string
	for _, it := range r.Transcript() {
		out = append(out, it.Text)
	}
	return out
}

// TestDegradedSessionRecovers: a session that met a full disk goes on in
// memory; once space is back the next write records it again, with the
// prompts typed meanwhile written in order (a long one as a payload
// object), said once; tools snapshot again and undo works.
func TestDegradedSessionRecovers(t *testing.T) {
	e := newDegradeEnv(t)
	long := "p3 long " + strings.Repeat("x", payloadInline+10)
	e.prompt(t, "p1 before full")
	must(e.s.ToolWrite(e.ctx, "keep.txt", []byte("v2 before full")))(t)

	e.full()
	e.prompt(t, "p2 on full disk")
	e.prompt(t, long)
	if e.s.Recorded() || e.noticed("cannot be recorded") != 1 {
		t.Fatalf("recorded %v, notices %q", e.s.Recorded(), e.notices)
	}
	// The error is today's, not the one the session first met.
	if _, err := e.s.Undo(e.ctx); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("undo on a full disk: %v", err)
	}

	e.free()
	e.prompt(t, "p4 after free")
	if !e.s.Recorded() || e.noticed("recorded again: 2 items") != 1 || e.noticed("cannot be recorded") != 1 {
		t.Fatalf("recorded %v, notices %q", e.s.Recorded(), e.notices)
	}
	a := must(e.s.ToolWrite(e.ctx, "keep.txt", []byte("v4 after free")))(t)
	if a.Snapshot == nil || len(a.Skipped) > 0 {
		t.Fatalf("a write after the disk came back took no snapshot: %+v", a)
	}
	must(e.s.Undo(e.ctx))(t)
	if got := e.file(t, "keep.txt"); got != "v2 before full" {
		t.Fatalf("keep.txt after undo: %q", got)
	}
	id := e.s.ID()
	if err := e.s.Close(); err != nil {
		t.Fatal(err)
	}
	want := []string{"p1 before full", "p2 on full disk", long, "p4 after free"}
	if got := e.texts(t, id); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("transcript on disk %.200q, want %.200q", got, want)
	}
	b := must(vfs.ReadFile(e.stateMem, itemsName(e.ws.dir, id)))(t)
	if strings.Contains(string(b), strings.Repeat("x", payloadInline)) {
		t.Fatal("the long prompt kept in memory was written inline, not as a payload")
	}
	if rep := must(e.ws.s.Fsck(e.ctx))(t); len(rep.Problems) > 0 {
		t.Fatalf("fsck: %+v", rep.Problems)
	}
	if n := strings.Count(string(b), `"kind":"turn"`); n != 4 {
		t.Fatalf("%d turn lines, want 4", n)
	}
}

// TestDegradedToolRefusesToDestroy: while no snapshot can be stored, a
// write over an existing file and an rm are refused and change nothing; a
// new file is made, named as not snapshotted.
func TestDegradedToolRefusesToDestroy(t *testing.T) {
	e := newDegradeEnv(t)
	e.prompt(t, "p1")
	must(e.s.ToolWrite(e.ctx, "f.txt", []byte("content of f")))(t)
	e.state.Inject(vfs.Rule{Op: vfs.OpWrite, Err: syscall.ENOSPC})
	e.state.Inject(vfs.Rule{Op: vfs.OpCreate, Err: syscall.ENOSPC})
	e.prompt(t, "p2 on full disk")
	for _, run := range []func() (*ToolAnswer, error){
		func() (*ToolAnswer, error) { return e.s.ToolRm(e.ctx, "f.txt") },
		func() (*ToolAnswer, error) { return e.s.ToolWrite(e.ctx, "f.txt", []byte("new")) },
		func() (*ToolAnswer, error) { return e.s.ToolEdit(e.ctx, "f.txt", "content", "text") },
	} {
		a, err := run()
		if !errors.Is(err, ErrRefused) || !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("a tool that would destroy f.txt with no snapshot: %+v, %v", a, err)
		}
		if got := e.file(t, "f.txt"); got != "content of f" {
			t.Fatalf("the refused tool changed f.txt to %q", got)
		}
	}
	a, err := e.s.ToolWrite(e.ctx, "g.txt", []byte("new file"))
	if err != nil || a.Snapshot != nil || len(a.Skipped) != 1 || e.file(t, "g.txt") != "new file" {
		t.Fatalf("a new file with no snapshot possible: %+v, %v", a, err)
	}
	e.free()
	a = must(e.s.ToolRm(e.ctx, "f.txt"))(t)
	if a.Snapshot == nil {
		t.Fatal("rm after the disk came back took no snapshot")
	}
	must(e.s.Undo(e.ctx))(t)
	if got := e.file(t, "f.txt"); got != "content of f" {
		t.Fatalf("f.txt after undo of rm: %q", got)
	}
}

// TestDegradedNewSessionRecovers: a session whose first write met the full
// disk is created once space is back, holding every prompt in order.
func TestDegradedNewSessionRecovers(t *testing.T) {
	e := newDegradeEnv(t)
	e.full()
	e.prompt(t, "one")
	e.prompt(t, "two")
	e.free()
	e.prompt(t, "three")
	if !e.s.Recorded() || e.noticed("recorded again: 2 items") != 1 {
		t.Fatalf("recorded %v, notices %q", e.s.Recorded(), e.notices)
	}
	id := e.s.ID()
	e.s.Close()
	if got := e.texts(t, id); strings.Join(got, "|") != "one|two|three" {
		t.Fatalf("transcript on disk %q", got)
	}
}

// TestDegradedAfterFailedSync: a failed fsync is not taken as done: the
// lines written since the last good sync are written again, once, and are
// durable once the session is recorded again.
func TestDegradedAfterFailedSync(t *testing.T) {
	e := newDegradeEnv(t)
	e.prompt(t, "one")
	e.state.Inject(vfs.Rule{Op: vfs.OpSync, Path: "workspaces/*/sessions/*.items.jsonl", Count: 1, Err: syscall.EIO})
	e.prompt(t, "two") // its sync fails: unrecorded
	if e.s.Recorded() {
		t.Fatal("a failed sync left the session recorded")
	}
	e.prompt(t, "three") // recorded again, "two" written again
	if !e.s.Recorded() {
		t.Fatalf("not recorded again: %v", e.s.Unrecorded())
	}
	id := e.s.ID()
	e.stateMem.Crash() // only what was synced survives
	e.s.Close()
	if got := e.texts(t, id); strings.Join(got, "|") != "one|two|three" {
		t.Fatalf("transcript after a crash %q", got)
	}
	b := must(vfs.ReadFile(e.stateMem, itemsName(e.ws.dir, id)))(t)
	if n := strings.Count(string(b), `"text":"two"`); n != 1 {
		t.Fatalf("the item whose sync failed is in the journal %d times", n)
	}
}

// TestDegradedCloseSaysWhatIsLost: a session still unrecorded when it
// closes says how many items were not written.
func TestDegradedCloseSaysWhatIsLost(t *testing.T) {
	e := newDegradeEnv(t)
	e.prompt(t, "one")
	e.full()
	e.prompt(t, "two")
	e.prompt(t, "three")
	e.s.Close()
	if e.noticed("2 items of this session kept in memory only") != 1 {
		t.Fatalf("notices %q", e.notices)
	}
}

// TestDegradedUntilTheRecordIsWritten: a session that went unrecorded
// because its record could not be replaced is not said to be recorded
// again while that still fails, and is once it works.
func TestDegradedUntilTheRecordIsWritten(t *testing.T) {
	e := newDegradeEnv(t)
	e.prompt(t, "one")
	e.state.Inject(vfs.Rule{Op: vfs.OpRename, Path: "workspaces/*/sessions/*.json"})
	if err := e.s.Rename(e.ctx, "renamed"); err != nil {
		t.Fatal(err)
	}
	e.prompt(t, "two")
	if e.s.Recorded() || e.noticed("recorded again") != 0 {
		t.Fatalf("recorded %v with the record still failing; notices %q", e.s.Recorded(), e.notices)
	}
	e.free()
	e.prompt(t, "three")
	if !e.s.Recorded() || e.noticed("recorded again: 1 item kept") != 1 {
		t.Fatalf("recorded %v, notices %q", e.s.Recorded(), e.notices)
	}
	rec := must(readRecord(e.stateMem, e.ws.dir, e.s.ID()))(t)
	if rec.Title != "renamed" {
		t.Fatalf("the record says %q", rec.Title)
	}
}

// tornFS is a disk that, while full, writes half of what a journal append
// gives it and fails: a real full disk tears the line it cannot finish.
type tornFS struct {
	vfs.FS
	full bool
}

func (t *tornFS) OpenFile(name string, flag int, perm fs.FileMode) (vfs.File, error) {
	f, err := t.FS.OpenFile(name, flag, perm)
	if err != nil || !strings.HasSuffix(name, ".jsonl") {
		return f, err
	}
	return &tornFile{File: f, fs: t}, nil
}

type tornFile struct {
	vfs.File
	fs *tornFS
}

func (f *tornFile) Write(p []byte) (int, error) {
	if !f.fs.full {
		return f.File.Write(p)
	}
	n, _ := f.File.Write(p[:len(p)/2])
	return n, syscall.ENOSPC
}

// TestDegradedTornLinesAreCut: the half lines a full disk leaves are cut
// when the session is recorded again, not repaired: no repair line is
// written for each retry, and every prompt is there once.
func TestDegradedTornLinesAreCut(t *testing.T) {
	ctx := context.Background()
	mem := vfs.NewMem()
	disk := &tornFS{FS: mem}
	st := must(OpenFS(disk, "/mem"))(t)
	defer st.Close()
	ws := must(st.Workspace(t.TempDir()))(t)
	var notices []string
	s := ws.Create(SessionOptions{Degrade: true, Notice: func(m string) { notices = append(notices, m) }})
	defer s.Close()
	prompt := func(text string) {
		t.Helper()
		must(s.Append(ctx, Item{Type: User, Text: text}))(t)
		if err := s.EndTurn(ctx, Turn{Labels: []string{"prompt"}}); err != nil {
			t.Fatal(err)
		}
	}
	prompt("one")
	disk.full = true
	prompt("two")
	prompt("three")
	disk.full = false
	prompt("four")
	if !s.Recorded() {
		t.Fatalf("not recorded again: %v; notices %q", s.Unrecorded(), notices)
	}
	id := s.ID()
	s.Close()
	for _, name := range []string{itemsName(ws.dir, id), auditName(ws.dir, id)} {
		b := must(vfs.ReadFile(mem, name))(t)
		if n := strings.Count(string(b), `"kind":"repair"`); n > 0 {
			t.Fatalf("%s holds %d repair lines:\n%s", name, n, b)
		}
	}
	r := must(ws.Open(ctx, id, SessionOptions{}))(t)
	defer r.Close()
	var got []string
	for _, it := range r.Transcript() {
		got = append(got, it.Text)
	}
	if strings.Join(got, "|") != "one|two|three|four" {
		t.Fatalf("transcript %q", got)
	}
	if rep := must(st.Fsck(ctx))(t); len(rep.Problems) > 0 {
		t.Fatalf("fsck: %+v", rep.Problems)
	}
}

// TestDegradedByAPayloadOnly: when only the object store fails, a long
// item is kept (not written inline at once, and the session not said to be
// recorded again in the same breath), and written as a payload once
// objects can be stored.
func TestDegradedByAPayloadOnly(t *testing.T) {
	e := newDegradeEnv(t)
	e.prompt(t, "one")
	long := "long " + strings.Repeat("y", payloadInline+10)
	e.state.Inject(vfs.Rule{Op: vfs.OpCreate, Path: "workspaces/*/objects/*"})
	e.state.Inject(vfs.Rule{Op: vfs.OpCreate, Path: "workspaces/*/objects/*/*"})
	e.prompt(t, long)
	e.prompt(t, "three")
	if e.s.Recorded() || e.noticed("recorded again") != 0 || e.noticed("cannot be recorded") != 1 {
		t.Fatalf("recorded %v; notices %q", e.s.Recorded(), e.notices)
	}
	e.free()
	e.prompt(t, "four")
	if !e.s.Recorded() || e.noticed("recorded again: 2 items") != 1 {
		t.Fatalf("recorded %v; notices %q", e.s.Recorded(), e.notices)
	}
	id := e.s.ID()
	e.s.Close()
	b := must(vfs.ReadFile(e.stateMem, itemsName(e.ws.dir, id)))(t)
	if strings.Contains(string(b), strings.Repeat("y", payloadInline)) {
		t.Fatal("the long item was written inline")
	}
	if got := e.texts(t, id); strings.Join(got, "|") != "one|"+long+"|three|four" {
		t.Fatalf("transcript %.100q", got)
	}
}

// TestDegradedLedgerFailure: the usage ledger is the store's: a turn whose
// usage line cannot be written says so, and the session stays recorded.
func TestDegradedLedgerFailure(t *testing.T) {
	e := newDegradeEnv(t)
	e.prompt(t, "one")
	e.state.Inject(vfs.Rule{Op: vfs.OpWrite, Path: "usage.jsonl", Err: syscall.ENOSPC})
	must(e.s.Append(e.ctx, Item{Type: User, Text: "two"}))(t)
	if err := e.s.EndTurn(e.ctx, Turn{Model: "m", Spend: Spend{InputTokens: 5}}); err != nil {
		t.Fatal(err)
	}
	if !e.s.Recorded() || e.noticed("usage ledger") != 1 || e.noticed("cannot be recorded") != 0 {
		t.Fatalf("recorded %v; notices %q", e.s.Recorded(), e.notices)
	}
}

// TestDegradedOpenWithStaleRecord: a Degrade session opened on a full disk
// whose record must be rebuilt opens as any other: it says what changed
// since it last ran, and its open line, kept in memory, is in the journal
// once writes work again. Before, the failed record write ended the load
// there: no resume information and no open line, ever.
func TestDegradedOpenWithStaleRecord(t *testing.T) {
	e := newDegradeEnv(t)
	e.prompt(t, "one")
	id := e.s.ID()
	if err := e.s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := e.stateMem.Remove(recordName(e.ws.dir, id)); err != nil {
		t.Fatal(err)
	}
	e.full()
	s := must(e.ws.Open(e.ctx, id, e.opts()))(t)
	defer s.Close()
	if s.Unrecorded() == nil {
		t.Fatal("opened on a full disk with a record to rebuild, yet recorded")
	}
	if r := s.Resume(); r.Build != Version {
		t.Errorf("resume information: %+v, want this build named", r)
	}
	e.free()
	if _, err := s.Append(e.ctx, Item{Type: User, Text: "two"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := vfs.ReadFile(e.stateMem, itemsName(e.ws.dir, id))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"kind":"open"`) {
		t.Errorf("no open line in the journal:\n%s", b)
	}
	rec, err := readRecord(e.stateMem, e.ws.dir, id)
	if err != nil || rec.Counts.Items != 2 {
		t.Errorf("record after recovery: %+v, %v; want 2 items", rec, err)
	}
}

// TestDegradedRetryStopsWithItsCaller: the retry that records a session
// again runs under the context of the call that set it off: a caller that
// gave up does not wait for the kept lines to be written (the session
// stays unrecorded, for the reason it had, and keeps the new line too); the
// next call with a live context writes them all, in order.
func TestDegradedRetryStopsWithItsCaller(t *testing.T) {
	e := newDegradeEnv(t)
	long := "p2 long " + strings.Repeat("x", payloadInline+10)
	e.prompt(t, "p1 before full")
	e.full()
	e.prompt(t, long)
	e.free()
	gone, cancel := context.WithCancel(e.ctx)
	cancel()
	objs := e.state.Calls(vfs.OpCreate)
	if _, err := e.s.Append(gone, Item{Type: User, Text: "p3 given up"}); err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("append under a cancelled context: %v", err)
	}
	if e.s.Recorded() || e.state.Calls(vfs.OpCreate) != objs {
		t.Fatalf("a retry ran for a caller that gave up: recorded %v, %d files made", e.s.Recorded(), e.state.Calls(vfs.OpCreate)-objs)
	}
	e.prompt(t, "p4 live")
	if !e.s.Recorded() {
		t.Fatalf("not recorded again; notices %q", e.notices)
	}
	id := e.s.ID()
	if err := e.s.Close(); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(e.texts(t, id), "|")
	if !strings.HasPrefix(got, "p1 before full|"+long+"|") || !strings.HasSuffix(got, "p4 live") {
		t.Fatalf("transcript on disk %.200q", got)
	}
}
