//go:build linux

package scope

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// inUserNS is set in the environment of this test run again inside a user
// and mount namespace of its own (unshare), where a tmpfs can be mounted
// without being root.
const inUserNS = "CAIRN_SCOPE_TEST_USERNS"

// TestWalkLeavesOutMountedFilesystem crosses a real filesystem boundary: a
// tmpfs mounted on a folder of the workspace. Neither the mount point nor
// anything in it is walked, named (WalkPaths), rescanned or watched. The
// test mounts the tmpfs itself when it may (root); else it runs again in
// a user and mount namespace of its own (unshare -rm); only where neither
// is possible does it check the same rule through the walk's device seam
// (as TestWalkLeavesOutOtherFilesystems), and says so.
func TestWalkLeavesOutMountedFilesystem(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "src/a.go", "a")
	mnt := filepath.Join(root, "src", "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	err := unix.Mount("tmpfs", mnt, "tmpfs", 0, "size=1m,mode=0755")
	switch {
	case err == nil:
		t.Cleanup(func() {
			if err := unix.Unmount(mnt, unix.MNT_DETACH); err != nil {
				t.Errorf("unmount: %v", err)
			}
		})
		leavesOutMount(t, root)
	case os.Getenv(inUserNS) != "":
		t.Fatalf("mount tmpfs in a namespace of its own: %v", err)
	case errors.Is(err, unix.EPERM):
		if out, ok := rerunInUserNS(t); ok {
			if !strings.Contains(out, "--- PASS: TestWalkLeavesOutMountedFilesystem") {
				t.Fatalf("run in a user namespace:\n%s", out)
			}
			t.Log("checked with a tmpfs mounted in a user and mount namespace of its own")
			return
		}
		t.Logf("no tmpfs can be mounted here (%v, and no user namespace): checked through the device seam", err)
		TestWalkLeavesOutOtherFilesystems(t)
	default:
		t.Fatalf("mount tmpfs: %v", err)
	}
}

// rerunInUserNS runs this test again under unshare -rm; ok is false when
// no user namespace can be made here.
func rerunInUserNS(t *testing.T) (string, bool) {
	if exec.Command("unshare", "-rm", "true").Run() != nil {
		return "", false
	}
	c := exec.Command("unshare", "-rm", os.Args[0], "-test.run", "^TestWalkLeavesOutMountedFilesystem$", "-test.v", "-test.count=1")
	c.Env = append(os.Environ(), inUserNS+"=1")
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("run in a user namespace: %v\n%s", err, out)
	}
	return string(out), true
}

// leavesOutMount checks every way in to root/src/mnt, another filesystem.
func leavesOutMount(t *testing.T, root string) {
	ctx := context.Background()
	writeFile(t, root, "src/mnt/x.go", "on the tmpfs")
	writeFile(t, root, "src/mnt/deep/y.go", "on the tmpfs")
	var rst, mst unix.Stat_t
	if unix.Stat(filepath.Join(root, "src"), &rst) != nil || unix.Stat(filepath.Join(root, "src/mnt"), &mst) != nil || rst.Dev == mst.Dev {
		t.Fatal("src/mnt is not another filesystem")
	}
	want := []string{"src", "src/a.go"}

	cache := NewCache()
	tr := mustWalk(t, root, Options{Cache: cache})
	if got := paths(tr); !slices.Equal(got, want) {
		t.Fatalf("Walk = %v, want %v: another filesystem entered", got, want)
	}
	for _, named := range [][]string{{"src/mnt"}, {"src/mnt/x.go"}, {"src/mnt/deep"}, {"src"}} {
		pt, err := WalkPaths(ctx, root, named, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths(pt) {
			if strings.HasPrefix(p, "src/mnt") {
				t.Fatalf("WalkPaths(%v) = %v: another filesystem covered", named, paths(pt))
			}
		}
	}
	rt, err := Rescan(ctx, root, tr, []string{"src/mnt/x.go", "src/mnt/deep", "src/mnt"}, Options{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(rt); !slices.Equal(got, want) {
		t.Fatalf("Rescan = %v, want %v", got, want)
	}

	w, err := Watch(ctx, root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, full := dirty(t, w); !full {
		t.Fatal("a first Dirty asks for a full walk")
	}
	writeFile(t, root, "src/mnt/z.go", "changed on the tmpfs")
	writeFile(t, root, "src/b.go", "b")
	ds, full := dirty(t, w)
	if full || !slices.Contains(ds, "src/b.go") || slices.ContainsFunc(ds, func(p string) bool { return strings.HasPrefix(p, "src/mnt") }) {
		t.Fatalf("Dirty = %v (full %v), want src/b.go and nothing of another filesystem", ds, full)
	}
	w.mu.Lock()
	watched := w.watched.has("src/mnt") || w.watched.has("src/mnt/deep")
	w.mu.Unlock()
	if watched {
		t.Fatal("the watcher watches another filesystem")
	}
}
