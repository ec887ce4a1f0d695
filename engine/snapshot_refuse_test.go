package engine

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"cairn/internal/vfs"
	"cairn/objects"
)

// noise is n bytes zstd cannot shrink, so their object is stored raw.
func noise(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, seed))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('a' + r.IntN(26))
	}
	return b
}

// object is the file on disk of object oid (stored raw).
func (e *snapEnv) object(oid string) string {
	e.t.Helper()
	id, err := objects.ParseID(oid)
	if err != nil {
		e.t.Fatal(err)
	}
	p := filepath.Join(e.store.home, filepath.FromSlash(e.ws.objects().Path(id, false)))
	if _, err := os.Stat(p); err != nil {
		e.t.Fatalf("object %s is not stored raw: %v", oid, err)
	}
	return p
}

// beforeOID is the object of the pre-image of the i-th line's first file.
func (e *snapEnv) beforeOID(s *Session, i int) string {
	e.t.Helper()
	f := e.lines(s)[i]["files"].([]any)[0].(map[string]any)
	oid, _ := f["before"].(map[string]any)["oid"].(string)
	if oid == "" {
		e.t.Fatalf("line %d has no pre-image object: %v", i, f)
	}
	return oid
}

// restoreErr is err as a *RestoreError naming one file (rel) with a reason
// holding words.
func restoreErr(t *testing.T, e *snapEnv, err error, rel, words string) *RestoreError {
	t.Helper()
	var re *RestoreError
	if !errors.As(err, &re) || !errors.Is(err, ErrRefused) || len(re.Files) != 1 ||
		re.Files[0].Path != e.path(rel) || !strings.Contains(re.Files[0].Reason, words) {
		t.Fatalf("err = %v, want a RestoreError naming %s (%s)", err, rel, words)
	}
	return re
}

// TestUndoRefusedWhenNothingCanBePutBack: an undo whose only pre-image is
// missing or damaged is refused with why, writes nothing and leaves the
// step to undo once the object is back.
func TestUndoRefusedWhenNothingCanBePutBack(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.session()
	v1, v2, v3 := noise(1, 40<<10), noise(2, 40<<10), noise(3, 40<<10)
	e.put("big.txt", string(v1))
	first := *must(s.ToolWrite(e.ctx, "big.txt", v2))(t).Snapshot
	must(s.ToolWrite(e.ctx, "big.txt", v3))(t)

	// Damaged: three bytes flipped.
	obj := e.object(e.beforeOID(s, 1))
	good, _ := os.ReadFile(obj)
	bad := append([]byte(nil), good...)
	copy(bad[100:], "XYZ")
	os.Chmod(obj, 0o600)
	os.WriteFile(obj, bad, 0o600)
	kinds := e.kinds(s)
	_, err := s.Undo(e.ctx)
	re := restoreErr(t, e, err, "big.txt", "damaged (hash mismatch)")
	if re.Below != first {
		t.Fatalf("below = %q, want %s", re.Below, first)
	}
	// Missing.
	os.Remove(obj)
	_, err = s.Undo(e.ctx)
	restoreErr(t, e, err, "big.txt", "is missing")
	if k := e.kinds(s); k != kinds {
		t.Fatalf("a refused undo wrote lines: %s, was %s", k, kinds)
	}
	if l := must(s.Snapshots(e.ctx))(t); l.Cursor != 2 {
		t.Fatalf("a refused undo used up its step: cursor %d", l.Cursor)
	}
	if e.get("big.txt") != string(v3) {
		t.Fatal("a refused undo changed the file")
	}
	if a := e.trail(s, "session.snapshot_restore"); a[len(a)-1]["outcome"] != "refused" {
		t.Fatalf("trail %v", a[len(a)-1])
	}

	// The object back, the same step undoes.
	os.WriteFile(obj, good, 0o600)
	r := must(s.Undo(e.ctx))(t)
	if len(r.Steps[0].Restored) != 1 || e.get("big.txt") != string(v2) {
		t.Fatalf("undo once the object is back: %+v", r)
	}
}

// TestPartialUndoSaysWhy: an undo that puts back some files names the
// others with why.
func TestPartialUndoSaysWhy(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.session()
	e.put("a.txt", "a0")
	e.put("b.txt", "b0")
	must(s.Change(e.ctx, "apply_patch", []string{"a.txt", "b.txt"}, func(*Change) error {
		e.put("a.txt", "a1")
		e.put("b.txt", "b1")
		return nil
	}))(t)
	os.Remove(e.object(sumHex("a0")))
	r := must(s.Undo(e.ctx))(t)
	st := r.Steps[0]
	if len(st.Restored) != 1 || st.Restored[0] != e.path("b.txt") || len(st.Skipped) != 1 ||
		len(st.NotRestored) != 1 || st.NotRestored[0].Path != e.path("a.txt") || !strings.Contains(st.NotRestored[0].Reason, "is missing") {
		t.Fatalf("partial undo %+v", st)
	}
	e.want("a.txt", "a1")
	e.want("b.txt", "b0")
}

