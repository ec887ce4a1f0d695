package engine

// The snapshot suite (file tools, undo, redo, restore-to, limits, required
// snapshots, the HTTP-free API of seed 001) and the snapEnv helpers the
// other snapshot tests share. It is long because every behaviour of the
// undo stack is a case here over one environment; the helpers come first.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cairn/engine/internal/changes"

	"github.com/klauspost/compress/zstd"

	"cairn/engine/internal/fstate"
	"cairn/internal/vfs"
	"cairn/journal"
	"cairn/objects"
)

// snapEnv is a store on the real disk with a workspace folder to edit.
type snapEnv struct {
	t     *testing.T
	ctx   context.Context
	store *Store
	ws    *Workspace
	dir   string // the workspace directory
}

func newSnapEnv(t *testing.T, config string, opts ...Option) *snapEnv {
	t.Helper()
	return snapEnvOf(t, openStore(t, storeSpec{config: config, opts: opts}).Store)
}

// snapEnvOf is the env of store s and the workspace of a fresh folder.
func snapEnvOf(t *testing.T, s *Store) *snapEnv {
	t.Helper()
	dir, err := Canonical(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, err := s.Workspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	return &snapEnv{t: t, ctx: context.Background(), store: s, ws: ws, dir: dir}
}

func (e *snapEnv) path(rel string) string { return filepath.Join(e.dir, filepath.FromSlash(rel)) }

func (e *snapEnv) put(rel, content string) {
	e.t.Helper()
	p := e.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// get is the file's content, or "<absent>".
func (e *snapEnv) get(rel string) string {
	e.t.Helper()
	b, err := os.ReadFile(e.path(rel))
	if os.IsNotExist(err) {
		return "<absent>"
	}
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

func (e *snapEnv) want(rel, content string) {
	e.t.Helper()
	if got := e.get(rel); got != content {
		e.t.Fatalf("%s holds %q, want %q", rel, got, content)
	}
}

func (e *snapEnv) session() *Session {
	s := e.ws.Create(SessionOptions{})
	e.t.Cleanup(func() { s.Close() })
	return s
}

func (e *snapEnv) reopen(s *Session) *Session {
	e.t.Helper()
	if err := s.Close(); err != nil {
		e.t.Fatal(err)
	}
	r, err := e.ws.Open(e.ctx, s.ID(), SessionOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { r.Close() })
	return r
}

// lines is the session's changes journal, decoded.
// plant appends hand-written lines to session id's changes journal, as a
// hostile or older writer would have left them.
func (e *snapEnv) plant(id string, lines []string) {
	e.t.Helper()
	fh, err := os.OpenFile(filepath.Join(e.ws.Folder(), "sessions", id+".changes.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		e.t.Fatal(err)
	}
	defer fh.Close()
	if _, err := fh.WriteString(strings.Join(lines, "\n") + "\n"); err != nil {
		e.t.Fatal(err)
	}
}

func (e *snapEnv) lines(s *Session) []map[string]any {
	e.t.Helper()
	var out []map[string]any
	_, err := journal.Read(e.store.fsys, changesName(e.ws.dir, s.ID()), func(b []byte) error {
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			return err
		}
		out = append(out, m)
		return nil
	})
	if err != nil && !vfs.IsNotExist(err) {
		e.t.Fatal(err)
	}
	return out
}

func (e *snapEnv) kinds(s *Session) string {
	var k []string
	for _, l := range e.lines(s) {
		k = append(k, l["kind"].(string))
	}
	return strings.Join(k, ",")
}

// trail is the session's audit lines holding event ev.
func (e *snapEnv) trail(s *Session, ev string) []map[string]any {
	e.t.Helper()
	var out []map[string]any
	_, err := e.ws.Trail(e.ctx, s.ID(), func(b []byte) error {
		var m map[string]any
		json.Unmarshal(b, &m)
		if m["event"] == ev {
			out = append(out, m)
		}
		return nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return out
}

// must returns v once err is checked: must(f())(t) fails the test t on
// an error (t.Fatal), so the other tests still run.
func must[T any](v T, err error) func(testing.TB) T {
	return func(t testing.TB) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func refused(t *testing.T, err error, words string) {
	t.Helper()
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), words) {
		t.Fatalf("err = %v, want ErrRefused saying %q", err, words)
	}
}

func TestWriteUndoRedo(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.session()
	e.put("src/app.ts", "one\n")
	a := must(s.ToolWrite(e.ctx, "src/app.ts", []byte("two\n")))(t)
	if a.Snapshot == nil || !changes.ValidSnapID(*a.Snapshot) || a.Session != s.ID() {
		t.Fatalf("answer %+v", a)
	}
	if len(a.Files) != 1 || a.Files[0] != e.path("src/app.ts") || len(a.Skipped) != 0 {
		t.Fatalf("answer files %v skipped %v", a.Files, a.Skipped)
	}
	e.want("src/app.ts", "two\n")
	b := must(s.ToolWrite(e.ctx, "new/dir/made.txt", []byte("fresh")))(t)
	e.want("new/dir/made.txt", "fresh")

	// The change line, as changes_log.go draws it.
	ls := e.lines(s)
	if len(ls) != 2 {
		t.Fatalf("%d lines, want 2", len(ls))
	}
	l := ls[0]
	f := l["files"].([]any)[0].(map[string]any)
	before, after := f["before"].(map[string]any), f["after"].(map[string]any)
	sum := sha256.Sum256([]byte("one\n"))
	if l["v"] != 1.0 || l["kind"] != "change" || l["id"] != *a.Snapshot || l["seq"] != 1.0 || l["tool"] != "write" ||
		l["scope"] != "paths" || f["path"] != "src/app.ts" || before["sha256"] != hex.EncodeToString(sum[:]) ||
		before["data"] != base64.StdEncoding.EncodeToString([]byte("one\n")) || before["oid"] != nil ||
		before["size"] != 4.0 || before["mode"] != "file" || after["size"] != 4.0 || ls[1]["seq"] != 2.0 {
		t.Fatalf("change line %v", l)
	}
	// The after state is the content's identity, not an object.
	sum = sha256.Sum256([]byte("two\n"))
	if after["sha256"] != hex.EncodeToString(sum[:]) || after["oid"] != nil || after["mode"] != "file" {
		t.Fatalf("after state %v, want hash-only", after)
	}
	if ls[1]["files"].([]any)[0].(map[string]any)["before"] != nil {
		t.Fatalf("a created file is not recorded absent: %v", ls[1])
	}

	// Undo deletes the created file, then restores the edited one.
	r := must(s.Undo(e.ctx))(t)
	if r.Action != "undo" || r.Cursor != 1 || len(r.Steps) != 1 || r.Steps[0].ID != *b.Snapshot ||
		len(r.Steps[0].Removed) != 1 || r.Steps[0].Removed[0] != e.path("new/dir/made.txt") {
		t.Fatalf("undo %+v", r)
	}
	e.want("new/dir/made.txt", "<absent>")
	r = must(s.Undo(e.ctx))(t)
	if r.Cursor != 0 || r.Steps[0].Restored[0] != e.path("src/app.ts") || r.Steps[0].Tool != "write" {
		t.Fatalf("undo %+v", r)
	}
	e.want("src/app.ts", "one\n")
	_, err := s.Undo(e.ctx)
	refused(t, err, "nothing to undo")

	// Redo goes forward in the same order.
	r = must(s.Redo(e.ctx))(t)
	if r.Action != "redo" || r.Cursor != 1 || r.Steps[0].ID != *a.Snapshot {
		t.Fatalf("redo %+v", r)
	}
	e.want("src/app.ts", "two\n")
	must(s.Redo(e.ctx))(t)
	e.want("new/dir/made.txt", "fresh")
	_, err = s.Redo(e.ctx)
	refused(t, err, "nothing to redo")
	if got := e.kinds(s); got != "change,change,undo,undo,redo,redo" {
		t.Fatalf("journal kinds %s", got)
	}

	// Every restore is audited with its counts.
	au := e.trail(s, "session.snapshot_restore")
	if len(au) != 6 { // four done, two refused
		t.Fatalf("%d restore audit lines, want 6: %v", len(au), au)
	}
	steps := au[0]["steps"].([]any)[0].(map[string]any)
	if au[0]["outcome"] != "ok" || au[0]["action"] != "undo" || steps["removed"] != 1.0 || steps["id"] != *b.Snapshot {
		t.Fatalf("audit line %v", au[0])
	}
	if au[2]["outcome"] != "refused" {
		t.Fatalf("refused undo audited as %v", au[2])
	}
}

func TestUndoKeepsHandEditForRedo(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.session()
	e.put("a.txt", "original")
	must(s.ToolWrite(e.ctx, "a.txt", []byte("agent")))(t)
	e.put("a.txt", "agent + my hand edit")
	must(s.Undo(e.ctx))(t)
	e.want("a.txt", "original")
	must(s.Redo(e.ctx))(t)
	e.want("a.txt", "agent + my hand edit")
	// And again: undo keeps what is there now.
	must(s.Undo(e.ctx))(t)
	e.want("a.txt", "original")
	must(s.Redo(e.ctx))(t)
	e.want("a.txt", "agent + my hand edit")
}

func TestRedoRefusedWhenFileChangedSinceUndo(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.session()
	e.put("a.txt", "v1")
	must(s.ToolWrite(e.ctx, "a.txt", []byte("v2")))(t)
	must(s.Undo(e.ctx))(t)
	e.put("a.txt", "typed after the undo")
	_, err := s.Redo(e.ctx)
	refused(t, err, "changed since the undo")
	e.want("a.txt", "typed after the undo")
}

func TestRedoAfterNewEditRefused(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.session()
	e.put("a.txt", "v1")
	must(s.ToolWrite(e.ctx, "a.txt", []byte("v2")))(t)
	undone := must(s.ToolWrite(e.ctx, "b.txt", []byte("b")))(t)
	must(s.Undo(e.ctx))(t)
	must(s.ToolWrite(e.ctx, "c.txt", []byte("c")))(t)
	_, err := s.Redo(e.ctx)
	refused(t, err, "nothing to redo")
	e.want("b.txt", "<absent>")
	// The tool's change line, then (once its file changed) the discard;
	// a close line may follow once the folders are synced.
	ls := e.lines(s)
	if ls[len(ls)-1]["kind"] == "close" {
		ls = ls[:len(ls)-1]
	}
	c, d := ls[len(ls)-2], ls[len(ls)-1]
	if c["kind"] != "change" || d["kind"] != "discard" || d["ids"].([]any)[0] != *undone.Snapshot {
		t.Fatalf("no discard line after the new change: %v, %v", c, d)
	}
	l := must(s.Snapshots(e.ctx))(t)
	if l.Cursor != 2 || len(l.Snapshots) != 2 {
		t.Fatalf("list %+v", l)
	}
	// The same after a reopen: the branch stays discarded.
	s = e.reopen(s)
	_, err = s.Redo(e.ctx)
	refused(t, err, "nothing to redo")
}

func TestRestoreTo(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.session()
	e.put("a.txt", "a0")
	var ids []string
	for _, c := range []string{"a1", "a2", "a3"} {
		a := must(s.ToolWrite(e.ctx, "a.txt", []byte(c)))(t)
		ids = append(ids, *a.Snapshot)
	}
	must(s.ToolWrite(e.ctx, "b.txt", []byte("b")))(t)
	r := must(s.RestoreTo(e.ctx, ids[1]))(t)
	if r.Action != "restore" || r.Cursor != 1 || len(r.Steps) != 3 || r.Steps[2].ID != ids[1] {
		t.Fatalf("restore %+v", r)
	}
	e.want("a.txt", "a1")
	e.want("b.txt", "<absent>")
	_, err := s.RestoreTo(e.ctx, ids[2])
	refused(t, err, "already undone")
	_, err = s.RestoreTo(e.ctx, "zzzz-00000000")
	refused(t, err, "no snapshot")
	// Redo walks back up one at a time.
	must(s.Redo(e.ctx))(t)
	e.want("a.txt", "a2")
	l := must(s.Snapshots(e.ctx))(t)
	if l.Cursor != 2 || !l.Snapshots[1].Applied || l.Snapshots[2].Applied {
		t.Fatalf("list %+v", l)
	}
}

func TestCursorRebuiltFromJournal(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.session()
	e.put("a.txt", "a0")
	must(s.ToolWrite(e.ctx, "a.txt", []byte("a1")))(t)
	must(s.ToolWrite(e.ctx, "a.txt", []byte("a2")))(t)
	must(s.ToolWrite(e.ctx, "b.txt", []byte("b1")))(t)
	must(s.Undo(e.ctx))(t)
	must(s.Undo(e.ctx))(t)
	e.put("a.txt", "hand")
	want := must(s.Snapshots(e.ctx))(t)
	s = e.reopen(s)
	got := must(s.Snapshots(e.ctx))(t)
	gj, _ := json.Marshal(got)
	wj, _ := json.Marshal(want)
	if !bytes.Equal(gj, wj) || got.Cursor != 1 {
		t.Fatalf("after reopen\n%s\nwant\n%s", gj, wj)
	}
	// The lock-free view folds the same.
	v := must(e.ws.Snapshots(e.ctx, s.ID()))(t)
	vj, _ := json.Marshal(v)
	if !bytes.Equal(vj, wj) {
		t.Fatalf("view\n%s\nwant\n%s", vj, wj)
	}
	// The kept content survives the reopen: redo refuses to overwrite the
	// hand edit, then puts the kept one back once it is undone by hand.
	_, err := s.Redo(e.ctx)
	refused(t, err, "a.txt")
	e.put("a.txt", "a1")
	must(s.Redo(e.ctx))(t)
	e.want("a.txt", "a2")
	must(s.Redo(e.ctx))(t)
	e.want("b.txt", "b1")
}

func TestTooLargeFileSkippedAndNamed(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.session()
	big := strings.Repeat("x", 3<<20)
	e.put("big.bin", big)
	e.put("small.txt", "s0")
	a := must(s.Change(e.ctx, "apply_patch", []string{"big.bin", "small.txt"}, func(*Change) error {
		e.put("big.bin", big+"y")
		e.put("small.txt", "s1")
		return nil
	}))(t)
	if a.Snapshot == nil || len(a.Skipped) != 1 || a.Skipped[0] != e.path("big.bin") {
		t.Fatalf("answer %+v", a)
	}
	f := e.lines(s)[0]["files"].([]any)[0].(map[string]any)
	if b := f["before"].(map[string]any); b["skipped"] != "too large" || b["size"] != float64(3<<20) || b["oid"] != nil {
		t.Fatalf("big file recorded %v", f)
	}
	l := must(s.Snapshots(e.ctx))(t)
	if l.Snapshots[0].Files[0].Skipped != "too large" {
		t.Fatalf("list %+v", l)
	}
	r := must(s.Undo(e.ctx))(t)
	if st := r.Steps[0]; len(st.Skipped) != 1 || st.Skipped[0] != e.path("big.bin") || len(st.Restored) != 1 {
		t.Fatalf("undo %+v", r)
	}
	e.want("small.txt", "s0")
	if e.get("big.bin") != big+"y" {
		t.Fatal("undo touched the skipped file")
	}
	r = must(s.Redo(e.ctx))(t)
	if st := r.Steps[0]; len(st.Skipped) != 1 || st.Skipped[0] != e.path("big.bin") {
		t.Fatalf("redo %+v", r)
	}
	e.want("small.txt", "s1")
}

func TestSnapshotsDisabled(t *testing.T) {
	for _, c := range []struct {
		name, config string
		opts         SessionOptions
	}{
		{"config", `{"snapshots":{"enabled":false}}`, SessionOptions{}},
		{"flag", "", SessionOptions{NoSnapshots: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newSnapEnv(t, c.config)
			s := e.ws.Create(c.opts)
			defer s.Close()
			e.put("a.txt", "a0")
			a := must(s.ToolWrite(e.ctx, "a.txt", []byte("a1")))(t)
			if a.Snapshot != nil || len(a.Files) != 1 {
				t.Fatalf("answer %+v", a)
			}
			e.want("a.txt", "a1")
			_, err := s.Undo(e.ctx)
			refused(t, err, "nothing to undo")
			if k := e.kinds(s); k != "" {
				t.Fatalf("changes journal holds %s", k)
			}
			e.want("a.txt", "a1")
		})
	}
}

func TestRequiredGlobsRefuse(t *testing.T) {
	e := newSnapEnv(t, `{"snapshots":{"max_file_bytes":10,"required":["contracts/**","/nowhere/*.yaml"]}}`)
	s := e.session()
	e.put("contracts/deep/big.sol", "more than ten bytes")
	e.put("notes/big.md", "more than ten bytes")
	_, err := s.ToolWrite(e.ctx, "contracts/deep/big.sol", []byte("x"))
	var re *RequiredError
	if !errors.As(err, &re) || !errors.Is(err, ErrRefused) || len(re.Files) != 1 || re.Files[0].Path != "contracts/deep/big.sol" ||
		!strings.Contains(re.Files[0].Reason, "too large") || !strings.Contains(err.Error(), "contracts/deep/big.sol") {
		t.Fatalf("err = %v", err)
	}
	e.want("contracts/deep/big.sol", "more than ten bytes")
	au := e.trail(s, "snapshot.required")
	if len(au) != 1 || au[0]["outcome"] != "denied" || au[0]["rule"] != "snapshots.required" || au[0]["files"] != 1.0 {
		t.Fatalf("audit %v", au)
	}
	ev := e.lines(s)
	if len(ev) != 1 || ev[0]["kind"] != "evidence" || ev[0]["signal"] != "permission" || ev[0]["decision"] != "deny" ||
		ev[0]["rule"] != "snapshots.required" {
		t.Fatalf("evidence %v", ev)
	}
	// Not required: skipped, but the edit goes ahead.
	a := must(s.ToolWrite(e.ctx, "notes/big.md", []byte("x")))(t)
	if len(a.Skipped) != 1 || a.Snapshot == nil {
		t.Fatalf("answer %+v", a)
	}
	// Creating a required file is allowed, and undo deletes it.
	must(s.ToolWrite(e.ctx, "contracts/new.sol", []byte("new")))(t)
	must(s.Undo(e.ctx))(t)
	e.want("contracts/new.sol", "<absent>")

	// An absolute glob matches the absolute path.
	e2 := newSnapEnv(t, "")
	os.WriteFile(filepath.Join(e2.store.Home(), "config.json"),
		[]byte(`{"snapshots":{"max_file_bytes":10,"required":["`+e2.dir+`/cfg/*.yaml"]}}`), 0o600)
	e2.put("cfg/a.yaml", "more than ten bytes")
	_, err = e2.session().ToolEdit(e2.ctx, "cfg/a.yaml", "more", "less")
	refused(t, err, "cfg/a.yaml")
	e2.want("cfg/a.yaml", "more than ten bytes")
}

func TestRequiredAllWithSnapshotsOff(t *testing.T) {
	e := newSnapEnv(t, `{"snapshots":{"enabled":false,"required":true}}`)
	s := e.session()
	e.put("a.txt", "a0")
	_, err := s.ToolWrite(e.ctx, "a.txt", []byte("a1"))
	refused(t, err, "snapshots are off")
	e.want("a.txt", "a0")
	must(s.ToolWrite(e.ctx, "b.txt", []byte("new file")))(t)
	e.want("b.txt", "new file")
}

func TestRequiredRefusedWhenStoreFails(t *testing.T) {
	mem := vfs.NewMem()
	faulty := vfs.NewFaulty(mem)
	s, err := OpenFS(faulty, "/mem")
	if err != nil {
		t.Fatal(err)
	}
	vfs.WriteFileAtomic(mem, "config.json", []byte(`{"snapshots":{"required":true}}`))
	dir := t.TempDir()
	ws := must(s.Workspace(dir))(t)
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("precious"), 0o644)
	sess := ws.Create(SessionOptions{})
	defer sess.Close()
	must(sess.Append(context.Background(), Item{Type: User, Text: "go"}))(t)
	faulty.Inject(vfs.Rule{Op: vfs.OpCreate})
	_, err = sess.ToolWrite(context.Background(), "a.txt", []byte("clobbered"))
	refused(t, err, "store failed")
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "precious" {
		t.Fatalf("a.txt holds %q", b)
	}
	faulty.Reset()
	a := must(sess.ToolWrite(context.Background(), "a.txt", []byte("written")))(t)
	if a.Snapshot == nil {
		t.Fatal("no snapshot once the store works again")
	}
}

func TestEditTool(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.session()
	e.put("a.go", "func a() {}\nfunc b() {}\n")
	for _, old := range []string{"func", "missing", ""} {
		_, err := s.ToolEdit(e.ctx, "a.go", old, "x")
		if !errors.Is(err, ErrBadInput) {
			t.Fatalf("edit of %q: err = %v, want ErrBadInput", old, err)
		}
	}
	e.want("a.go", "func a() {}\nfunc b() {}\n")
	if k := e.kinds(s); k != "" {
		t.Fatalf("a refused edit left %s", k)
	}
	must(s.ToolEdit(e.ctx, "a.go", "b()", "c()"))(t)
	e.want("a.go", "func a() {}\nfunc c() {}\n")
	must(s.Undo(e.ctx))(t)
	e.want("a.go", "func a() {}\nfunc b() {}\n")
	if _, err := s.ToolEdit(e.ctx, "nope.go", "a", "b"); !errors.Is(err, ErrBadInput) {
		t.Fatalf("edit of a missing file: %v", err)
	}
}

func TestRmLinksAndExecBit(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.session()
	e.put("run.sh", "#!/bin/sh\n")
	os.Chmod(e.path("run.sh"), 0o755)
	e.put("target.txt", "t")
	if err := os.Symlink("target.txt", e.path("link")); err != nil {
		t.Fatal(err)
	}
	must(s.ToolEdit(e.ctx, "run.sh", "sh", "bash"))(t)
	if fi, _ := os.Stat(e.path("run.sh")); fi.Mode().Perm()&0o111 == 0 {
		t.Fatal("edit lost the executable bit")
	}
	must(s.ToolRm(e.ctx, "run.sh"))(t)
	a := must(s.ToolRm(e.ctx, e.path("link")))(t) // absolute inside the workspace
	if a.Files[0] != e.path("link") {
		t.Fatalf("answer %+v", a)
	}
	if _, err := os.Lstat(e.path("link")); !os.IsNotExist(err) {
		t.Fatal("rm left the link")
	}
	f := e.lines(s)[2]["files"].([]any)[0].(map[string]any)
	if b := f["before"].(map[string]any); b["mode"] != "link" || b["size"] != 10.0 {
		t.Fatalf("link recorded as %v", f)
	}
	must(s.Undo(e.ctx))(t)
	if tgt, err := os.Readlink(e.path("link")); err != nil || tgt != "target.txt" {
		t.Fatalf("undo made link -> %q, %v", tgt, err)
	}
	must(s.Undo(e.ctx))(t)
	fi, err := os.Stat(e.path("run.sh"))
	if err != nil || fi.Mode().Perm()&0o111 == 0 {
		t.Fatalf("undo of rm: %v %v", fi, err)
	}
	e.want("run.sh", "#!/bin/bash\n")
	must(s.Undo(e.ctx))(t)
	e.want("run.sh", "#!/bin/sh\n")
	if fi, _ := os.Stat(e.path("run.sh")); fi.Mode().Perm() != 0o755 {
		t.Fatalf("mode %v", fi.Mode())
	}
}

func TestLimitsDropOldest(t *testing.T) {
	e := newSnapEnv(t, `{"snapshots":{"max_per_session":2}}`)
	s := e.session()
	var ids []string
	for _, c := range []string{"1", "2", "3"} {
		ids = append(ids, *must(s.ToolWrite(e.ctx, "a.txt", []byte(c)))(t).Snapshot)
	}
	l := must(s.Snapshots(e.ctx))(t)
	if len(l.Snapshots) != 2 || l.Snapshots[0].ID != ids[1] || l.Cursor != 2 {
		t.Fatalf("list %+v", l)
	}
	ls := e.lines(s)
	if d := ls[len(ls)-1]; d["kind"] != "drop" || d["why"] != "max_per_session" || d["ids"].([]any)[0] != ids[0] {
		t.Fatalf("drop line %v", d)
	}
	must(s.Undo(e.ctx))(t)
	must(s.Undo(e.ctx))(t)
	e.want("a.txt", "1")
	_, err := s.Undo(e.ctx)
	refused(t, err, "nothing to undo")

	// Bytes: each snapshot of a 40-byte file refers to 40 stored bytes, its
	// pre-image (the after state is a hash, no object): three are 120.
	e = newSnapEnv(t, `{"snapshots":{"max_bytes_per_session":100}}`)
	s = e.session()
	e.put("b.txt", strings.Repeat("0", 40))
	for _, c := range "123" {
		must(s.ToolWrite(e.ctx, "b.txt", bytes.Repeat([]byte{byte(c)}, 40)))(t)
	}
	l = must(s.Snapshots(e.ctx))(t)
	ls = e.lines(s)
	if len(l.Snapshots) != 2 || ls[len(ls)-1]["why"] != "max_bytes_per_session" {
		t.Fatalf("list %+v, last line %v", l, ls[len(ls)-1])
	}
	s = e.reopen(s)
	if n := len(must(s.Snapshots(e.ctx))(t).Snapshots); n != 2 {
		t.Fatalf("%d snapshots after reopen", n)
	}
}

func TestToolPathsOutsideRefused(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.session()
	outside := t.TempDir()
	for _, p := range []string{"../x", "a/../../x", filepath.Join(outside, "x"), "", ".", e.dir} {
		if _, err := s.ToolWrite(e.ctx, p, []byte("no")); !errors.Is(err, ErrBadInput) {
			t.Fatalf("write %q: err = %v, want ErrBadInput", p, err)
		}
	}
	// A planted link to a folder outside: os.Root refuses to go through it,
	// and every file tool says the name is outside the workspace (bad
	// input), not that cairn failed.
	os.Symlink(outside, e.path("out"))
	for tool, run := range map[string]func() (*ToolAnswer, error){
		"write": func() (*ToolAnswer, error) { return s.ToolWrite(e.ctx, "out/x", []byte("no")) },
		"edit":  func() (*ToolAnswer, error) { return s.ToolEdit(e.ctx, "out/x", "a", "b") },
		"rm":    func() (*ToolAnswer, error) { return s.ToolRm(e.ctx, "out/x") },
		"patch": func() (*ToolAnswer, error) {
			return s.ToolPatch(e.ctx, []byte("*** Begin Patch\n*** Add File: out/x\n+no\n*** End Patch\n"))
		},
	} {
		if _, err := run(); !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "outside the workspace") {
			t.Fatalf("%s through a planted link: err = %v, want ErrBadInput naming the workspace", tool, err)
		}
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Fatalf("something was written outside: %v", ents)
	}
}

// TestToolNameEndingWithSlash: a name ending with / names a folder: no
// file tool makes, changes or removes the file its cleaned name would be.
func TestToolNameEndingWithSlash(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.session()
	e.put("f.txt", "keep")
	for _, p := range []string{"newdir/", "newdir/.", "f.txt/", e.path("f.txt") + "/"} {
		if _, err := s.ToolWrite(e.ctx, p, []byte("no")); !errors.Is(err, ErrBadInput) {
			t.Fatalf("write %q: err = %v, want ErrBadInput", p, err)
		}
		if _, err := s.ToolRm(e.ctx, p); !errors.Is(err, ErrBadInput) {
			t.Fatalf("rm %q: err = %v, want ErrBadInput", p, err)
		}
		if _, err := s.ToolEdit(e.ctx, p, "keep", "no"); !errors.Is(err, ErrBadInput) {
			t.Fatalf("edit %q: err = %v, want ErrBadInput", p, err)
		}
	}
	if _, err := s.ToolPatch(e.ctx, []byte("*** Begin Patch\n*** Add File: newdir/\n+no\n*** End Patch\n")); !errors.Is(err, ErrBadInput) {
		t.Fatalf("patch adding newdir/: err = %v, want ErrBadInput", err)
	}
	if _, err := os.Lstat(e.path("newdir")); !os.IsNotExist(err) {
		t.Fatalf("newdir was made: %v", err)
	}
	if b, err := os.ReadFile(e.path("f.txt")); err != nil || string(b) != "keep" {
		t.Fatalf("f.txt %q, %v", b, err)
	}
}

// TestHostileChangeLines hand-writes change lines naming ../outside, an
// absolute path, a path through a planted link and a planted link itself,
// then undoes and redoes them: nothing outside the workspace is touched.
func TestHostileChangeLines(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.session()
	must(s.ToolWrite(e.ctx, "ok.txt", []byte("ok1")))(t)
	id := s.ID()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	victim := filepath.Join(outside, "victim")
	os.WriteFile(victim, []byte("outside content"), 0o644)
	os.Symlink(outside, e.path("dirlink"))
	os.Symlink(victim, e.path("filelink"))
	evil := must(e.ws.objects().PutBytes(e.ctx, []byte("EVIL")))(t).ID.String()
	f := func(p string) string {
		return `{"path":"` + p + `","before":{"oid":"` + evil + `","size":4,"mode":"file"},"after":null}`
	}
	var lines []string
	for i, p := range []string{"../" + filepath.Base(outside) + "/victim", victim, "dirlink/victim", "filelink", "sub/../../x", "dirlink/new"} {
		lines = append(lines, `{"v":1,"kind":"change","id":"h`+string(rune('a'+i))+`-0000000`+string(rune('0'+i))+`","seq":`+
			string(rune('2'+i))+`,"at":"2026-01-01T00:00:00.000Z","tool":"edit","scope":"paths","files":[`+f(p)+`]}`)
	}
	e.plant(id, lines)

	s, err := e.ws.Open(e.ctx, id, SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	l := must(s.Snapshots(e.ctx))(t)
	if len(l.Snapshots) != 4 { // ok.txt, dirlink/victim, filelink, dirlink/new
		t.Fatalf("%d snapshots folded, want 4: %+v", len(l.Snapshots), l)
	}
	// Through the planted folder link nothing can be kept or restored:
	// undo refuses, naming the way past it.
	_, err = s.Undo(e.ctx)
	var re *RestoreError
	if !errors.As(err, &re) || !errors.Is(err, ErrRefused) || re.Below != l.Snapshots[2].ID ||
		len(re.Files) != 1 || re.Files[0].Path != e.path("dirlink/new") || !strings.Contains(re.Files[0].Reason, "path escapes") {
		t.Fatalf("undo through a folder link: %v", err)
	}
	r := must(s.RestoreTo(e.ctx, re.Below))(t)
	if len(r.Steps) != 2 || len(r.Steps[0].NotRestored) != 1 || r.Steps[0].NotRestored[0].Path != e.path("dirlink/new") {
		t.Fatalf("restore past dirlink/new: %+v", r)
	}
	// filelink was replaced inside the workspace, not followed.
	if fi, err := os.Lstat(e.path("filelink")); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("filelink after undo: %v %v", fi, err)
	}
	e.want("filelink", "EVIL")
	_, err = s.Undo(e.ctx)
	if !errors.As(err, &re) || re.Files[0].Path != e.path("dirlink/victim") {
		t.Fatalf("undo of dirlink/victim: %v", err)
	}
	for range 2 {
		if _, err := s.Redo(e.ctx); err != nil {
			t.Fatal(err)
		}
	}
	if tgt, _ := os.Readlink(e.path("filelink")); tgt != victim {
		t.Fatalf("redo did not put the link back: %q", tgt)
	}
	must(s.RestoreTo(e.ctx, l.Snapshots[0].ID))(t)
	e.want("ok.txt", "<absent>")
	if b, _ := os.ReadFile(victim); string(b) != "outside content" {
		t.Fatalf("the file outside was changed: %q", b)
	}
	ents, _ := os.ReadDir(outside)
	if len(ents) != 1 {
		t.Fatalf("files appeared outside: %v", ents)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(e.dir), "x")); !os.IsNotExist(err) {
		t.Fatal("x was created beside the workspace")
	}
}

// TestObjectsHashToTheirNames checks every object under objects/ against
// its name, decompressing .zst files independently of the objects package.
func TestObjectsHashToTheirNames(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.session()
	// Larger than fstate.MaxInline, so the pre-image is an object too.
	e.put("z.txt", strings.Repeat("compress me ", 2000))
	must(s.ToolWrite(e.ctx, "z.txt", []byte(strings.Repeat("and me too ", 2000))))(t)
	must(s.ToolWrite(e.ctx, "r.bin", []byte{1, 2, 3}))(t)
	e.put("r.bin", "hand")
	must(s.Undo(e.ctx))(t) // keeps "hand"
	must(s.Undo(e.ctx))(t) // keeps the second z.txt
	root := filepath.Join(e.ws.Folder(), "objects")
	n, z := 0, 0
	dec, _ := zstd.NewReader(nil)
	defer dec.Close()
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		name := filepath.Base(filepath.Dir(p)) + filepath.Base(p)
		if n, ok := strings.CutSuffix(name, ".zst"); ok {
			name, z = n, z+1
			if b, err = dec.DecodeAll(b, nil); err != nil {
				return err
			}
		}
		sum := sha256.Sum256(b)
		if hex.EncodeToString(sum[:]) != name {
			t.Errorf("object %s hashes to %x", p, sum)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The two z.txt versions (pre-image, kept by undo) and "hand" (kept by
	// undo): no after state is stored, so r.bin's {1,2,3} is not.
	if n != 3 || z != 2 {
		t.Fatalf("%d objects (%d compressed), want 3 with both z.txt versions compressed", n, z)
	}
}

func TestFailedWriteRecordsNothing(t *testing.T) {
	mem := vfs.NewMem()
	faulty := vfs.NewFaulty(mem)
	e := newSnapEnv(t, "", WithWorkspaceFS(func(string) (vfs.FS, error) { return faulty, nil }))
	s := e.session()
	vfs.WriteFileAtomic(mem, "a.txt", []byte("before"))
	faulty.Inject(vfs.Rule{Op: vfs.OpRename, Path: "*a.txt*"})
	if _, err := s.ToolWrite(e.ctx, "a.txt", []byte("after")); err == nil {
		t.Fatal("write succeeded through a failing rename")
	}
	faulty.Reset()
	if b, _ := vfs.ReadFile(mem, "a.txt"); string(b) != "before" {
		t.Fatalf("a.txt holds %q", b)
	}
	if ents, _ := mem.ReadDir("."); len(ents) != 1 {
		t.Fatalf("temp files left: %v", ents)
	}
	if l := must(s.Snapshots(e.ctx))(t); len(l.Snapshots) != 0 {
		t.Fatalf("a failed tool left a snapshot: %+v", l)
	}
	// On the in-memory workspace the whole cycle works.
	must(s.ToolWrite(e.ctx, "a.txt", []byte("after")))(t)
	must(s.Undo(e.ctx))(t)
	if b, _ := vfs.ReadFile(mem, "a.txt"); string(b) != "before" {
		t.Fatalf("a.txt holds %q after undo", b)
	}
}

func FuzzChangesFold(f *testing.F) {
	f.Add([]byte(`{"v":1,"kind":"change","id":"a-00000000","seq":1,"at":"2026-01-01T00:00:00.000Z","tool":"edit","scope":"paths","files":[{"path":"a","before":null,"after":null}]}` + "\n" +
		`{"v":1,"kind":"undo","id":"a-00000000","files":[{"path":"a","kept":null}]}` + "\n" + `{"v":1,"kind":"redo","id":"a-00000000"}`))
	f.Add([]byte(`{"v":1,"kind":"change","id":"a-00000000","tool":"x","files":[{"path":"../a","before":{"oid":"zz"}}]}`))
	f.Add([]byte(`{"v":1,"kind":"drop","ids":["a-00000000"]}`))
	f.Add([]byte(`{"v":1,"kind":"change","id":"a-00000000","seq":1,"at":"2026-01-01T00:00:00.000Z","tool":"edit","scope":"paths","files":[{"path":"a","before":null,"after":null}]}` + "\n" +
		`{"v":1,"kind":"undo","id":"a-00000000","files":[{"path":"a","kept":null}]}` + "\n" +
		`{"v":1,"kind":"change","id":"b-00000000","seq":2,"tool":"write","scope":"paths","files":[{"path":"b","before":{"sha256":"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855","size":0,"mode":"file"},"after":null}]}` + "\n" +
		`{"v":1,"kind":"abort","id":"b-00000000"}` + "\n" + `{"v":1,"kind":"redo","id":"a-00000000"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var st snapStack
		for _, b := range bytes.Split(b, []byte("\n")) {
			if l, err := changes.Decode(b); err == nil {
				st.Fold(l)
			}
		}
		applied := true
		for _, e := range st.Entries() {
			if e.Applied && !applied {
				t.Fatal("an applied snapshot above an undone one")
			}
			applied = e.Applied
			for _, f := range e.Rec.Files {
				if !fstate.ValidRel(f.Path) {
					t.Fatalf("path %q folded", f.Path)
				}
			}
		}
	})
}

// objectIDs is every object of the workspace's store.
func (e *snapEnv) objectIDs() map[string]bool {
	e.t.Helper()
	ids := map[string]bool{}
	err := e.ws.objects().Walk(e.ctx, func(i objects.Info) error {
		ids[i.ID.String()] = true
		return nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return ids
}

func sumHex(b string) string {
	h := sha256.Sum256([]byte(b))
	return hex.EncodeToString(h[:])
}

// TestEditStoresOnlyThePreImage: a write and an edit each store the
// pre-image only, inline in the change line when it is at most fstate.MaxInline
// bytes and as an object when larger; undo and redo still round-trip
// exactly, a hand edit made after the tool included, from memory and from
// the journal alone.
func TestEditStoresOnlyThePreImage(t *testing.T) {
	for _, big := range []bool{false, true} {
		t.Run(fmt.Sprintf("big=%v", big), func(t *testing.T) {
			pad := ""
			if big {
				pad = strings.Repeat("// padding\n", fstate.MaxInline/10)
			}
			v := func(s string) string { return "package a // " + s + "\n" + pad }
			e := newSnapEnv(t, "")
			s := e.session()
			e.put("a.go", v("v1"))
			must(s.ToolWrite(e.ctx, "a.go", []byte(v("v2"))))(t)
			must(s.ToolEdit(e.ctx, "a.go", "v2", "v3"))(t)
			got := e.objectIDs()
			want := map[string]bool{}
			if big {
				want = map[string]bool{sumHex(v("v1")): true, sumHex(v("v2")): true}
			}
			if !maps.Equal(got, want) {
				t.Fatalf("objects after a write and an edit: %v, want %v", got, want)
			}
			// Each before is an object that exists or the content inline;
			// each after is a hash.
			for i, l := range e.lines(s) {
				pre := v([]string{"v1", "v2"}[i])
				for _, f := range l["files"].([]any) {
					f := f.(map[string]any)
					b := f["before"].(map[string]any)
					switch {
					case big && !got[b["oid"].(string)]:
						t.Fatalf("before %v names no object", b)
					case !big && (b["oid"] != nil || b["sha256"] != sumHex(pre) ||
						b["data"] != base64.StdEncoding.EncodeToString([]byte(pre))):
						t.Fatalf("before %v, want %q inline", b, pre)
					}
					if a := f["after"].(map[string]any); a["oid"] != nil || a["sha256"] == nil {
						t.Fatalf("after %v", a)
					}
				}
			}

			must(s.Undo(e.ctx))(t)
			e.want("a.go", v("v2"))
			must(s.Redo(e.ctx))(t)
			e.want("a.go", v("v3"))
			e.put("a.go", v("v3 and mine"))
			must(s.Undo(e.ctx))(t)
			e.want("a.go", v("v2"))
			must(s.Undo(e.ctx))(t)
			e.want("a.go", v("v1"))
			must(s.Redo(e.ctx))(t)
			e.want("a.go", v("v2"))
			must(s.Redo(e.ctx))(t)
			e.want("a.go", v("v3 and mine"))
			// What undo kept is stored: that is what redo put back.
			if got := e.objectIDs(); !got[sumHex(v("v3 and mine"))] {
				t.Fatalf("the hand edit was not kept as an object: %v", got)
			}
			// The same from the journal alone.
			s = e.reopen(s)
			must(s.Undo(e.ctx))(t)
			e.want("a.go", v("v2"))
			must(s.Redo(e.ctx))(t)
			e.want("a.go", v("v3 and mine"))
		})
	}
}

// TestAfterStateForms: a line written before the hash-only form (its after
// an object) still folds, undoes and redoes; a hash-only before or kept,
// or an F that is both, is refused as malformed.
func TestAfterStateForms(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.session()
	must(s.ToolWrite(e.ctx, "seed.txt", []byte("seed")))(t) // makes the journal
	id := s.ID()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	objs := e.ws.objects()
	old := must(objs.PutBytes(e.ctx, []byte("old")))(t).ID.String()
	newer := must(objs.PutBytes(e.ctx, []byte("new")))(t).ID.String()
	e.put("o.txt", "new")
	ref := func(k, sum string) string { return `{"` + k + `":"` + sum + `","size":3,"mode":"file"}` }
	line := func(n int, before, after string) string {
		return `{"v":1,"kind":"change","id":"ol` + string(rune('a'+n)) + `-0000000` + string(rune('0'+n)) + `","seq":` +
			string(rune('2'+n)) + `,"at":"2026-01-01T00:00:00.000Z","tool":"edit","scope":"paths","files":[{"path":"o.txt","before":` +
			before + `,"after":` + after + `}]}`
	}
	lines := []string{
		line(0, ref("sha256", old), ref("oid", newer)),                                 // hash-only before: refused
		line(1, `{"oid":"`+old+`","sha256":"`+old+`","size":3,"mode":"file"}`, "null"), // both: refused
		line(2, ref("oid", old), `{"sha256":"zz","size":3,"mode":"file"}`),             // bad hash: refused
		line(3, ref("oid", old), ref("oid", newer)),                                    // the old form: folded
	}
	e.plant(id, lines)
	s, err := e.ws.Open(e.ctx, id, SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	l := must(s.Snapshots(e.ctx))(t)
	if len(l.Snapshots) != 2 || l.Snapshots[1].ID != "old-00000003" {
		t.Fatalf("folded %+v, want the seed and the old-form line", l)
	}
	must(s.Undo(e.ctx))(t)
	e.want("o.txt", "old")
	must(s.Redo(e.ctx))(t)
	e.want("o.txt", "new")
}

// TestToolWriteCrashAtEverySync stops one ToolWrite and the Commit that
// ends its turn at each of their sync points in turn (the workspace and the
// state folder on one vfs.Mem), crashes, and checks what survived: the
// file is old or new, never partial, and new once Commit returned; the session, opened again, lists a change of it exactly when it
// is new (a change line whose write never happened is settled by an abort,
// and hidden from a reader before that), and undoing that change gives the
// old content back. Each point is crashed cleanly and, for eleven seeds,
// with a random share of the unsynced changes surviving: which sync points
// a run has depends on the order of two concurrent syncs, and the case of a
// line whose write was lost comes only from partial crashes, so a point
// takes more seeds (up to 40) until the run has met it.
func TestToolWriteCrashAtEverySync(t *testing.T) {
	// 10,000 bytes: the pre-image inline in the line; 40,000: an object.
	for _, reps := range []int{400, 1600} {
		t.Run(fmt.Sprint(reps*25), func(t *testing.T) { toolWriteCrashAtEverySync(t, reps) })
	}
}

func toolWriteCrashAtEverySync(t *testing.T, reps int) {
	ctx := context.Background()
	old := []byte(strings.Repeat("the old content of a.txt\n", reps))
	neu := []byte(strings.Repeat("the NEW content of a.txt\n", reps))
	dir := t.TempDir()
	points, settled := 0, 0
	names := func(l *SnapshotList) bool {
		for _, sn := range l.Snapshots {
			for _, f := range sn.Files {
				if strings.HasSuffix(f.Path, "a.txt") {
					return true
				}
			}
		}
		return false
	}
	for n := 0; ; n++ {
		completed := false
		// Seed 0 is a clean crash, the rest partial: twelve of them, and more
		// until some crash has kept a line whose write was lost.
		for seed := 0; seed < 12 || settled == 0 && seed < 40; seed++ {
			mem := vfs.NewMem()
			wsfs := WithWorkspaceFS(func(string) (vfs.FS, error) { return mem, nil })
			st, err := OpenFS(mem, "/mem", wsfs)
			if err != nil {
				t.Fatal(err)
			}
			ws := must(st.Workspace(dir))(t)
			s := ws.Create(SessionOptions{})
			must(s.ToolWrite(ctx, "src/warm.txt", []byte("materializes the session")))(t)
			if err := vfs.WriteFileAtomic(mem, "src/a.txt", old); err != nil {
				t.Fatal(err)
			}
			if err := mem.SyncDir("src"); err != nil {
				t.Fatal(err)
			}
			mem.FailAfterSyncs(n)
			_, err = s.ToolWrite(ctx, "src/a.txt", neu)
			if err == nil {
				err = s.Commit(ctx) // the end of the turn: the write is durable
			}
			if err != nil && !errors.Is(err, vfs.ErrCrashed) {
				t.Fatalf("sync point %d: %v", n, err)
			}
			completed = err == nil
			crashBySeed(mem, n, seed)
			s.Close()
			st.Close()

			got, err := vfs.ReadFile(mem, "src/a.txt")
			if err != nil {
				t.Fatalf("sync point %d seed %d: a.txt: %v", n, seed, err)
			}
			isNew := bytes.Equal(got, neu)
			if !isNew && !bytes.Equal(got, old) {
				t.Fatalf("sync point %d seed %d: a.txt is partial: %d bytes", n, seed, len(got))
			}
			if completed && seed == 0 && !isNew {
				t.Fatalf("sync point %d: a completed write was lost", n)
			}
			journal.Read(mem, changesName(ws.dir, s.ID()), func(b []byte) error {
				if !isNew && bytes.Contains(b, []byte(`"path":"src/a.txt"`)) {
					settled++
				}
				return nil
			})
			st = must(OpenFS(mem, "/mem", wsfs))(t)
			ws = must(st.Workspace(dir))(t)
			if l := must(ws.Snapshots(ctx, s.ID()))(t); names(l) != isNew {
				t.Fatalf("sync point %d seed %d: a reader lists a change of a.txt: %v; a.txt is new: %v", n, seed, names(l), isNew)
			}
			s2, err := ws.Open(ctx, s.ID(), SessionOptions{})
			if err != nil {
				t.Fatalf("sync point %d seed %d: open: %v", n, seed, err)
			}
			if l := must(s2.Snapshots(ctx))(t); names(l) != isNew {
				t.Fatalf("sync point %d seed %d: the owner lists a change of a.txt: %v; a.txt is new: %v", n, seed, names(l), isNew)
			}
			if isNew {
				must(s2.Undo(ctx))(t)
				if b, _ := vfs.ReadFile(mem, "src/a.txt"); !bytes.Equal(b, old) {
					t.Fatalf("sync point %d seed %d: undo gave %d bytes, not the old content", n, seed, len(b))
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
		if n > 100 {
			t.Fatal("ToolWrite never completed")
		}
	}
	if points < 3 { // the change line and the temp file (at once), the folder
		t.Fatalf("only %d sync points", points)
	}
	if settled == 0 {
		t.Fatal("no crash left a change line whose write never happened")
	}
	t.Logf("%d sync points, %d change lines settled", points, settled)
}
