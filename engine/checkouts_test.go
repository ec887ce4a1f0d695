package engine

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
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

// Sessions of the other checkouts are listed one section per checkout; a
// worktree removed with git worktree remove gives its sessions back to the
// main checkout at the next start in the repository, usage included.
func TestOtherCheckoutsAndRemovedWorktree(t *testing.T) {
	ctx := context.Background()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is not installed")
	}
	s, _ := testStore(t)
	root := must(filepath.EvalSymlinks(t.TempDir()))(t)
	main := filepath.Join(root, "main")
	noErr(t, os.Mkdir(main, 0o755))
	runGit(t, main, "init", "-q")
	noErr(t, os.WriteFile(filepath.Join(main, "f"), []byte("x"), 0o644))
	runGit(t, main, "add", "f")
	runGit(t, main, "commit", "-q", "-m", "first")
	wt := filepath.Join(root, "wt")
	runGit(t, main, "worktree", "add", "-q", "-b", "feature", wt)
	noErr(t, os.Mkdir(filepath.Join(wt, "sub"), 0o755))
	ids := map[string]string{}
	for _, d := range []string{main, wt, filepath.Join(wt, "sub")} {
		w := must(s.Workspace(d))(t)
		sess := w.Create(SessionOptions{})
		must(sess.Append(ctx, Item{Type: User, Text: "in " + d}))(t)
		noErr(t, sess.EndTurn(ctx, Turn{Model: "m", Spend: Spend{CostUSD: 1}}))
		noErr(t, sess.Close())
		ids[d] = sess.ID()
	}
	repo, secs, err := s.OtherCheckouts(ctx, main)
	if err != nil || repo == nil || len(secs) != 1 {
		t.Fatalf("other checkouts of main: %+v %+v %v", repo, secs, err)
	}
	if secs[0].Path != wt || len(secs[0].Sessions) != 2 {
		t.Fatalf("the worktree's section: %+v", secs[0])
	}
	_, secs, _ = s.OtherCheckouts(ctx, filepath.Join(wt, "sub"))
	if len(secs) != 1 || secs[0].Path != main || len(secs[0].Sessions) != 1 || secs[0].Sessions[0].ID != ids[main] {
		t.Fatalf("other checkouts of the worktree: %+v", secs)
	}
	// A start in the repository notes its checkouts; nothing is gone yet.
	if r := must(s.ReturnFromRemovedCheckouts(ctx, main))(t); len(r) != 0 {
		t.Fatalf("moved back from a checkout that is there: %+v", r)
	}
	runGit(t, main, "worktree", "remove", "--force", wt)
	r := must(s.ReturnFromRemovedCheckouts(ctx, main))(t)
	if len(r) != 2 {
		t.Fatalf("moved back: %+v", r)
	}
	wm := must(s.Workspace(main))(t)
	l, _ := must2(wm.List(ctx))(t)
	if len(l) != 3 {
		t.Fatalf("the main checkout lists %d sessions after the worktree went, want 3", len(l))
	}
	for _, u := range must(s.Usage(ctx))(t) {
		if u.Path != main {
			t.Errorf("usage left at %s: %+v", u.Path, u)
		}
	}
	if r := must(s.ReturnFromRemovedCheckouts(ctx, main))(t); len(r) != 0 {
		t.Fatalf("a second start moved again: %+v", r)
	}
}