// TestRestoreToPassesOver: a restore-to goes past a snapshot it cannot put
// back (named with why) to reach older ones, but one that can put back no
// file at all is refused and writes nothing.
func TestRestoreToPassesOver(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.session()
	first := *must(s.ToolWrite(e.ctx, "x.txt", []byte("x")))(t)
	e.put("big.txt", string(noise(1, 40<<10)))
	second := *must(s.ToolWrite(e.ctx, "big.txt", noise(2, 40<<10)))(t).Snapshot
	os.Remove(e.object(e.beforeOID(s, 1)))

	kinds := e.kinds(s)
	_, err := s.RestoreTo(e.ctx, second)
	restoreErr(t, e, err, "big.txt", "is missing")
	if k := e.kinds(s); k != kinds {
		t.Fatalf("a refused restore wrote lines: %s, was %s", k, kinds)
	}
	r := must(s.RestoreTo(e.ctx, *first.Snapshot))(t)
	if len(r.Steps) != 2 || len(r.Steps[0].NotRestored) != 1 || len(r.Steps[1].Removed) != 1 || r.Cursor != 0 {
		t.Fatalf("restore past big.txt: %+v", r)
	}
	e.want("x.txt", "<absent>")
	// Redo walks forward again: big.txt, left as it was, is left again.
	must(s.Redo(e.ctx))(t)
	r = must(s.Redo(e.ctx))(t)
	if len(r.Steps[0].Skipped) != 1 || !strings.Contains(r.Steps[0].NotRestored[0].Reason, "left it as it was") {
		t.Fatalf("redo of the passed-over step: %+v", r)
	}
	e.want("x.txt", "x")
}

// TestRedoRefusedWhenKeptContentIsGone: a redo whose kept content is
// missing is refused and writes nothing.
func TestRedoRefusedWhenKeptContentIsGone(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.session()
	e.put("big.txt", string(noise(1, 40<<10)))
	v2 := noise(2, 40<<10)
	must(s.ToolWrite(e.ctx, "big.txt", v2))(t)
	must(s.Undo(e.ctx))(t)
	l := e.lines(s)
	kept := l[len(l)-1]["files"].([]any)[0].(map[string]any)["kept"].(map[string]any)["oid"].(string)
	os.Remove(e.object(kept))
	kinds := e.kinds(s)
	_, err := s.Redo(e.ctx)
	restoreErr(t, e, err, "big.txt", "the content the undo kept")
	if k := e.kinds(s); k != kinds {
		t.Fatalf("a refused redo wrote lines: %s, was %s", k, kinds)
	}
}

// TestUndoAndRedoCancelledWhenEveryWriteFails: an undo or redo whose every
// file fails to be written once its line is written cancels itself with
// the opposite line: the stack, in memory and read back, is as before.
func TestUndoAndRedoCancelledWhenEveryWriteFails(t *testing.T) {
	mem := vfs.NewMem()
	faulty := vfs.NewFaulty(mem)
	e := newSnapEnv(t, "", WithWorkspaceFS(func(string) (vfs.FS, error) { return faulty, nil }))
	s := e.session()
	must(s.ToolWrite(e.ctx, "a.txt", []byte("1")))(t)
	must(s.ToolWrite(e.ctx, "a.txt", []byte("2")))(t)
	check := func(s *Session, cursor int, content string) {
		t.Helper()
		if l := must(s.Snapshots(e.ctx))(t); l.Cursor != cursor {
			t.Fatalf("cursor %d, want %d", l.Cursor, cursor)
		}
		if b, _ := vfs.ReadFile(mem, "a.txt"); string(b) != content {
			t.Fatalf("a.txt holds %q, want %q", b, content)
		}
	}
	faulty.Inject(vfs.Rule{Op: vfs.OpRename, Path: "a.txt"})
	_, err := s.Undo(e.ctx)
	restoreErr(t, e, err, "a.txt", "could not be written")
	if !strings.HasSuffix(e.kinds(s), "change,undo,redo") {
		t.Fatalf("kinds %s", e.kinds(s))
	}
	check(s, 2, "2")
	s = e.reopen(s)
	check(s, 2, "2")
	faulty.Reset()
	must(s.Undo(e.ctx))(t)
	check(s, 1, "1")

	faulty.Inject(vfs.Rule{Op: vfs.OpRename, Path: "a.txt"})
	_, err = s.Redo(e.ctx)
	restoreErr(t, e, err, "a.txt", "could not be written")
	if !strings.HasSuffix(e.kinds(s), "undo,redo,undo") {
		t.Fatalf("kinds %s", e.kinds(s))
	}
	check(s, 1, "1")
	s = e.reopen(s)
	check(s, 1, "1")
	faulty.Reset()
	must(s.Redo(e.ctx))(t)
	check(s, 2, "2")
}

