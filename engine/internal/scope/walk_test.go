package scope

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"cairn/objects"
)

func paths(tr *Tree) []string {
	var out []string
	for _, e := range tr.Entries() {
		out = append(out, e.Path)
	}
	return out
}

func mustWalk(t *testing.T, root string, opts Options) *Tree {
	t.Helper()
	tr, err := Walk(context.Background(), root, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.IsSortedFunc(tr.Entries(), func(a, b Entry) int { return strings.Compare(a.Path, b.Path) }) {
		t.Fatalf("walk not in path order: %v", paths(tr))
	}
	return tr
}

// The walk puts its entries in byte order of the whole path, where a
// folder's entries fall among its siblings' names as name + "/".
func TestWalkPathOrder(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"a/z", "a-b", "a.txt", "a0", "a/b/c", "a/b-c", "a/b.d/e", "b", "A", "-"} {
		writeFile(t, root, f, "x")
	}
	got := paths(mustWalk(t, root, Options{}))
	want := slices.Clone(got)
	slices.Sort(want)
	if !slices.Equal(got, want) || len(got) != 13 {
		t.Fatalf("walk order %v", got)
	}
}

func entry(t *testing.T, tr *Tree, p string) *Entry {
	t.Helper()
	if e := tr.Lookup(p); e != nil {
		return e
	}
	t.Fatalf("%s not in the walk: %v", p, paths(tr))
	return nil
}

