package engine

import (
	"context"
	"errors"
	"path"
	"slices"
	"strings"
	"testing"

	"cairn/engine/wskey"
	"cairn/internal/vfs"
)

// infoEnv is a workspace with two sessions, whose workspace.json the test
// then damages; reopen gives the workspace as a new process would see it.
type infoEnv struct {
	*memEnv
	dir string // the project directory
	ids []string
}

func newInfoEnv(t *testing.T) *infoEnv {
	t.Helper()
	e := &infoEnv{memEnv: newMemEnv(t), dir: t.TempDir()}
	ws, err := e.store.Workspace(e.dir)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		s := newSession(t, ws)
		e.ids = append(e.ids, s.ID())
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(e.ids)
	return e
}

func (e *infoEnv) folder() string {
	p, _ := Canonical(e.dir)
	return path.Join(workspacesDir, wskey.Key(p))
}

func (e *infoEnv) setInfo(t *testing.T, data string) {
	t.Helper()
	if err := vfs.WriteFileAtomic(e.mem, path.Join(e.folder(), wskey.InfoFile), []byte(data)); err != nil {
		t.Fatal(err)
	}
}

func (e *infoEnv) folders(t *testing.T) []string {
	t.Helper()
	ents, err := e.mem.ReadDir(workspacesDir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, x := range ents {
		out = append(out, x.Name())
	}
	return out
}

// A damaged workspace.json, or one naming another path, in a folder whose
// sessions were all made here is rewritten to name this directory, said
// once; every session stays listed and new work goes into the same folder.
func TestDamagedWorkspaceInfoIsRebuilt(t *testing.T) {
	ctx := context.Background()
	for _, bad := range []string{`{"v":1,"path":"/etc"`, `{"v":1,"path":"/somewhere/else","created_at":"2026-01-01T00:00:00.000Z"}`, ``} {
		e := newInfoEnv(t)
		e.setInfo(t, bad)
		ws, err := e.store.Workspace(e.dir)
		if err != nil {
			t.Fatalf("%q: %v", bad, err)
		}
		if r := ws.Repaired(); !strings.Contains(r, "2 sessions were made here") || !strings.Contains(r, "rewritten") {
			t.Fatalf("%q: Repaired() = %q", bad, r)
		}
		in, err := wskey.ReadInfo(e.mem, e.folder())
		if err != nil || in.Path != ws.Path() {
			t.Fatalf("%q: workspace.json after the repair: %+v, %v", bad, in, err)
		}
		if got := sessionIDs(t, ws); !slices.Equal(got, e.ids) {
			t.Fatalf("%q: listing %q, want %q", bad, got, e.ids)
		}
		// New work goes into the same folder.
		s := newSession(t, ws)
		s.Close()
		if _, err := ws.Fork(ctx, e.ids[0], ""); err != nil {
			t.Fatalf("%q: fork: %v", bad, err)
		}
		if got := e.folders(t); len(got) != 1 {
			t.Fatalf("%q: workspace folders %q", bad, got)
		}
		// Said once: the next process finds nothing to repair.
		again, err := e.store.Workspace(e.dir)
		if err != nil || again.Repaired() != "" || again.Note() != "" || len(sessionIDs(t, again)) != 4 {
			t.Fatalf("%q: next open: %v, %q, %q", bad, err, again.Repaired(), again.Note())
		}
	}
}

// A folder whose sessions were made in another directory is used for
// nothing and changed in no way; Adopt settles it.
func TestForeignWorkspaceFolderIsRefused(t *testing.T) {
	ctx := context.Background()
	e := newInfoEnv(t)
	// The sessions say they were made in /moved/from, as after a rename
	// of the project and of its folder.
	other := "/moved/from"
	for _, id := range e.ids {
		name := itemsName(e.folder(), id)
		b, err := vfs.ReadFile(e.mem, name)
		if err != nil {
			t.Fatal(err)
		}
		p, _ := Canonical(e.dir)
		if err := vfs.WriteFileAtomic(e.mem, name, []byte(strings.ReplaceAll(string(b), `"path":"`+p+`"`, `"path":"`+other+`"`))); err != nil {
			t.Fatal(err)
		}
		e.mem.Remove(recordName(e.folder(), id))
	}
	info := `{"v":1,"path":"` + other + `","created_at":"2026-01-01T00:00:00.000Z"}`
	e.setInfo(t, info)
	_, err := e.store.Workspace(e.dir)
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), other) || !strings.Contains(err.Error(), "cairn storage adopt") {
		t.Fatalf("a foreign folder: %v", err)
	}
	// where names the folder and says why it is not used.
	loc, err := e.store.Where(e.dir)
	if err != nil || loc.Key != path.Base(e.folder()) || !strings.Contains(loc.Note, "cairn storage adopt") {
		t.Fatalf("where: %+v, %v", loc, err)
	}
	if b, _ := vfs.ReadFile(e.mem, path.Join(e.folder(), wskey.InfoFile)); string(b) != info {
		t.Fatalf("workspace.json changed: %s", b)
	}
	if got := e.folders(t); len(got) != 1 {
		t.Fatalf("workspace folders %q", got)
	}
	loc, err = e.store.Adopt(e.dir)
	if err != nil {
		t.Fatal(err)
	}
	ws, err := e.store.Workspace(e.dir)
	if err != nil || ws.Key() != loc.Key || ws.Repaired() != "" {
		t.Fatalf("after adopt: %v", err)
	}
	if got := sessionIDs(t, ws); !slices.Equal(got, e.ids) {
		t.Fatalf("listing after adopt %q, want %q", got, e.ids)
	}
	if _, err := ws.Fork(ctx, e.ids[0], ""); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.Adopt(e.dir); !errors.Is(err, ErrRefused) {
		t.Fatalf("adopt twice: %v", err)
	}
}

