package wskey

import (
	"encoding/json"
	"errors"
	"path"
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

func TestResolveCollision(t *testing.T) {
	onEachFS(t, func(t *testing.T, fsys vfs.FS) {
		p, q := "/home/me/proj", "/home/me/other"
		writeInfoFor(t, fsys, "workspaces/"+Key(p), q)

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
		if in, err := ReadInfo(fsys, "workspaces/"+Key(p)); err != nil || in.Path != q {
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
		if k, n, err := Resolve(fsys, "workspaces", q, false, fixedNow); err != ErrNoWorkspace {
			t.Errorf("Resolve(q) = %q, %q, %v; q's key is another, want ErrNoWorkspace", k, n, err)
		}
		// A third path on the same key takes ~3.
		r := "/home/me/third"
		writeInfoFor(t, fsys, "workspaces/"+Key(r), q)
		writeInfoFor(t, fsys, "workspaces/"+Key(r)+"~2", p)
		k, n, err := Resolve(fsys, "workspaces", r, true, fixedNow)
		if err != nil || k != Key(r)+"~3" || !strings.Contains(n, "using "+Key(r)+"~3") {
			t.Errorf("Resolve(r) = %q, %q, %v", k, n, err)
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

func TestResolveNeverAdoptsHashedOrForeign(t *testing.T) {
	onEachFS(t, func(t *testing.T, fsys vfs.FS) {
		long := "/" + strings.Repeat("L", 300)
		if err := fsys.MkdirAll("workspaces/"+Key(long), vfs.DirPerm); err != nil {
			t.Fatal(err)
		}
		key, note, err := Resolve(fsys, "workspaces", long, true, fixedNow)
		if err != nil || key != Key(long)+"~2" || note == "" {
			t.Errorf("hashed folder without workspace.json: Resolve = %q, %q, %v; want ~2", key, note, err)
		}
		// A corrupt workspace.json is not ours either.
		p := "/c"
		if err := fsys.MkdirAll("workspaces/"+Key(p), vfs.DirPerm); err != nil {
			t.Fatal(err)
		}
		if err := vfs.WriteFileAtomic(fsys, "workspaces/"+Key(p)+"/workspace.json", []byte("{garbage")); err != nil {
			t.Fatal(err)
		}
		key, note, err = Resolve(fsys, "workspaces", p, true, fixedNow)
		if err != nil || key != Key(p)+"~2" || !strings.Contains(note, "unreadable") {
			t.Errorf("corrupt workspace.json: Resolve = %q, %q, %v", key, note, err)
		}
		if data, _ := vfs.ReadFile(fsys, "workspaces/"+Key(p)+"/workspace.json"); string(data) != "{garbage" {
			t.Errorf("the corrupt file was rewritten: %q", data)
		}
		// A plain file in the way.
		f := "/f"
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
