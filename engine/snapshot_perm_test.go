package engine

import (
	"encoding/base64"
	"encoding/json"
	"io/fs"
	"os"
	"strings"
	"testing"

	"cairn/engine/internal/fstate"
	"cairn/internal/vfs"
)

// perm is the permission bits of workspace file rel on disk.
func (e *snapEnv) perm(rel string) fs.FileMode {
	e.t.Helper()
	fi, err := os.Lstat(e.path(rel))
	if err != nil {
		e.t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func (e *snapEnv) wantPerm(rel string, want fs.FileMode) {
	e.t.Helper()
	if got := e.perm(rel); got != want {
		e.t.Fatalf("%s is %04o, want %04o", rel, got, want)
	}
}

// TestUndoOfRmPutsBackPermissionBits: a file a tool removed comes back with
// the bits it had, a private one still private; redo removes it again and
// a second undo puts the same bits back.
func TestUndoOfRmPutsBackPermissionBits(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.session()
	files := map[string]fs.FileMode{".env": 0o600, "g.txt": 0o640, "ro.txt": 0o444, "run.sh": 0o750}
	for name, perm := range files {
		e.put(name, "SECRET="+name+"\n")
		if err := os.Chmod(e.path(name), perm); err != nil {
			t.Fatal(err)
		}
		must(s.ToolRm(e.ctx, name))(t)
	}
	for range files {
		must(s.Undo(e.ctx))(t)
	}
	for name, perm := range files {
		e.wantPerm(name, perm)
		e.want(name, "SECRET="+name+"\n")
	}
	for range files {
		must(s.Redo(e.ctx))(t)
	}
	for name := range files {
		e.want(name, "<absent>")
	}
	// The journal read back (a new owner) puts back the same bits.
	s = e.reopen(s)
	for range files {
		must(s.Undo(e.ctx))(t)
	}
	for name, perm := range files {
		e.wantPerm(name, perm)
	}
	for _, l := range e.lines(s) {
		if l["kind"] != "change" {
			continue
		}
		f := l["files"].([]any)[0].(map[string]any)
		b := f["before"].(map[string]any)
		want := f["path"].(string)
		if p, ok := b["perm"].(string); !ok || p != fstate.PermString(files[want]) {
			t.Fatalf("%s recorded with perm %v, want %s", want, b["perm"], fstate.PermString(files[want]))
		}
	}
}

// TestHandChmodUndoRedo: undo puts back the bits the file had before the
// tool, even after a hand chmod; redo puts back what the undo found, hand
// chmod included; a chmod after the undo is a change redo will not
// overwrite.
func TestHandChmodUndoRedo(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.session()
	e.put("key.pem", "k1")
	os.Chmod(e.path("key.pem"), 0o600)
	must(s.ToolWrite(e.ctx, "key.pem", []byte("k2")))(t)
	e.wantPerm("key.pem", 0o600)
	os.Chmod(e.path("key.pem"), 0o644) // by hand, after the tool
	must(s.Undo(e.ctx))(t)
	e.want("key.pem", "k1")
	e.wantPerm("key.pem", 0o600)
	must(s.Redo(e.ctx))(t)
	e.want("key.pem", "k2")
	e.wantPerm("key.pem", 0o644)

	// Same content, other bits: undo still puts the bits back.
	must(s.Undo(e.ctx))(t)
	must(s.Redo(e.ctx))(t)
	os.Chmod(e.path("key.pem"), 0o600)
	must(s.ToolWrite(e.ctx, "key.pem", []byte("k2")))(t)
	os.Chmod(e.path("key.pem"), 0o640)
	must(s.Undo(e.ctx))(t)
	e.want("key.pem", "k2")
	e.wantPerm("key.pem", 0o600)

	// A chmod after the undo: redo refuses rather than undo it.
	os.Chmod(e.path("key.pem"), 0o400)
	_, err := s.Redo(e.ctx)
	refused(t, err, "changed since the undo")
	e.wantPerm("key.pem", 0o400)
}

// TestOldLinesWithoutPermReadAsBefore: a change line written before the
// bits were recorded still folds and undoes: the file put back keeps the
// bits of the file it replaces, or gets 0666 less the umask, with the
// executable bits as "mode" says.
func TestOldLinesWithoutPermReadAsBefore(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.session()
	must(s.ToolWrite(e.ctx, "first.txt", []byte("1")))(t)
	id := s.ID()
	s.Close()
	e.put("kept.txt", "new")
	os.Chmod(e.path("kept.txt"), 0o600)
	data := func(b string) string {
		return `{"sha256":"` + sumHex(b) + `","size":` + string(rune('0'+len(b))) + `,"mode":"%s","data":"` + base64.StdEncoding.EncodeToString([]byte(b)) + `"}`
	}
	e.plant(id, []string{
		`{"v":1,"kind":"change","id":"old1-00000001","seq":2,"at":"2026-01-01T00:00:00.000Z","tool":"rm","scope":"paths","files":[{"path":"gone.sh","before":` + strings.Replace(data("#!"), "%s", "exec", 1) + `,"after":null}]}`,
		`{"v":1,"kind":"change","id":"old2-00000002","seq":3,"at":"2026-01-01T00:00:01.000Z","tool":"write","scope":"paths","files":[{"path":"kept.txt","before":` + strings.Replace(data("old"), "%s", "file", 1) + `,"after":{"sha256":"` + sumHex("new") + `","size":3,"mode":"file"}}]}`,
	})
	s = must(e.ws.Open(e.ctx, id, SessionOptions{}))(t)
	defer s.Close()
	if l := must(s.Snapshots(e.ctx))(t); len(l.Snapshots) != 3 {
		t.Fatalf("old lines not folded: %+v", l)
	}
	must(s.Undo(e.ctx))(t)
	e.want("kept.txt", "old")
	e.wantPerm("kept.txt", 0o600)
	must(s.Undo(e.ctx))(t)
	e.want("gone.sh", "#!")
	mask := vfs.ProcessUmask()
	want := 0o666 &^ mask
	want |= (want & 0o444) >> 2
	e.wantPerm("gone.sh", want)
}

// TestPermForms: "perm" is four octal digits that agree with "mode"; any
// other is a bad file state, and the line is skipped.
func TestPermForms(t *testing.T) {
	sum := sumHex("x")
	for perm, ok := range map[string]bool{
		`"perm":"0600"`: true, `"perm":"0644"`: true, `"mode":"exec","perm":"0755"`: true,
		`"perm":"0755"`: false, `"mode":"exec","perm":"0644"`: false, `"perm":"600"`: false,
		`"perm":"01600"`: false, `"perm":"0800"`: false, `"perm":384`: false, `"mode":"link","perm":"0644"`: false,
	} {
		if !strings.Contains(perm, `"mode"`) {
			perm = `"mode":"file",` + perm
		}
		var f fstate.State
		err := json.Unmarshal([]byte(`{"sha256":"`+sum+`","size":1,`+perm+`}`), &f)
		if got := err == nil && f.Valid(fstate.FormAfter); got != ok {
			t.Errorf("%s: valid = %v, want %v", perm, got, ok)
		}
	}
}

// TestNewFileHonoursUmask: a file the write tool creates gets 0666 less the
// umask (Mem's, here), and its folders 0777 less it; undo of its removal
// puts back the recorded bits, whatever the umask.
func TestNewFileHonoursUmask(t *testing.T) {
	e := newCrashEnv(t)
	e.mem.SetUmask(0o077)
	s := e.ws.Create(SessionOptions{})
	defer s.Close()
	must(s.ToolWrite(e.ctx, "sub/new.txt", []byte("n")))(t)
	for name, want := range map[string]fs.FileMode{"sub/new.txt": 0o600, "sub": 0o700} {
		if fi, err := e.mem.Lstat(name); err != nil || fi.Mode().Perm() != want {
			t.Fatalf("%s: %v %v, want %04o", name, fi, err, want)
		}
	}
	must(s.ToolRm(e.ctx, "sub/new.txt"))(t)
	e.mem.SetUmask(0)
	must(s.Undo(e.ctx))(t)
	if fi, err := e.mem.Lstat("sub/new.txt"); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("undo of rm: %v %v", fi, err)
	}
	e.mem.SetUmask(0o022)
	must(s.ToolWrite(e.ctx, "other.txt", []byte("o")))(t)
	if fi, _ := e.mem.Lstat("other.txt"); fi.Mode().Perm() != 0o644 {
		t.Fatalf("new file under umask 022: %v", fi.Mode())
	}
}
