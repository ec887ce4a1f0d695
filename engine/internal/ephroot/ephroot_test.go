package ephroot

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestSweepRemovesOnlyRootsOfDeadOwners: a root whose lock file can be
// locked (its owner died) is removed; a live one, one without a lock file,
// a link and a folder of another name are left.
func TestSweepRemovesOnlyRootsOfDeadOwners(t *testing.T) {
	base := t.TempDir()
	live, err := Make(base)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Remove()
	dead := filepath.Join(base, Prefix+"dead")
	mkfile(t, filepath.Join(dead, LockName))
	mkfile(t, filepath.Join(dead, "workspaces", "w", "sessions", "s.items.jsonl"))
	old := filepath.Join(base, Prefix+"old") // an older build's: no lock file
	mkfile(t, filepath.Join(old, "FORMAT"))
	other := filepath.Join(base, "other")
	mkfile(t, filepath.Join(other, LockName))
	target := t.TempDir()
	mkfile(t, filepath.Join(target, LockName))
	if err := os.Symlink(target, filepath.Join(base, Prefix+"link")); err != nil {
		t.Fatal(err)
	}

	stale, err := Stale(base)
	if err != nil || !slices.Equal(stale, []string{dead}) {
		t.Fatalf("Stale = %v, %v; want [%s]", stale, err, dead)
	}
	removed, err := Sweep(base)
	if err != nil || !slices.Equal(removed, []string{dead}) {
		t.Fatalf("Sweep = %v, %v; want [%s]", removed, err, dead)
	}
	for _, p := range []string{live.Dir(), old, other, target, filepath.Join(target, LockName)} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was touched: %v", p, err)
		}
	}
	if _, err := os.Lstat(dead); !os.IsNotExist(err) {
		t.Errorf("the dead owner's root is still there: %v", err)
	}
	// Its owner removes the live one, and nothing is left of it.
	if err := live.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(live.Dir()); !os.IsNotExist(err) {
		t.Errorf("Remove left the root: %v", err)
	}
}

// TestMakeLocksBeforeNaming: a new root's lock file is held from the
// moment it has its name, so a sweep at any time after Make leaves it.
func TestMakeLocksBeforeNaming(t *testing.T) {
	base := t.TempDir()
	r, err := Make(base)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Remove()
	if _, err := os.Lstat(filepath.Join(r.Dir(), LockName)); err != nil {
		t.Fatalf("no lock file: %v", err)
	}
	if removed, err := Sweep(base); err != nil || len(removed) != 0 {
		t.Fatalf("Sweep removed %v (%v) while the owner lives", removed, err)
	}
	if fi, err := os.Stat(r.Dir()); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("root %v, %v: want a folder of mode 0700", fi, err)
	}
}

func mkfile(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
}
