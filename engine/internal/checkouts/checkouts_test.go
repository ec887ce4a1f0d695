package checkouts

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// runGit runs git in dir, failing the test on error.
func runGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.email=t@example.com", "-c", "user.name=t", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func must[T any](t *testing.T, v T, err error) T {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func evalTemp(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	return must(t, d, err)
}

func readOf(t *testing.T, dir string) *Repository {
	t.Helper()
	r, err := Read(dir)
	return must(t, r, err)
}

func noErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// A repository with two linked worktrees made by git itself: the checkouts
// read from its files are the ones `git worktree list` names, each with its
// branch, and the one holding the directory asked about is current.
func TestCheckoutsOfARealRepository(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is not installed")
	}
	root := evalTemp(t)
	main := filepath.Join(root, "main")
	noErr(t, os.Mkdir(main, 0o755))
	runGit(t, main, "init", "-q")
	noErr(t, os.WriteFile(filepath.Join(main, "f"), []byte("x"), 0o644))
	runGit(t, main, "add", "f")
	runGit(t, main, "commit", "-q", "-m", "first")
	runGit(t, main, "worktree", "add", "-q", "-b", "feature", filepath.Join(root, "wt-feature"))
	runGit(t, main, "worktree", "add", "-q", "--detach", filepath.Join(root, "wt-detached"))
	noErr(t, os.Mkdir(filepath.Join(root, "wt-feature", "sub"), 0o755))

	var want []string
	for _, l := range strings.Split(runGit(t, main, "worktree", "list", "--porcelain"), "\n") {
		if p, ok := strings.CutPrefix(l, "worktree "); ok {
			want = append(want, p)
		}
	}
	repo := readOf(t, filepath.Join(root, "wt-feature", "sub"))
	var got []string
	for _, c := range repo.Checkouts {
		got = append(got, c.Path)
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("checkouts %v, git worktree list says %v", got, want)
	}
	if !repo.Checkouts[0].Main || repo.Checkouts[0].Path != main || repo.Checkouts[0].Branch != "main" {
		t.Errorf("main checkout: %+v", repo.Checkouts[0])
	}
	if c := repo.Current(); c == nil || c.Path != filepath.Join(root, "wt-feature") || c.Branch != "feature" || c.Name != "wt-feature" {
		t.Errorf("current checkout: %+v", c)
	}
	if c := readOf(t, main).Current(); c == nil || !c.Main {
		t.Errorf("from the main checkout, current is %+v", c)
	}
	if r := readOf(t, root); r != nil {
		t.Errorf("a folder in no repository has checkouts: %+v", r)
	}
}

func TestTargetAndIn(t *testing.T) {
	r := &Repository{Checkouts: []Checkout{{Path: "/r", Main: true, Gone: true}, {Path: "/w1", Current: true}, {Path: "/w2", Gone: true}}}
	if got := r.Target(); got != "/w1" {
		t.Fatalf("target with the main one gone: %q, want the current one", got)
	}
	r.Checkouts[0].Gone = false
	if got := r.Target(); got != "/r" {
		t.Fatalf("target: %q, want the main one", got)
	}
	gone := map[string]bool{"/w2": true}
	for p, want := range map[string]string{"/w2": "/w2", "/w2/sub": "/w2/sub", "/w20": "", "/w1": ""} {
		if got := In(p, gone); got != want {
			t.Errorf("In(%q) = %q, want %q", p, got, want)
		}
	}
}