// A damaged workspace.json that cannot be rewritten (a read-only or full
// state folder): reads use the folder and say why; a write fails clearly
// rather than starting a ~2 folder.
func TestDamagedWorkspaceInfoReadOnly(t *testing.T) {
	ctx := context.Background()
	e := newInfoEnv(t)
	e.setInfo(t, `{"v":1,"path":"/etc"`)
	e.faulty.Inject(vfs.Rule{Op: vfs.OpCreate, Err: errENOSPC})
	ws, err := e.store.Workspace(e.dir)
	if err != nil {
		t.Fatal(err)
	}
	if n := ws.Note(); !strings.Contains(n, "could not be rewritten") || ws.Repaired() != "" {
		t.Fatalf("Note() = %q, Repaired() = %q", n, ws.Repaired())
	}
	if got := sessionIDs(t, ws); !slices.Equal(got, e.ids) {
		t.Fatalf("listing %q, want %q", got, e.ids)
	}
	if _, err := ws.Resolve(ctx, e.ids[0][:8]); err != nil {
		t.Fatal(err)
	}
	s := ws.Create(SessionOptions{})
	if _, err := s.Append(ctx, Item{Type: User, Text: "x"}); err == nil {
		t.Fatal("a new session was written on a full disk")
	}
	s.Close()
	e.faulty.Reset()
	if got := e.folders(t); len(got) != 1 {
		t.Fatalf("workspace folders %q", got)
	}
}

// fsck names a workspace.json that names another path than its folder's
// key, or a relative path, by file.
func TestFsckWorkspaceInfo(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct{ info, want string }{
		{`{"v":1,"path":"/somewhere/else","created_at":"2026-01-01T00:00:00.000Z"}`, "names /somewhere/else, whose folder would be -somewhere-else"},
		{`{"v":1,"path":"rel/dir","created_at":"2026-01-01T00:00:00.000Z"}`, "not an absolute path"},
	} {
		e := newInfoEnv(t)
		rep, err := e.store.Fsck(ctx)
		if err != nil || len(rep.Problems) != 0 {
			t.Fatalf("before: %v %+v", err, rep)
		}
		e.setInfo(t, c.info)
		rep, err = e.store.Fsck(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Problems) != 1 || rep.Problems[0].Path != path.Join(e.folder(), "workspace.json") || !strings.Contains(rep.Problems[0].Problem, c.want) {
			t.Fatalf("%s: problems %+v", c.info, rep.Problems)
		}
	}
}

