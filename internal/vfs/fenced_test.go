package vfs

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fencedTree is a folder W holding a fenced folder W/.state (with FORMAT
// and sub/), links into it, and a plain folder ok/.
func fencedTree(t *testing.T) (w string, f *Fenced, pin *Disk) {
	t.Helper()
	w = t.TempDir()
	for _, d := range []string{".state/sub", "ok"} {
		if err := os.MkdirAll(filepath.Join(w, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(w, ".state/FORMAT"), []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"st": ".state", "deep": ".state/sub", "planted": ".state/FORMAT", "okl": "ok", "ok/up": "../.state"} {
		if err := os.Symlink(target, filepath.Join(w, name)); err != nil {
			t.Fatal(err)
		}
	}
	pin, err := OpenDisk(filepath.Join(w, ".state"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pin.Close() })
	d, err := OpenDisk(w)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return w, d.Fence(filepath.Join(w, ".state"), pin), pin
}

func stateNames(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.Walk(dir, func(p string, _ os.FileInfo, _ error) error {
		r, _ := filepath.Rel(dir, p)
		out = append(out, r)
		return nil
	})
	return out
}

// No call of a fenced disk reads, writes or lists anything in the fenced
// folder, by its name or through any link; everything else works.
func TestFencedRefusesEveryWayIn(t *testing.T) {
	w, f, _ := fencedTree(t)
	before := stateNames(t, filepath.Join(w, ".state"))
	write := func(wr io.Writer) error { _, err := wr.Write([]byte("evil")); return err }
	for _, in := range []string{".state/FORMAT", "st/FORMAT", "deep/../FORMAT", "deep/..", "ok/up/FORMAT", "okl/up/FORMAT", "planted", "okl/../st/FORMAT"} {
		ops := map[string]func() error{
			"read":  func() error { _, err := ReadFile(f, in); return err },
			"trunc": func() error { fh, err := f.OpenFile(in, os.O_WRONLY|os.O_TRUNC, 0); closeIf(fh); return err },
			// Temp files are made by OpenFile with O_CREATE|O_EXCL too (CreateTemp).
			"create":      func() error { fh, err := f.OpenFile(in+"2", os.O_WRONLY|os.O_CREATE, 0o600); closeIf(fh); return err },
			"mkdir":       func() error { return f.MkdirAll(in+"d/e", 0o755) },
			"remove":      func() error { return f.Remove(in) },
			"rename in":   func() error { return f.Rename("ok/a", in) },
			"rename out":  func() error { return f.Rename(in, "ok/b") },
			"symlink":     func() error { return f.Symlink("x", in+"l") },
			"chmod":       func() error { return f.Chmod(in, 0o777) },
			"writeatomic": func() error { return WriteAtomic(f, in, write) },
			"exchange":    func() error { return f.Exchange(in, in+"x") },
			"lock": func() error {
				l, err := f.Lock(in + ".lock")
				if l != nil {
					l.Release()
				}
				return err
			},
			"readdir": func() error { _, err := f.ReadDir(dirOf(in)); return err },
			"lstat":   func() error { _, err := f.Lstat(in); return err },
			"syncdir": func() error { return f.SyncDir(dirOf(in)) },
		}
		if err := os.WriteFile(filepath.Join(w, "ok/a"), []byte("a"), 0o644); err != nil {
			t.Fatal(err)
		}
		for op, fn := range ops {
			if in == "planted" && (op == "readdir" || op == "syncdir" || op == "remove" || op == "lstat" ||
				op == "rename out" || op == "exchange" || op == "chmod" || op == "rename in" || op == "writeatomic" ||
				op == "create" || op == "symlink" || op == "mkdir" || op == "lock") {
				continue // the link itself lives in the workspace: these act on it, not on its target
			}
			if err := fn(); !errors.Is(err, ErrFenced) {
				t.Errorf("%s %s: %v, want ErrFenced", op, in, err)
			}
		}
	}
	if b, _ := os.ReadFile(filepath.Join(w, ".state/FORMAT")); string(b) != "keep" {
		t.Errorf("FORMAT holds %q", b)
	}
	if fi, _ := os.Stat(filepath.Join(w, ".state/FORMAT")); fi.Mode().Perm() != 0o600 {
		t.Errorf("FORMAT mode %v", fi.Mode())
	}
	if after := stateNames(t, filepath.Join(w, ".state")); !slices.Equal(before, after) {
		t.Errorf("state folder holds %v, was %v", after, before)
	}

	// The rest of the tree works, through links too.
	for _, name := range []string{"ok/new", "okl/new2", "top"} {
		if err := WriteFileAtomic(f, name, []byte("fine")); err != nil {
			t.Errorf("write %s: %v", name, err)
		}
		if b, err := ReadFile(f, name); err != nil || string(b) != "fine" {
			t.Errorf("read %s: %q %v", name, b, err)
		}
	}
	if err := f.MkdirAll("ok/x/y", 0o755); err != nil {
		t.Error(err)
	}
	if err := f.Remove("planted"); err != nil { // the link, not its target
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(w, ".state/FORMAT")); err != nil {
		t.Error(err)
	}
}

// A fenced folder moved away stays fenced (its handle is), and whatever
// takes its name is fenced too; a disk inside a fenced folder is fenced
// whole.
func TestFencedFollowsMovesAndInside(t *testing.T) {
	w, f, _ := fencedTree(t)
	if err := os.Rename(filepath.Join(w, ".state"), filepath.Join(w, "moved")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(w, ".state"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"moved/FORMAT", ".state/new", "st/new"} {
		if err := WriteFileAtomic(f, name, []byte("evil")); !errors.Is(err, ErrFenced) {
			t.Errorf("write %s: %v, want ErrFenced", name, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(w, "moved/FORMAT")); string(b) != "keep" {
		t.Errorf("FORMAT holds %q", b)
	}

	d, err := OpenDisk(filepath.Join(w, "moved/sub"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	in := d.Fence(filepath.Join(w, "moved"), nil)
	if err := WriteFileAtomic(in, "x", []byte("evil")); !errors.Is(err, ErrFenced) {
		t.Errorf("write inside: %v, want ErrFenced", err)
	}
}

func closeIf(f File) {
	if f != nil {
		f.Close()
	}
}

// dirOf is the folder part of name, not cleaned.
func dirOf(name string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		return name[:i]
	}
	return "."
}

// Links that climb out of their own folder, and stay out of the fence,
// work as on a plain disk.
func TestFencedFollowsLinksAcrossFolders(t *testing.T) {
	w, f, _ := fencedTree(t)
	if err := os.MkdirAll(filepath.Join(w, "proj/shared"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.Symlink("../proj/shared", filepath.Join(w, "ok/lib"))
	os.WriteFile(filepath.Join(w, "proj/shared/f"), []byte("f"), 0o644)
	os.Symlink("../proj/shared/f", filepath.Join(w, "ok/flink"))
	if fi, err := f.Stat("ok/lib"); err != nil || !fi.IsDir() {
		t.Fatalf("stat ok/lib: %v %v", fi, err)
	}
	if b, err := ReadFile(f, "ok/flink"); err != nil || string(b) != "f" {
		t.Fatalf("read ok/flink: %q %v", b, err)
	}
	if err := f.MkdirAll("ok/lib/new/deeper", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(f, "ok/lib/new/deeper/x", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(w, "proj/shared/new/deeper/x")); string(b) != "x" {
		t.Fatalf("x holds %q", b)
	}
	// The same kind of link into the fence is refused.
	if _, err := f.Stat("ok/up/FORMAT"); !errors.Is(err, ErrFenced) {
		t.Fatalf("stat ok/up/FORMAT: %v", err)
	}
}