// TestUnreadChangeRecordsNamed: lines of the changes journal the stack
// skips (a pre-image whose inline data does not hash to its name, a line
// that is not JSON) are named, where fsck names them, by the snapshot
// list, the read-only list, and the refusal of an undo that finds nothing.
func TestUnreadChangeRecordsNamed(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.session()
	must(s.ToolWrite(e.ctx, "a.txt", []byte("a")))(t)
	must(s.Undo(e.ctx))(t)
	id := s.ID()
	s.Close()
	n := len(e.lines(s))
	e.plant(id, []string{
		`{"v":1,"kind":"change","id":"bad1-00000001","seq":9,"at":"2026-01-01T00:00:00.000Z","tool":"write","scope":"paths","files":[{"path":"b.txt","before":{"sha256":"` + sumHex("b") + `","size":1,"mode":"file","data":"Yw=="},"after":null}]}`,
		`not json at all`,
		`{"v":1,"kind":"redo","id":"nope-00000000","at":"2026-01-01T00:00:00.000Z"}`,
	})
	name := changesName(e.ws.dir, id)
	want := []string{
		name + ":" + itoa(n+1), name + ":" + itoa(n+2), name + ":" + itoa(n+3),
	}
	wheres := func(u []UnreadRecord) string {
		var w []string
		for _, r := range u {
			w = append(w, r.Where)
		}
		return strings.Join(w, ",")
	}
	rep := must(e.store.Fsck(e.ctx))(t)
	var fsck []string
	for _, p := range rep.Problems {
		fsck = append(fsck, p.Path)
	}
	slices.Sort(fsck)
	if strings.Join(fsck, ",") != strings.Join(want, ",") {
		t.Fatalf("fsck names %v, want %v", fsck, want)
	}
	if l := must(e.ws.Snapshots(e.ctx, id))(t); wheres(l.Unread) != strings.Join(want, ",") {
		t.Fatalf("read-only list names %+v, want %v", l.Unread, want)
	}
	s = must(e.ws.Open(e.ctx, id, SessionOptions{}))(t)
	defer s.Close()
	l := must(s.Snapshots(e.ctx))(t)
	if wheres(l.Unread) != strings.Join(want, ",") || !strings.Contains(l.Unread[0].Error, "bad file state") {
		t.Fatalf("list names %+v, want %v", l.Unread, want)
	}
	_, err := s.Undo(e.ctx)
	refused(t, err, "nothing to undo (3 change records could not be read: "+want[0]+" (bad file state")
	if !strings.Contains(err.Error(), "see cairn storage fsck") {
		t.Fatalf("refusal %v", err)
	}
	r := must(s.Redo(e.ctx))(t)
	if wheres(r.Unread) != strings.Join(want, ",") {
		t.Fatalf("redo answer names %+v", r.Unread)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestUndoRefusedWhileTheStoreIsFull: an undo that cannot keep the current
// content for redo (the object store is full) is refused and writes
// nothing; once there is space, the same step undoes.
func TestUndoRefusedWhileTheStoreIsFull(t *testing.T) {
	mem := vfs.NewMem()
	faulty := vfs.NewFaulty(mem)
	st := must(OpenFS(faulty, "/mem", WithWorkspaceFS(func(string) (vfs.FS, error) { return mem, nil })))(t)
	defer st.Close()
	dir := t.TempDir()
	ws := must(st.Workspace(dir))(t)
	s := ws.Create(SessionOptions{})
	defer s.Close()
	ctx := t.Context()
	must(s.ToolWrite(ctx, "a.txt", noise(1, 40<<10)))(t)
	must(s.ToolWrite(ctx, "a.txt", noise(2, 40<<10)))(t)
	faulty.Inject(vfs.Rule{Op: vfs.OpCreate, Path: "workspaces/*/objects/*", Err: syscall.ENOSPC})
	_, err := s.Undo(ctx)
	var re *RestoreError
	if !errors.As(err, &re) || len(re.Files) != 1 || !strings.Contains(re.Files[0].Reason, "cannot be kept for redo: the snapshot store failed") ||
		!strings.Contains(re.Files[0].Reason, "no space left") {
		t.Fatalf("undo on a full store: %v", err)
	}
	if l := must(s.Snapshots(ctx))(t); l.Cursor != 2 {
		t.Fatalf("cursor %d after a refused undo", l.Cursor)
	}
	faulty.Reset()
	must(s.Undo(ctx))(t)
	if b, _ := vfs.ReadFile(mem, "a.txt"); string(b) != string(noise(1, 40<<10)) {
		t.Fatal("undo once there is space did not put back the first write")
	}
}
