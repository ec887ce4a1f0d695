package wskey

import (
	"encoding/json"
	"errors"
	"io/fs"
	"path"
	"slices"
	"strings"
	"testing"
	"time"

	"cairn/internal/vfs"
)

var fixedNow = func() time.Time { return time.Date(2026, 11, 29, 9, 12, 3, 120_456_000, time.UTC) }

func newDisk(t *testing.T) vfs.FS {
	t.Helper()
	d, err := vfs.OpenDisk(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// onEachFS runs test against the real disk and the in-memory FS.
func onEachFS(t *testing.T, test func(t *testing.T, fsys vfs.FS)) {
	t.Run("disk", func(t *testing.T) { test(t, newDisk(t)) })
	t.Run("mem", func(t *testing.T) { test(t, vfs.NewMem()) })
}

func writeInfoFor(t *testing.T, fsys vfs.FS, folder, p string) {
	t.Helper()
	if err := fsys.MkdirAll(folder, vfs.DirPerm); err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(Info{V: 1, Path: p, CreatedAt: fixedNow()})
	if err := vfs.WriteFileAtomic(fsys, path.Join(folder, InfoFile), data); err != nil {
		t.Fatal(err)
	}
}

func TestResolveCreateThenFind(t *testing.T) {
	onEachFS(t, func(t *testing.T, fsys vfs.FS) {
		p := "/home/me/my-proj"
		if _, _, err := Resolve(fsys, "workspaces", p, false, fixedNow); err != ErrNoWorkspace {
			t.Fatalf("Resolve(create=false) on empty state: err = %v, want ErrNoWorkspace", err)
		}
		if _, err := fsys.Lstat("workspaces"); !vfs.IsNotExist(err) {
			t.Fatalf("Resolve(create=false) created something: %v", err)
		}
		key, note, err := Resolve(fsys, "workspaces", p, true, fixedNow)
		if err != nil || key != "-home-me-my%2Dproj" || note != "" {
			t.Fatalf("Resolve(create) = %q, %q, %v", key, note, err)
		}
		data, err := vfs.ReadFile(fsys, "workspaces/"+key+"/workspace.json")
		if err != nil {
			t.Fatal(err)
		}
		if want := `{"v":1,"path":"/home/me/my-proj","created_at":"2026-11-29T09:12:03.120Z"}` + "\n"; string(data) != want {
			t.Errorf("workspace.json = %s, want %s", data, want)
		}
		fi, err := fsys.Stat("workspaces/" + key)
		if err != nil || fi.Mode().Perm() != vfs.DirPerm {
			t.Errorf("folder mode = %v, %v; want %v", fi.Mode().Perm(), err, vfs.DirPerm)
		}
		key2, note, err := Resolve(fsys, "workspaces", p, false, fixedNow)
		if err != nil || key2 != key || note != "" {
			t.Fatalf("second Resolve = %q, %q, %v", key2, note, err)
		}
		in, err := ReadInfo(fsys, "workspaces/"+key)
		if err != nil || in.Path != p || !in.CreatedAt.Equal(fixedNow().Truncate(time.Millisecond)) {
			t.Errorf("ReadInfo = %+v, %v", in, err)
		}
	})
}

// foldFS finds names regardless of case, as a case-insensitive filesystem
// does, and keeps the case a name was made with, as such filesystems do.
type foldFS struct{ vfs.FS }

// fold spells name as the folder holds it, component by component.
func (f foldFS) fold(name string) string {
	parts := strings.Split(name, "/")
	for i := range parts {
		dir := path.Join(parts[:i]...)
		if dir == "" {
			dir = "."
		}
		ents, err := f.FS.ReadDir(dir)
		if err != nil {
			break
		}
		for _, e := range ents {
			if strings.EqualFold(e.Name(), parts[i]) {
				parts[i] = e.Name()
				break
			}
		}
	}
	return path.Join(parts...)
}

func (f foldFS) OpenFile(name string, flag int, perm fs.FileMode) (vfs.File, error) {
	return f.FS.OpenFile(f.fold(name), flag, perm)
}
func (f foldFS) Stat(name string) (fs.FileInfo, error)  { return f.FS.Stat(f.fold(name)) }
func (f foldFS) Lstat(name string) (fs.FileInfo, error) { return f.FS.Lstat(f.fold(name)) }
func (f foldFS) ReadDir(name string) ([]fs.DirEntry, error) {
	return f.FS.ReadDir(f.fold(name))
}
func (f foldFS) MkdirAll(name string, perm fs.FileMode) error {
	return f.FS.MkdirAll(f.fold(name), perm)
}
func (f foldFS) Rename(a, b string) error  { return f.FS.Rename(f.fold(a), f.fold(b)) }
func (f foldFS) SyncDir(name string) error { return f.FS.SyncDir(f.fold(name)) }

// Two paths that differ only in case meet in one folder on a case-insensitive
// filesystem: the second takes ~2, and says why.
func TestResolveCollision(t *testing.T) {
	fsys := foldFS{vfs.NewMem()}
	p, q := "/home/me/proj", "/home/me/Proj"
	if _, _, err := Resolve(fsys, "workspaces", q, true, fixedNow); err != nil {
		t.Fatal(err)
	}
	key, note, err := Resolve(fsys, "workspaces", p, false, fixedNow)
	if err != ErrNoWorkspace {
		t.Fatalf("Resolve(create=false) = %q, %q, %v; want ErrNoWorkspace", key, note, err)
	}
	key, note, err = Resolve(fsys, "workspaces", p, true, fixedNow)
	if err != nil || key != Key(p)+"~2" {
		t.Fatalf("Resolve = %q, %v; want %q", key, err, Key(p)+"~2")
	}
	if want := "workspace folder " + Key(p) + " belongs to " + q + "; using " + Key(p) + "~2"; note != want {
		t.Errorf("note = %q, want %q", note, want)
	}
	if in, err := ReadInfo(fsys, "workspaces/"+Key(q)); err != nil || in.Path != q {
		t.Errorf("the other workspace's file changed: %+v, %v", in, err)
	}
	if in, err := ReadInfo(fsys, "workspaces/"+key); err != nil || in.Path != p {
		t.Errorf("new workspace.json = %+v, %v", in, err)
	}
	// Found again, with the note, without creating.
	key2, note2, err := Resolve(fsys, "workspaces", p, false, fixedNow)
	if err != nil || key2 != key || note2 != note {
		t.Errorf("Resolve again = %q, %q, %v", key2, note2, err)
	}
	// The owner of the un-suffixed folder still gets it.
	if k, n, err := Resolve(fsys, "workspaces", q, false, fixedNow); err != nil || k != Key(q) || n != "" {
		t.Errorf("Resolve(q) = %q, %q, %v", k, n, err)
	}
	// A third spelling takes ~3.
	r := "/home/me/PROJ"
	k, n, err := Resolve(fsys, "workspaces", r, true, fixedNow)
	if err != nil || k != Key(r)+"~3" || !strings.Contains(n, "using "+Key(r)+"~3") {
		t.Errorf("Resolve(r) = %q, %q, %v", k, n, err)
	}
}

// The folder with a path's own key, by its exact name, whose workspace.json
// is unreadable, names a path with another key, or is missing from a hashed
// folder, is disputed: Resolve neither uses it nor passes it over (which
// would hide its sessions behind a new ~2 folder), and writes nothing.
// WriteInfo settles it.
func TestResolveDisputed(t *testing.T) {
	onEachFS(t, func(t *testing.T, fsys vfs.FS) {
		long := "/" + strings.Repeat("L", 300)
		cases := []struct {
			p, named string
			setup    func(folder string)
		}{
			{"/c", "", func(folder string) {
				if err := vfs.WriteFileAtomic(fsys, folder+"/workspace.json", []byte(`{"v":1,"path":"/c"`)); err != nil {
					t.Fatal(err)
				}
			}},
			{"/home/me/proj", "/home/me/other", func(folder string) { writeInfoFor(t, fsys, folder, "/home/me/other") }},
			{"/rel", "", func(folder string) {
				if err := vfs.WriteFileAtomic(fsys, folder+"/workspace.json", []byte(`{"v":1,"path":"rel/dir"}`)); err != nil {
					t.Fatal(err)
				}
			}},
			{long, "", func(string) {}},
		}
		for _, c := range cases {
			folder := "workspaces/" + Key(c.p)
			if err := fsys.MkdirAll(folder+"/sessions", vfs.DirPerm); err != nil {
				t.Fatal(err)
			}
			c.setup(folder)
			before, _ := vfs.ReadFile(fsys, folder+"/workspace.json")
			for _, create := range []bool{false, true} {
				key, note, err := Resolve(fsys, "workspaces", c.p, create, fixedNow)
				var d *DisputedError
				if !errors.As(err, &d) || !errors.Is(err, ErrDisputed) || d.Key != Key(c.p) || d.Path != c.p || d.Named != c.named || (d.Named == "") == (d.Err == nil) {
					t.Fatalf("%s create=%v: Resolve = %q, %q, %v; want a DisputedError", c.p, create, key, note, err)
				}
			}
			if ents, _ := fsys.ReadDir("workspaces"); slices.ContainsFunc(ents, func(e fs.DirEntry) bool { return strings.HasSuffix(e.Name(), "~2") }) {
				t.Fatalf("%s: a suffixed folder was made", c.p)
			}
			if after, _ := vfs.ReadFile(fsys, folder+"/workspace.json"); string(after) != string(before) {
				t.Fatalf("%s: workspace.json changed to %q", c.p, after)
			}
			if err := WriteInfo(fsys, "workspaces", Key(c.p), c.p, fixedNow); err != nil {
				t.Fatal(err)
			}
			if key, note, err := Resolve(fsys, "workspaces", c.p, false, fixedNow); err != nil || key != Key(c.p) || note != "" {
				t.Fatalf("%s after WriteInfo: Resolve = %q, %q, %v", c.p, key, note, err)
			}
		}
	})
}

func TestResolveFindsLaterSuffixAfterGap(t *testing.T) {
	onEachFS(t, func(t *testing.T, fsys vfs.FS) {
		p := "/w"
		writeInfoFor(t, fsys, "workspaces/"+Key(p)+"~3", p)
		key, note, err := Resolve(fsys, "workspaces", p, true, fixedNow)
		if err != nil || key != Key(p)+"~3" || note == "" {
			t.Fatalf("Resolve = %q, %q, %v; want the existing ~3", key, note, err)
		}
		if _, err := fsys.Lstat("workspaces/" + Key(p)); !vfs.IsNotExist(err) {
			t.Errorf("a new un-suffixed folder was created: %v", err)
		}
	})
}

func TestResolveAdoptsInterruptedCreation(t *testing.T) {
	onEachFS(t, func(t *testing.T, fsys vfs.FS) {
		p := "/src/app"
		if err := fsys.MkdirAll("workspaces/"+Key(p)+"/sessions", vfs.DirPerm); err != nil {
			t.Fatal(err)
		}
		key, note, err := Resolve(fsys, "workspaces", p, false, fixedNow)
		if err != nil || key != Key(p) || note != "" {
			t.Fatalf("Resolve(create=false) = %q, %q, %v", key, note, err)
		}
		if _, err := fsys.Lstat("workspaces/" + key + "/workspace.json"); !vfs.IsNotExist(err) {
			t.Fatalf("create=false wrote workspace.json: %v", err)
		}
		key, note, err = Resolve(fsys, "workspaces", p, true, fixedNow)
		if err != nil || key != Key(p) || note != "" {
			t.Fatalf("Resolve(create) = %q, %q, %v", key, note, err)
		}
		if in, err := ReadInfo(fsys, "workspaces/"+key); err != nil || in.Path != p {
			t.Errorf("adopted folder's workspace.json = %+v, %v", in, err)
		}
	})
}

func TestResolveNeverAdoptsFileInTheWay(t *testing.T) {
	onEachFS(t, func(t *testing.T, fsys vfs.FS) {
		// A plain file in the way is not a workspace folder.
		f := "/f"
		if err := fsys.MkdirAll("workspaces", vfs.DirPerm); err != nil {
			t.Fatal(err)
		}
		if err := vfs.WriteFileAtomic(fsys, "workspaces/"+Key(f), []byte("x")); err != nil {
			t.Fatal(err)
		}
		if key, _, err := Resolve(fsys, "workspaces", f, true, fixedNow); err != nil || key != Key(f)+"~2" {
			t.Errorf("file in the way: Resolve = %q, %v", key, err)
		}
	})
}

func TestResolveRejectsRelative(t *testing.T) {
	onEachFS(t, func(t *testing.T, fsys vfs.FS) {
		if _, _, err := Resolve(fsys, "workspaces", "rel/path", true, fixedNow); !errors.Is(err, ErrRelative) {
			t.Errorf("err = %v, want ErrRelative", err)
		}
		if ents, _ := fsys.ReadDir("."); len(ents) != 0 {
			t.Errorf("something was created: %v", ents)
		}
	})
}

// A created workspace survives power loss: its folder entry and its
// workspace.json are synced before Resolve returns.
func TestResolveCreateIsDurable(t *testing.T) {
	m := vfs.NewMem()
	if err := m.MkdirAll("workspaces", vfs.DirPerm); err != nil {
		t.Fatal(err)
	}
	if err := m.SyncDir("."); err != nil {
		t.Fatal(err)
	}
	p := "/home/me/proj"
	key, _, err := Resolve(m, "workspaces", p, true, fixedNow)
	if err != nil {
		t.Fatal(err)
	}
	m.Crash()
	if in, err := ReadInfo(m, "workspaces/"+key); err != nil || in.Path != p {
		t.Fatalf("after a crash: %+v, %v", in, err)
	}
	if k, note, err := Resolve(m, "workspaces", p, false, fixedNow); err != nil || k != key || note != "" {
		t.Errorf("after a crash: Resolve = %q, %q, %v", k, note, err)
	}
}

// Every failing sync or write in Resolve is returned, and a later Resolve
// without the fault succeeds on the same key.
func TestResolveFaults(t *testing.T) {
	for _, op := range []vfs.Op{vfs.OpMkdir, vfs.OpCreate, vfs.OpWrite, vfs.OpSync, vfs.OpRename, vfs.OpStat, vfs.OpReadDir} {
		m := vfs.NewMem()
		f := vfs.NewFaulty(m)
		f.Inject(vfs.Rule{Op: op, Err: errors.New("injected")})
		p := "/x/y"
		if key, _, err := Resolve(f, "workspaces", p, true, fixedNow); err == nil {
			t.Errorf("%v failing: Resolve = %q, no error", op, key)
		}
		f.Reset()
		key, note, err := Resolve(f, "workspaces", p, true, fixedNow)
		if err != nil || key != Key(p) || note != "" {
			t.Errorf("%v fixed: Resolve = %q, %q, %v", op, key, note, err)
		}
	}
}