// One test per kind of entry the walk leaves out, and what it keeps.
func TestWalkLeavesOut(t *testing.T) {
	root := t.TempDir()
	state := filepath.Join(root, "state")
	writeFile(t, root, "a.txt", "a")
	writeFile(t, root, "src/b.go", "b")
	for _, n := range TopLevelLeftOut {
		writeFile(t, root, n+"/x", "secret")
	}
	writeFile(t, root, "src/.env/kept", "only the top level is left out")
	writeFile(t, root, "nested/.git/HEAD", "ref")
	writeFile(t, root, "nested/file", "in a nested repository")
	writeFile(t, root, "gitfile/.git", "gitdir: elsewhere")
	writeFile(t, root, "gitfile/file", "in a worktree")
	writeFile(t, root, "state/sessions/s.json", "state")
	writeFile(t, root, ".x.123-0123456789abcdef.cairn-tmp", "temp")
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", filepath.Join(root, "sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := os.Symlink("src", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	tr := mustWalk(t, root, Options{StateDir: state})
	want := []string{"a.txt", "link", "out", "src", "src/.env", "src/.env/kept", "src/b.go"}
	if got := paths(tr); !slices.Equal(got, want) {
		t.Fatalf("walk = %v, want %v", got, want)
	}
	if e := entry(t, tr, "link"); e.Link != "src" || e.Hash != objects.Sum([]byte("src")) || e.Mode.Type() != os.ModeSymlink {
		t.Fatalf("link entry %+v: a link is stored as a link", e)
	}
	if e := entry(t, tr, "a.txt"); e.Hash != objects.Sum([]byte("a")) || e.Size != 1 {
		t.Fatalf("a.txt %+v", e)
	}
	if tr.Files != 5 || tr.Bytes != 1+1+int64(len("only the top level is left out"))+int64(len("src"))+int64(len("/etc/passwd")) {
		t.Fatalf("files %d bytes %d", tr.Files, tr.Bytes)
	}
}

// Another filesystem is left out: /proc is one wherever the test runs, so
// a workspace on / must not enter it. Walking / is too big; instead a
// bind-free check: a root whose device differs from a subfolder's.
func TestWalkLeavesOutOtherFilesystems(t *testing.T) {
	root := t.TempDir()
	w, err := newWalker(context.Background(), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var st syscall.Stat_t
	if err := syscall.Stat("/proc", &st); err != nil {
		t.Fatal(err)
	}
	w.dev = uint64(st.Dev) + 1 // as if root were on another device than its folders
	writeFile(t, root, "d/f", "x")
	w.spawn("", rootStat(t, root), nil, false)
	tr, err := w.finish()
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Entries()) != 0 {
		t.Fatalf("folders of another filesystem walked: %v", paths(tr))
	}
}

func rootStat(t *testing.T, root string) (st unixStat) {
	t.Helper()
	if err := lstat(root, &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// The state folder is left out also when named through a link (by device
// and inode).
func TestWalkLeavesOutStateFolderThroughLink(t *testing.T) {
	root, other := t.TempDir(), t.TempDir()
	writeFile(t, root, "home/.cairn/s.json", "state")
	writeFile(t, root, "a", "a")
	if err := os.Symlink(filepath.Join(root, "home/.cairn"), filepath.Join(other, "state")); err != nil {
		t.Fatal(err)
	}
	got := paths(mustWalk(t, root, Options{StateDir: filepath.Join(other, "state")}))
	if !slices.Equal(got, []string{"a", "home"}) {
		t.Fatalf("walk = %v, want the state folder left out", got)
	}
}

func TestWalkLimits(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "a", "12345")
	writeFile(t, root, "b/c", "123")
	writeFile(t, root, "big", strings.Repeat("x", 100))
	var le *LimitError
	if _, err := Walk(context.Background(), root, Options{MaxFiles: 2}); !errors.As(err, &le) || le.Limit != "max_files" {
		t.Fatalf("max files: %v", err)
	}
	if _, err := Walk(context.Background(), root, Options{MaxBytes: 50}); !errors.As(err, &le) || le.Limit != "max_bytes" {
		t.Fatalf("max bytes: %v", err)
	}
	tr := mustWalk(t, root, Options{MaxFiles: 3, MaxBytes: 50, MaxFileBytes: 10})
	if e := entry(t, tr, "big"); e.Skipped != "max_file_bytes" || e.Size != 100 || e.Hash != (objects.ID{}) {
		t.Fatalf("big file: %+v, want skipped with its size and no hash", e)
	}
	if tr.Bytes != 8 {
		t.Fatalf("bytes %d: a skipped file's bytes are not covered", tr.Bytes)
	}
}

// TestHoldsState: the state folder in the workspace, the workspace in the
// state folder, and either being the other hold; siblings and a name that
// only starts like the other do not.
func TestHoldsState(t *testing.T) {
	cases := []struct {
		ws, state string
		want      bool
	}{
		{"/u/home", "/u/home/.cairn", true},
		{"/u/home/.cairn", "/u/home/.cairn", true},
		{"/u/home/.cairn/x", "/u/home/.cairn", true},
		{"/", "/u/home/.cairn", true},
		{"/u/home/.cairn2", "/u/home/.cairn", false},
		{"/u/home/.cai", "/u/home/.cairn", false},
		{"/u/other", "/u/home/.cairn", false},
		{"/u/home/x", "/u/home/.cairn", false},
	}
	for _, c := range cases {
		if got := HoldsState(c.ws, c.state); got != c.want {
			t.Errorf("HoldsState(%s, %s) = %v, want %v", c.ws, c.state, got, c.want)
		}
	}
}

func TestWalkPaths(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, ".gitignore", "build/\n*.log\n")
	writeFile(t, root, "build/out/a.o", "o")
	writeFile(t, root, "x.log", "log")
	writeFile(t, root, "src/a.go", "a")
	writeFile(t, root, "src/nested/.git/HEAD", "r")
	os.Symlink("src", filepath.Join(root, "ln"))
	tr, err := WalkPaths(context.Background(), root, []string{"build", "x.log", "src", "src/a.go", "missing", "ln/a.go", "../out"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"build", "build/out", "build/out/a.o", "src", "src/a.go", "x.log"}
	if got := paths(tr); !slices.Equal(got, want) {
		t.Fatalf("WalkPaths = %v, want %v (named paths even when ignored, no link followed, no nested repository)", got, want)
	}
}

// TestWalkPathsManyFolders: WalkPaths of many named folders, each read by
// the walk's workers after the previous one's are done (the workers stop
// when the queue runs dry and start again), covers everything under each,
// as a whole walk lists it.
func TestWalkPathsManyFolders(t *testing.T) {
	root := t.TempDir()
	var named []string
	for i := range 40 {
		d := fmt.Sprintf("d%02d", i)
		named = append(named, d)
		for j := range 3 {
			writeFile(t, root, fmt.Sprintf("%s/s%d/t/f%d", d, j, j), "x")
		}
	}
	whole := mustWalk(t, root, Options{})
	for range 5 {
		tr, err := WalkPaths(context.Background(), root, named, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := paths(tr), paths(whole); !slices.Equal(got, want) {
			t.Fatalf("WalkPaths listed %d paths, want %d", len(got), len(want))
		}
	}
}

func TestDiff(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "same", "s")
	writeFile(t, root, "mod", "1")
	writeFile(t, root, "gone", "g")
	writeFile(t, root, "exec", "e")
	writeFile(t, root, "d/x", "x")
	os.Symlink("a", filepath.Join(root, "ln"))
	before := mustWalk(t, root, Options{})
	writeFile(t, root, "mod", "2")
	os.Remove(filepath.Join(root, "gone"))
	os.Chmod(filepath.Join(root, "exec"), 0o755)
	writeFile(t, root, "new/y", "y")
	os.RemoveAll(filepath.Join(root, "d"))
	os.Remove(filepath.Join(root, "ln"))
	os.Symlink("b", filepath.Join(root, "ln"))
	after := mustWalk(t, root, Options{})
	var got []string
	for _, c := range Diff(before, after) {
		got = append(got, c.Op.String()+" "+c.Path)
	}
	want := []string{"deleted d", "deleted d/x", "mode-changed exec", "deleted gone", "modified ln", "modified mod", "created new", "created new/y"}
	if !slices.Equal(got, want) {
		t.Fatalf("Diff = %v\nwant %v", got, want)
	}
}

// A named folder over the limits is refused too.
func TestWalkPathsLimits(t *testing.T) {
	root := t.TempDir()
	for i := range 5 {
		writeFile(t, root, filepath.Join("big", string(rune('a'+i))), "12345")
	}
	var le *LimitError
	if _, err := WalkPaths(context.Background(), root, []string{"big"}, Options{MaxFiles: 4}); !errors.As(err, &le) || le.Limit != "max_files" {
		t.Fatalf("rm -r big/ over max_files: %v", err)
	}
	if _, err := WalkPaths(context.Background(), root, []string{"big"}, Options{MaxBytes: 20}); !errors.As(err, &le) || le.Limit != "max_bytes" {
		t.Fatalf("rm -r big/ over max_bytes: %v", err)
	}
}

// A workspace reached through a link is walked as its folder.
func TestWalkRootThroughLink(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "real/a", "a")
	if err := os.Symlink("real", filepath.Join(dir, "ws")); err != nil {
		t.Fatal(err)
	}
	if got := paths(mustWalk(t, filepath.Join(dir, "ws"), Options{})); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("walk through a linked root = %v", got)
	}
}

// A file removed between its listing and its read is not in the walk (not
// listed as unreadable).
func TestWalkFileGoneWhileRead(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "f", "x")
	w, err := newWalker(context.Background(), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var st unixStat
	if err := lstat(filepath.Join(root, "f"), &st); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(root, "f"))
	dirfd, err := os.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer dirfd.Close()
	e := Entry{Path: "f"}
	if _, err := w.hash(int(dirfd.Fd()), "f", &e, &st, nil); err != errGone || e.Skipped != "" {
		t.Fatalf("hash of a removed file: %v, skipped %q", err, e.Skipped)
	}
}