// Older builds started a ~2 folder beside one whose workspace.json was
// damaged. Once the damaged one is repaired and used again, the repair
// note and fsck both name the ~2 folder, whose sessions it does not list.
func TestRepairNamesFolderMadeMeanwhile(t *testing.T) {
	ctx := context.Background()
	e := newInfoEnv(t)
	p, _ := Canonical(e.dir)
	later := e.folder() + "~2"
	if err := e.mem.MkdirAll(later, vfs.DirPerm); err != nil {
		t.Fatal(err)
	}
	if err := wskey.WriteInfo(e.mem, workspacesDir, path.Base(later), p, nil); err != nil {
		t.Fatal(err)
	}
	e.setInfo(t, `{"v":1,"path":"/etc"`)
	ws, err := e.store.Workspace(e.dir)
	if err != nil {
		t.Fatal(err)
	}
	if r := ws.Repaired(); !strings.Contains(r, path.Base(later)+" are not listed here") {
		t.Fatalf("Repaired() = %q", r)
	}
	rep, err := e.store.Fsck(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) != 1 || rep.Problems[0].Path != path.Join(later, "workspace.json") || !strings.Contains(rep.Problems[0].Problem, "cairn uses folder "+path.Base(e.folder())) {
		t.Fatalf("problems %+v", rep.Problems)
	}
}

// A workspace folder is made in two steps, the folder and then its
// workspace.json. Power is cut at each sync point of the first session
// written in a directory; the next process, which finds the folder by its
// name, writes its workspace.json before its first session goes in, so no
// session is ever in a folder that does not say whose it is. Both ways to a
// workspace are tried: Workspace (a directory) and Workspaces (a listing of
// the folders).
func TestCrashBetweenWorkspaceFolderAndItsInfo(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	p := must(Canonical(dir))(t)
	folder := path.Join(workspacesDir, wskey.Key(p))
	// crashed is the state folder after a crash at sync point n; nil when
	// the first session was written whole before it.
	crashed := func(n int) *vfs.Mem {
		mem := vfs.NewMem()
		s := must(OpenFS(mem, "/mem"))(t)
		ws := must(s.Workspace(dir))(t)
		mem.FailAfterSyncs(n)
		sess := ws.Create(SessionOptions{})
		_, err := sess.Append(ctx, Item{Type: User, Text: "first"})
		if err == nil {
			err = sess.Commit(ctx)
		}
		if err == nil {
			return nil
		}
		mem.Crash()
		return mem
	}
	cut := 0 // points where the folder was left without its workspace.json
	for _, via := range []string{"Workspace", "Workspaces"} {
		for n := 0; ; n++ {
			mem := crashed(n)
			if mem == nil {
				break // no sync point left to cut at
			}
			_, ferr := mem.Stat(folder)
			if _, ierr := mem.Stat(path.Join(folder, wskey.InfoFile)); ferr == nil && ierr != nil {
				cut++
			}
			s := must(OpenFS(mem, "/mem"))(t)
			ws := must(s.Workspace(dir))(t)
			if via == "Workspaces" {
				wss, _ := must2(s.Workspaces())(t)
				if len(wss) != 1 {
					continue // no folder to list
				}
				ws = wss[0]
			}
			noErr(t, newSession(t, ws).Close())
			if in, err := wskey.ReadInfo(mem, folder); err != nil || in.Path != p {
				t.Fatalf("sync point %d, via %s: workspace.json: %+v, %v", n, via, in, err)
			}
			for _, pr := range must(s.Fsck(ctx))(t).Problems {
				t.Errorf("sync point %d, via %s: %s: %s", n, via, pr.Path, pr.Problem)
			}
		}
	}
	if cut == 0 {
		t.Fatal("no crash left the workspace folder without its workspace.json")
	}
}

// A folder that an earlier build filled with sessions but left without its
// workspace.json (made before that crash could be settled) is used by its
// name, and gets its workspace.json with the next session written in it.
func TestWorkspaceFolderWithoutInfoIsNamedAtTheNextWrite(t *testing.T) {
	ctx := context.Background()
	e := newInfoEnv(t)
	noErr(t, e.mem.Remove(path.Join(e.folder(), wskey.InfoFile)))
	ws := must(e.store.Workspace(e.dir))(t)
	if got := sessionIDs(t, ws); !slices.Equal(got, e.ids) {
		t.Fatalf("listing %q, want %q", got, e.ids)
	}
	if _, err := e.mem.Stat(path.Join(e.folder(), wskey.InfoFile)); err == nil {
		t.Fatal("a read wrote workspace.json")
	}
	noErr(t, newSession(t, ws).Close())
	if in, err := wskey.ReadInfo(e.mem, e.folder()); err != nil || in.Path != ws.Path() {
		t.Fatalf("workspace.json after a write: %+v, %v", in, err)
	}
	for _, pr := range must(e.store.Fsck(ctx))(t).Problems {
		t.Errorf("%s: %s", pr.Path, pr.Problem)
	}
}
