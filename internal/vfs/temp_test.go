package vfs_test

import (
	"os"
	"path"
	"slices"
	"strings"
	"testing"

	"cairn/internal/vfs"
)

// FuzzTempName checks the temp grammar both ways: a name TempName makes
// for any legal base name is a temp name within NameMax carrying this
// process's pid; the user's base name itself, and every name made from it
// by adding what people add (".tmp", "l", "~", digits), is not one.
func FuzzTempName(f *testing.F) {
	for _, s := range []string{"config", ".config", "x", "a.json", "é", strings.Repeat("n", 255),
		strings.Repeat("é", 127) + "x", "\xff\xfe", ".x.1-0123456789abcdef.cairn-tmp"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, base string) {
		if base == "" || len(base) > vfs.NameMax || strings.ContainsAny(base, "/\x00") || base == "." || base == ".." {
			return // not a legal file name
		}
		name := vfs.TempName("d", base)
		defer vfs.ReleaseTemp(name)
		tmp := path.Base(name)
		if path.Dir(name) != "d" || len(tmp) > vfs.NameMax {
			t.Fatalf("TempName(%q) = %q (%d bytes)", base, name, len(tmp))
		}
		if pid, ok := vfs.TempPID(tmp); !ok || pid != os.Getpid() {
			t.Fatalf("TempName(%q) = %q: TempPID = %d %v", base, name, pid, ok)
		}
		if stem, ok := vfs.TempTarget(tmp); !ok || !strings.HasPrefix(base, stem) || len(base) <= 200 && stem != base {
			t.Fatalf("TempTarget(%q) = %q %v, want the base %q", tmp, stem, ok, base)
		}
		if vfs.TempLeftover(tmp) {
			t.Fatalf("%q is left over while in use", tmp)
		}
		for _, user := range []string{tmp + "~", tmp + ".swp", "." + base + ".tmp", "." + base + ".tmpl",
			"." + base + ".tmp123", "." + base + ".tmpabc", strings.TrimSuffix(tmp, vfs.TempSuffix) + ".tmp"} {
			if _, ok := vfs.TempTarget(user); vfs.IsTemp(user) || ok {
				t.Errorf("%q (from base %q) is taken for a temp name", user, base)
			}
		}
	})
}

func TestTempNameLongBase(t *testing.T) {
	// A 250-byte name (legal: NAME_MAX is 255) gets a temp name that fits,
	// starting with as much of the name as fits.
	base := strings.Repeat("a", 250)
	name := vfs.TempName(".", base)
	defer vfs.ReleaseTemp(name)
	if len(name) > vfs.NameMax || !strings.HasPrefix(name, "."+base[:200]) || !vfs.IsTemp(name) {
		t.Fatalf("TempName = %q (%d bytes)", name, len(name))
	}
	// On the disk: the long name can be written atomically.
	d, err := vfs.OpenDisk(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := vfs.WriteFileAtomic(d, base, []byte("long")); err != nil {
		t.Fatalf("WriteFileAtomic of a %d-byte name: %v", len(base), err)
	}
	if got, err := vfs.ReadFile(d, base); err != nil || string(got) != "long" {
		t.Fatalf("read back = %q %v", got, err)
	}
}

// TestSweepTempsNamesOnly: SweepTemps, which lists names only where the FS
// can (NamesReader) and looks closer at temp names alone, removes a dead
// writer's temp file and nothing else: not a user's file, not a live
// writer's temp, not a folder with a temp's name. On each FS.
func TestSweepTempsNamesOnly(t *testing.T) {
	disk := func(t *testing.T) vfs.FS {
		d, err := vfs.OpenDisk(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		return d
	}
	for name, mk := range map[string]func(t *testing.T) vfs.FS{
		"disk":   disk,
		"fenced": func(t *testing.T) vfs.FS { return disk(t).(*vfs.Disk).Fence(t.TempDir(), nil) },
		"mem":    func(*testing.T) vfs.FS { return vfs.NewMem() },
	} {
		t.Run(name, func(t *testing.T) {
			fsys := mk(t)
			dead := ".a.txt.999999999-0123456789abcdef" + vfs.TempSuffix
			live := vfs.TempName("d", "b.txt")
			defer vfs.ReleaseTemp(live)
			if err := fsys.MkdirAll("d/.c.999999999-0123456789abcdef"+vfs.TempSuffix, 0o700); err != nil {
				t.Fatal(err)
			}
			for _, n := range []string{"d/a.txt", "d/" + dead, live} {
				f, err := fsys.OpenFile(n, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
				if err != nil {
					t.Fatal(err)
				}
				f.Close()
			}
			n, err := vfs.SweepTemps(fsys, "d")
			if err != nil || n != 1 {
				t.Fatalf("SweepTemps = %d, %v; want 1 removed", n, err)
			}
			names, err := vfs.ReadDirNames(fsys, "d")
			if err != nil {
				t.Fatal(err)
			}
			want := []string{path.Base(live), ".c.999999999-0123456789abcdef" + vfs.TempSuffix, "a.txt"}
			slices.Sort(want)
			if !slices.Equal(names, want) {
				t.Fatalf("left %q, want %q", names, want)
			}
		})
	}
}
