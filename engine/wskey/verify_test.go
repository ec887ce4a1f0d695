package wskey

import (
	"errors"
	"path"
	"strings"
	"testing"

	"cairn/internal/vfs"
)

func TestVerify(t *testing.T) {
	onEachFS(t, func(t *testing.T, fsys vfs.FS) {
		const dir = "workspaces"
		mine := "/home/me/proj"
		key, _, err := Resolve(fsys, dir, mine, true, fixedNow)
		if err != nil {
			t.Fatal(err)
		}
		if p, err := Verify(fsys, dir, key); err != nil || p != mine {
			t.Fatalf("Verify of a folder Resolve made: %q %v", p, err)
		}

		// A workspace.json that names another path than its folder's.
		victim := "/home/me/victim"
		writeInfoFor(t, fsys, path.Join(dir, Key("/home/me/tampered")), victim)
		if p, err := Verify(fsys, dir, Key("/home/me/tampered")); !errors.Is(err, ErrNotItsFolder) || p != "" {
			t.Fatalf("a folder naming a path without a folder: %q %v", p, err)
		}
		if _, _, err := Resolve(fsys, dir, victim, true, fixedNow); err != nil {
			t.Fatal(err)
		}
		_, err = Verify(fsys, dir, Key("/home/me/tampered"))
		if !errors.Is(err, ErrNotItsFolder) || !strings.Contains(err.Error(), Key(victim)) {
			t.Fatalf("a folder naming a path with a folder of its own: %v", err)
		}

		// Not an absolute, clean path.
		for _, p := range []string{"rel/dir", "", "/a/../b", "/a/", "/a//b"} {
			folder := path.Join(dir, Encode(p)+"x")
			writeInfoFor(t, fsys, folder, p)
			if got, err := Verify(fsys, dir, path.Base(folder)); !errors.Is(err, ErrBadInfo) || got != "" {
				t.Fatalf("workspace.json with path %q: %q %v", p, got, err)
			}
		}
		// Even under the key Encode gives the unclean path.
		writeInfoFor(t, fsys, path.Join(dir, Key("/a/../b")), "/a/../b")
		if _, err := Verify(fsys, dir, Key("/a/../b")); !errors.Is(err, ErrBadInfo) {
			t.Fatalf("unclean path under its own key: %v", err)
		}
		writeInfoFor(t, fsys, path.Join(dir, Key("/junk")), "/junk")
		if err := vfs.WriteFileAtomic(fsys, path.Join(dir, Key("/junk"), InfoFile), []byte(`{"v":1,"path":"/ju`)); err != nil {
			t.Fatal(err)
		}
		if _, err := Verify(fsys, dir, Key("/junk")); !errors.Is(err, ErrBadInfo) {
			t.Fatalf("truncated workspace.json: %v", err)
		}

		// Two folders claim one path: Resolve takes the first, so the second
		// is not its folder.
		writeInfoFor(t, fsys, path.Join(dir, key+"~2"), mine)
		if _, err := Verify(fsys, dir, key+"~2"); !errors.Is(err, ErrNotItsFolder) {
			t.Fatalf("a second folder claiming the path: %v", err)
		}

		// A folder under a path's own key whose workspace.json names another
		// path is not the other path's.
		base := Key("/srv/Case")
		writeInfoFor(t, fsys, path.Join(dir, base), "/srv/case2")
		if _, err := Verify(fsys, dir, base); !errors.Is(err, ErrNotItsFolder) {
			t.Fatalf("the folder whose workspace.json names another path: %v", err)
		}

		// No workspace.json: the un-suffixed, reversible key is adopted as
		// Resolve does; a suffixed one belongs to no one.
		if err := fsys.MkdirAll(path.Join(dir, Key("/adopt/me")), vfs.DirPerm); err != nil {
			t.Fatal(err)
		}
		if p, err := Verify(fsys, dir, Key("/adopt/me")); err != nil || p != "/adopt/me" {
			t.Fatalf("adoptable folder: %q %v", p, err)
		}
		if err := fsys.MkdirAll(path.Join(dir, Key("/adopt/me")+"~3"), vfs.DirPerm); err != nil {
			t.Fatal(err)
		}
		if _, err := Verify(fsys, dir, Key("/adopt/me")+"~3"); !errors.Is(err, ErrNotItsFolder) {
			t.Fatalf("suffixed folder without workspace.json: %v", err)
		}
		// Nor is a key that decodes to a path that is not clean ("/..").
		for _, k := range []string{"-..", "-.", "-a-..-.."} {
			if err := fsys.MkdirAll(path.Join(dir, k), vfs.DirPerm); err != nil {
				t.Fatal(err)
			}
			if p, err := Verify(fsys, dir, k); !errors.Is(err, ErrNotItsFolder) {
				t.Fatalf("folder %s without workspace.json: %q %v", k, p, err)
			}
		}
		if _, err := fsys.Lstat(path.Join(dir, Key("/adopt/me"), InfoFile)); !vfs.IsNotExist(err) {
			t.Fatalf("Verify wrote a workspace.json: %v", err)
		}
	})
}
