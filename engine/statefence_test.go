package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// homeEnv is a workspace that holds the state folder, as when cairn runs
// in the home folder with the default ~/.cairn, with links into it: st
// (the state folder), ws (its workspaces folder) and planted (its FORMAT).
type homeEnv struct {
	*snapEnv
	home string
}

func newHomeEnv(t *testing.T) *homeEnv {
	t.Helper()
	dir, err := Canonical(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(dir, ".cairn")
	s := openStore(t, storeSpec{home: home}).Store
	ws, err := s.Workspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	e := &homeEnv{&snapEnv{t: t, ctx: context.Background(), store: s, ws: ws, dir: dir}, home}
	for name, target := range map[string]string{"st": ".cairn", "ws": ".cairn/workspaces", "planted": ".cairn/FORMAT"} {
		if err := os.Symlink(target, e.path(name)); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// stateFilesWithContent lists every name in the state folder with its content.
func stateFilesWithContent(t *testing.T, home string) []string {
	t.Helper()
	var out []string
	filepath.Walk(home, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		r, _ := filepath.Rel(home, p)
		if fi.Mode().IsRegular() && !strings.HasSuffix(p, ".lock") {
			b, _ := os.ReadFile(p)
			r += "=" + string(b)
		}
		out = append(out, r)
		return nil
	})
	return out
}

// No file tool reaches the state folder when it lies in the workspace: not
// by its name, and not through a link to it or into it. (Before, the name
// was compared only, and `write st/FORMAT` bricked the store.)
func TestFileToolsNeverWriteTheStateFolder(t *testing.T) {
	e := newHomeEnv(t)
	s := e.session()
	e.put("a.txt", "a0")
	must(s.ToolWrite(e.ctx, "a.txt", []byte("a1")))(t)
	if err := s.EndTurn(e.ctx, Turn{}); err != nil {
		t.Fatal(err)
	}
	before := stateFilesWithContent(t, e.home)

	wsKey := filepath.Base(e.ws.Folder())
	for _, p := range []string{
		".cairn/FORMAT", "st/FORMAT", "st/config.json", "st/new.txt", "st/sub/new.txt",
		"ws/" + wsKey + "/index.json", "ws/" + wsKey + "/sessions/x.json",
		filepath.Join(e.dir, "st", "FORMAT"), "./st/../st/FORMAT",
	} {
		_, err := s.ToolWrite(e.ctx, p, []byte(`{"v":1,"format":999}`))
		if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "inside cairn's state folder") {
			t.Errorf("write %s: %v, want it refused as inside the state folder", p, err)
		}
		if _, err := s.ToolEdit(e.ctx, p, `"format":1`, `"format":999`); !errors.Is(err, ErrBadInput) {
			t.Errorf("edit %s: %v, want ErrBadInput", p, err)
		}
		if _, err := s.ToolRm(e.ctx, p); !errors.Is(err, ErrBadInput) {
			t.Errorf("rm %s: %v, want ErrBadInput", p, err)
		}
	}
	// A link to a state file is the user's file: edit reads no link, and
	// write and rm replace or remove the link, never its target.
	if _, err := s.ToolEdit(e.ctx, "planted", `"format":1`, `"format":999`); !errors.Is(err, ErrBadInput) {
		t.Errorf("edit planted: %v, want ErrBadInput", err)
	}
	must(s.ToolWrite(e.ctx, "planted", []byte("mine")))(t)
	e.want("planted", "mine")
	must(s.ToolRm(e.ctx, "planted"))(t)
	if err := s.EndTurn(e.ctx, Turn{}); err != nil {
		t.Fatal(err)
	}
	after := stateFilesWithContent(t, e.home)
	if changed := changedState(before, after); len(changed) > 0 {
		t.Fatalf("the state folder changed outside the session's own journals: %v", changed)
	}
	// The store still opens, and undo works on the user's files.
	s2, err := Open(e.home)
	if err != nil {
		t.Fatalf("the store no longer opens: %v", err)
	}
	s2.Close()
	for range 3 {
		must(s.Undo(e.ctx))(t)
	}
	e.want("a.txt", "a0")
	if tgt, _ := os.Readlink(e.path("planted")); tgt != ".cairn/FORMAT" {
		t.Fatalf("undo did not put the link back: %q", tgt)
	}
}

// changedState is what changed in the state folder, leaving out the
// session's journals, records, objects and the index, which the session
// itself writes.
func changedState(before, after []string) []string {
	own := func(n string) bool {
		return strings.HasPrefix(n, "workspaces/") && (strings.Contains(n, "/sessions/") ||
			strings.Contains(n, "/objects") || strings.HasSuffix(n, "index.json") ||
			strings.Contains(n, "/outputs") || strings.Contains(n, "/owners"))
	}
	var out []string
	for _, n := range after {
		if !slices.Contains(before, n) && !own(n) {
			out = append(out, n)
		}
	}
	for _, n := range before {
		if !slices.Contains(after, n) && !own(n) {
			out = append(out, "-"+n)
		}
	}
	return out
}

// Undo and redo never put a file into the state folder, whatever a change
// line names; the files they can restore are restored.
func TestRestoresNeverWriteTheStateFolder(t *testing.T) {
	e := newHomeEnv(t)
	s := e.session()
	must(s.ToolWrite(e.ctx, "ok.txt", []byte("ok1")))(t)
	id := s.ID()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	before := stateFilesWithContent(t, e.home)
	evil := must(e.ws.objects().PutBytes(e.ctx, []byte(`{"v":1,"format":999}`)))(t).ID.String()
	f := func(p string) string {
		return `{"path":"` + p + `","before":{"oid":"` + evil + `","size":20,"mode":"file"},"after":null}`
	}
	var lines []string
	for i, p := range []string{"st/FORMAT", "st/new", "ws/x/y"} {
		lines = append(lines, `{"v":1,"kind":"change","id":"h`+string(rune('a'+i))+`-0000000`+string(rune('0'+i))+`","seq":`+
			string(rune('2'+i))+`,"at":"2026-01-01T00:00:00.000Z","tool":"edit","scope":"paths","files":[`+f(p)+`]}`)
	}
	e.plant(id, lines)
	s, err := e.ws.Open(e.ctx, id, SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// An undo that can put back none of its files is refused, naming the
	// path, and uses up nothing.
	var rerr *RestoreError
	if _, err := s.Undo(e.ctx); !errors.As(err, &rerr) || len(rerr.Files) != 1 || !strings.HasSuffix(rerr.Files[0].Path, "ws/x/y") {
		t.Fatalf("undo of a path into the state folder: %v", err)
	}
	// A restore past them leaves each as it is, names it, and puts back
	// ok.txt.
	list := must(s.Snapshots(e.ctx))(t)
	r := must(s.RestoreTo(e.ctx, list.Snapshots[0].ID))(t)
	var skipped []string
	for _, st := range r.Steps {
		skipped = append(skipped, st.Skipped...)
	}
	if len(skipped) != 3 {
		t.Fatalf("skipped %v, want the three state folder paths", skipped)
	}
	e.want("ok.txt", "<absent>")
	must(s.Redo(e.ctx))(t)
	e.want("ok.txt", "ok1")
	for range 3 {
		must(s.Redo(e.ctx))(t)
	}
	must(s.RestoreTo(e.ctx, list.Snapshots[0].ID))(t)
	e.want("ok.txt", "<absent>")
	if changed := changedState(before, stateFilesWithContent(t, e.home)); len(changed) > 0 {
		t.Fatalf("the state folder changed: %v", changed)
	}
	s2, err := Open(e.home)
	if err != nil {
		t.Fatalf("the store no longer opens: %v", err)
	}
	s2.Close()
}

// A workspace inside the state folder is the state folder: no file tool
// writes there.
func TestWorkspaceInsideTheStateFolder(t *testing.T) {
	home, err := Canonical(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(home)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ws, err := s.Workspace(home)
	if err != nil {
		t.Fatal(err)
	}
	sess := ws.Create(SessionOptions{})
	defer sess.Close()
	for _, p := range []string{"FORMAT", "new.txt"} {
		if _, err := sess.ToolWrite(context.Background(), p, []byte("x")); !errors.Is(err, ErrBadInput) {
			t.Errorf("write %s: %v, want ErrBadInput", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(home, "new.txt")); !os.IsNotExist(err) {
		t.Fatalf("new.txt: %v", err)
	}
}

// An ephemeral session in a workspace that holds the persistent state
// folder (where its usage goes) does not write there either.
func TestEphemeralNeverWritesTheLedgersFolder(t *testing.T) {
	dir, err := Canonical(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(dir, ".cairn")
	s, err := OpenEphemeral(home, WithEphemeralRoot(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ws, err := s.Workspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	os.Symlink(".cairn", filepath.Join(dir, "st"))
	sess := ws.Create(SessionOptions{Ephemeral: true})
	defer sess.Close()
	for _, p := range []string{".cairn/FORMAT", "st/FORMAT", "st/usage.jsonl"} {
		if _, err := sess.ToolWrite(context.Background(), p, []byte(`{"v":1,"format":999}`)); !errors.Is(err, ErrBadInput) {
			t.Errorf("write %s: %v, want ErrBadInput", p, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(home, "FORMAT")); strings.Contains(string(b), "999") {
		t.Fatalf("FORMAT holds %s", b)
	}
}
