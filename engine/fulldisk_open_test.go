package engine

import (
	"errors"
	"path"
	"strings"
	"syscall"
	"testing"

	"cairn/internal/vfs"
)

// TestFullDiskLeavesNothingToTripOn: on a state folder where no new file
// can be made (a full disk: appends to a journal still fit, a record's
// temp file does not), a command that writes leaves the record stale; the
// commands after it still open the session: a read-only preview writes
// nothing at all, a plain open says the record could not be rebuilt and
// goes on, and no temp file is left behind. Once space is back the record
// is rebuilt and fsck finds nothing wrong.
func TestFullDiskLeavesNothingToTripOn(t *testing.T) {
	e := newRvEnvWith(t, nil, true)
	p := e.prompt("go")
	e.write("", "a.txt", "a1")
	id := e.s.ID()
	must(0, e.s.Close())(t)

	e.faulty.Inject(vfs.Rule{Op: vfs.OpCreate, Path: "workspaces/*", Err: syscall.ENOSPC})
	e.faulty.Inject(vfs.Rule{Op: vfs.OpCreate, Path: "workspaces/*/*", Err: syscall.ENOSPC})
	e.faulty.Inject(vfs.Rule{Op: vfs.OpCreate, Path: "workspaces/*/*/*", Err: syscall.ENOSPC})
	// One command that writes: its line fits, its record does not.
	var notices []string
	s := must(e.ws.Open(e.ctx, id, SessionOptions{Notice: func(m string) { notices = append(notices, m) }}))(t)
	must(s.Append(e.ctx, Item{Type: User, Text: "a prompt on a full disk"}))(t)
	s.Close()
	rec := must(readRecord(e.mem, e.ws.dir, id))(t)
	if fi := must(e.mem.Stat(itemsName(e.ws.dir, id)))(t); rec.Journals["items"] == fi.Size() {
		t.Fatal("the record is not stale: the test shows nothing")
	}

	// A preview reads: it opens without writing a byte.
	writes := e.faulty.Calls(vfs.OpWrite) + e.faulty.Calls(vfs.OpCreate)
	r := must(e.ws.Open(e.ctx, id, SessionOptions{ReadOnly: true}))(t)
	res := must(r.PreviewRevert(e.ctx, p.ID, RevertFiles))(t)
	if !res.Preview || res.Files == nil || res.Files.Delete != 1 {
		t.Fatalf("preview %+v", res.Files)
	}
	if _, err := r.Revert(e.ctx, p.ID, RevertFiles); !errors.Is(err, ErrRefused) {
		t.Fatalf("a revert of a session opened read-only: %v", err)
	}
	must(0, r.Close())(t)
	if n := e.faulty.Calls(vfs.OpWrite) + e.faulty.Calls(vfs.OpCreate); n != writes {
		t.Fatalf("a read-only open and preview wrote %d times", n-writes)
	}

	// A plain open still opens: the record is derived.
	notices = nil
	s = must(e.ws.Open(e.ctx, id, SessionOptions{Notice: func(m string) { notices = append(notices, m) }}))(t)
	must(s.PreviewRevert(e.ctx, p.ID, RevertFiles))(t)
	s.Close()
	if len(notices) == 0 || !strings.Contains(notices[0], "record could not be rebuilt") {
		t.Fatalf("notices %q; want the record's failure said", notices)
	}
	for _, dir := range []string{e.ws.dir, path.Join(e.ws.dir, "sessions")} {
		for _, ent := range must(e.mem.ReadDir(dir))(t) {
			if vfs.IsTemp(ent.Name()) {
				t.Errorf("a failed write left %s/%s", dir, ent.Name())
			}
		}
	}

	e.faulty.Reset()
	s = must(e.ws.Open(e.ctx, id, SessionOptions{}))(t)
	must(0, s.Close())(t)
	rec = must(readRecord(e.mem, e.ws.dir, id))(t)
	if fi := must(e.mem.Stat(itemsName(e.ws.dir, id)))(t); rec.Journals["items"] != fi.Size() {
		t.Fatalf("the record is still stale once space is back: %d of %d", rec.Journals["items"], fi.Size())
	}
	if rep := must(e.st.Fsck(e.ctx))(t); len(rep.Problems) > 0 {
		t.Fatalf("fsck: %+v", rep.Problems)
	}
}
