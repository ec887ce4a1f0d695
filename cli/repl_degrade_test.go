package cli

import (
	"bufio"
	"bytes"
	"context"
	"strings"
	"syscall"
	"testing"

	"cairn/cli/cmdbase"
	"cairn/engine"
	"cairn/internal/vfs"
)

// TestREPLRecoversAfterFullDisk types into the REPL while its disks are
// full and after space is back: the prompts typed meanwhile reach the
// transcript in order, the REPL says once that the session is recorded
// again, a :write or :rm that would destroy a file with no snapshot is
// refused in a clear line, and after the fault :write snapshots and /undo
// works. A second fault is said again.
func TestREPLRecoversAfterFullDisk(t *testing.T) {
	ctx := context.Background()
	state, files := vfs.NewFaulty(vfs.NewMem()), vfs.NewFaulty(vfs.NewMem())
	store, err := engine.OpenFS(state, "/mem", engine.WithWorkspaceFS(func(string) (vfs.FS, error) { return files, nil }))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ws, err := store.Workspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var out, errw bytes.Buffer
	g := &Globals{Globals: cmdbase.Globals{Ctx: ctx, Stdout: &out, Stderr: &errw}}
	r := &repl{g: g, out: &out, errw: &errw, store: store, ws: ws}
	r.startNew()
	// typed runs one line; a :write's lines follow it in block.
	typed := func(line string, block ...string) string {
		out.Reset()
		r.lines = bufio.NewReader(strings.NewReader(strings.Join(append(block, "."), "\n") + "\n"))
		if r.handle(g.Ctx, line) {
			t.Fatalf("%q ended the REPL", line)
		}
		return out.String()
	}
	full := func(on bool) {
		for _, f := range []*vfs.Faulty{state, files} {
			f.Reset()
			if on {
				f.Inject(vfs.Rule{Op: vfs.OpWrite, Err: syscall.ENOSPC})
				f.Inject(vfs.Rule{Op: vfs.OpCreate, Err: syscall.ENOSPC})
			}
		}
	}
	content := func(p string) string {
		b, err := vfs.ReadFile(files, p)
		if err != nil {
			return "(" + err.Error() + ")"
		}
		return string(b)
	}

	typed("p1 before full")
	typed(":write keep.txt", "v2 before full")
	typed(":write f2.txt", "new content of f2")
	full(true)
	typed("p2 on full disk")
	for _, c := range []struct{ line, file, want string }{
		{":write keep.txt", "keep.txt", "v2 before full\n"},
		{":rm f2.txt", "f2.txt", "new content of f2\n"},
	} {
		got := typed(c.line, "v3 on full disk")
		if !strings.Contains(got, "no snapshot of it can be taken") || !strings.Contains(got, "nothing was changed") ||
			strings.Contains(got, "Changed ") {
			t.Fatalf("%s on a full disk printed %q", c.line, got)
		}
		if s := content(c.file); s != c.want {
			t.Fatalf("the refused %s left %q", c.line, s)
		}
	}
	typed("p3 on full disk")
	if !strings.Contains(errw.String(), "cannot be recorded for now") {
		t.Fatalf("no notice of the full disk: %q", errw.String())
	}

	full(false)
	typed("p4 after free")
	if n := strings.Count(errw.String(), "recorded again: 2 items"); n != 1 {
		t.Fatalf("said %d times that it is recorded again: %q", n, errw.String())
	}
	if got := typed(":write keep.txt", "v4 after free"); !strings.Contains(got, "(snapshot ") {
		t.Fatalf(":write after the fault: %q", got)
	}
	if got := typed("/undo"); strings.Contains(got, "cairn:") {
		t.Fatalf("/undo after the fault: %q", got)
	}
	if s := content("keep.txt"); s != "v2 before full\n" {
		t.Fatalf("keep.txt after /undo: %q", s)
	}
	// A second fault is said again, and so is the end of it.
	full(true)
	typed("p5 on full disk again")
	full(false)
	typed("p6 after free again")
	if n := strings.Count(errw.String(), "cannot be recorded for now"); n != 2 {
		t.Fatalf("said %d times that it cannot be recorded, for two faults: %q", n, errw.String())
	}
	if n := strings.Count(errw.String(), "recorded again: 1 item kept"); n != 1 {
		t.Fatalf("said %d times that it is recorded again after the second fault: %q", n, errw.String())
	}
	id, ok := r.closeSession()
	if !ok {
		t.Fatal("the session recorded again would print no resume line")
	}
	s, err := ws.Open(ctx, id, engine.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var got []string
	for _, it := range s.Transcript() {
		got = append(got, it.Text)
	}
	if want := "p1 before full|p2 on full disk|p3 on full disk|p4 after free|p5 on full disk again|p6 after free again"; strings.Join(got, "|") != want {
		t.Fatalf("transcript %q, want %q", got, want)
	}
}
