package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// apply_patch from real patches: git diffs a real git makes in the test,
// and Begin Patch envelopes; every patch that is malformed or does not
// apply is refused with nothing changed.

// gitRun runs git in dir, isolated from the user's and the system's git
// settings.
func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "core.autocrlf=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir(), "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// tree is every file under dir but .git: its content, "x:" before it when
// executable, "@" and the target for a link.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(dir, p)
		fi, err := os.Lstat(p)
		switch {
		case err != nil:
			return err
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "@" + target
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if fi.Mode().Perm()&0o100 != 0 {
				out[rel] = "x:" + string(b)
			} else {
				out[rel] = string(b)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameTree(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s holds %.60q, want %.60q", what, k, got[k], v)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: %s should not be there", what, k)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
}

// numbered is n numbered lines, each saying what.
func numbered(n int, what string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%s line %d\n", what, i)
	}
	return b.String()
}

// binary is n bytes of noise, with NULs, from seed.
func binary(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.IntN(256))
	}
	b[0] = 0
	return b
}

// gitPatch makes the workspace's files old, commits them, makes them new
// with change, and returns the patch git prints for the change (args to
// git diff --cached), the new files, and the workspace back as old.
func gitPatch(t *testing.T, e *snapEnv, change func(), args ...string) (string, map[string]string) {
	t.Helper()
	gitRun(t, e.dir, "init", "-q")
	gitRun(t, e.dir, "add", "-A")
	gitRun(t, e.dir, "commit", "-q", "-m", "old")
	change()
	gitRun(t, e.dir, "add", "-A")
	patch := gitRun(t, e.dir, append([]string{"diff", "--cached"}, args...)...)
	neu := tree(t, e.dir)
	gitRun(t, e.dir, "reset", "-q", "--hard", "HEAD")
	return patch, neu
}

func TestToolPatchGitDiff(t *testing.T) {
	e := newSnapEnv(t, "")
	e.put("a.txt", numbered(30, "a"))
	e.put("b.txt", numbered(12, "b"))
	e.put("d.sh", "#!/bin/sh\necho hi\n")
	must0(t, os.WriteFile(e.path("e.bin"), binary(5000, 1), 0o644))
	e.put("f.txt", "to be deleted\n")
	e.put("keep/k.txt", "kept\n")
	must0(t, os.WriteFile(e.path("z.bin"), binary(300, 3), 0o644))
	old := tree(t, e.dir)
	patch, neu := gitPatch(t, e, func() {
		e.put("a.txt", strings.Replace(strings.Replace(numbered(30, "a"), "a line 4\n", "a line FOUR\n", 1), "a line 20\n", "", 1))
		must0(t, os.MkdirAll(e.path("sub"), 0o755))
		must0(t, os.Rename(e.path("b.txt"), e.path("sub/c.txt")))
		e.put("sub/c.txt", numbered(12, "b")+"one more\n")
		must0(t, os.Chmod(e.path("d.sh"), 0o755))
		b := binary(5000, 1)
		copy(b[100:], "changed in the middle")
		must0(t, os.WriteFile(e.path("e.bin"), b, 0o644))
		must0(t, os.Remove(e.path("f.txt")))
		e.put("g/new.txt", "brand new\n")
		must0(t, os.WriteFile(e.path("h.bin"), binary(2000, 2), 0o644))
		must0(t, os.Remove(e.path("z.bin")))
	}, "--binary", "-M", "HEAD")
	for _, want := range []string{"rename from b.txt", "new mode 100755", "GIT binary patch", "deleted file mode", "new file mode"} {
		if !strings.Contains(patch, want) {
			t.Fatalf("git's patch lacks %q:\n%s", want, patch)
		}
	}
	sameTree(t, "before", tree(t, e.dir), old)

	s := e.session()
	ans, err := s.ToolPatch(e.ctx, []byte(patch))
	if err != nil {
		t.Fatal(err)
	}
	s.files.Wait()
	sameTree(t, "patched", tree(t, e.dir), neu)
	if ans.Snapshot == nil {
		t.Fatal("no snapshot")
	}
	var files []string
	for _, f := range ans.Files {
		files = append(files, strings.TrimPrefix(f, e.dir+"/"))
	}
	slices.Sort(files)
	want := []string{"a.txt", "b.txt", "d.sh", "e.bin", "f.txt", "g/new.txt", "h.bin", "sub/c.txt", "z.bin"}
	if !slices.Equal(files, want) {
		t.Fatalf("answer files %v, want %v", files, want)
	}
	l := must(s.Snapshots(e.ctx))(t)
	if len(l.Snapshots) != 1 || len(l.Snapshots[0].Files) != len(want) || l.Snapshots[0].Tool != ToolPatchName {
		t.Fatalf("snapshots %+v", l.Snapshots)
	}
	must(s.Undo(e.ctx))(t)
	sameTree(t, "undone", tree(t, e.dir), old)
	must(s.Redo(e.ctx))(t)
	sameTree(t, "redone", tree(t, e.dir), neu)
	s = e.reopen(s)
	must(s.Undo(e.ctx))(t)
	sameTree(t, "undone after reopening", tree(t, e.dir), old)
}

// TestToolPatchGitCopy: a copy (git diff -C --find-copies-harder) makes the
// new file and keeps the old one.
func TestToolPatchGitCopy(t *testing.T) {
	e := newSnapEnv(t, "")
	e.put("src.txt", numbered(20, "s"))
	patch, neu := gitPatch(t, e, func() {
		e.put("dst.txt", numbered(20, "s")+"tail\n")
	}, "-C", "--find-copies-harder", "HEAD")
	if !strings.Contains(patch, "copy from src.txt") {
		t.Fatalf("git's patch is no copy:\n%s", patch)
	}
	s := e.session()
	must(s.ToolPatch(e.ctx, []byte(patch)))(t)
	s.files.Wait()
	sameTree(t, "patched", tree(t, e.dir), neu)
}

func TestToolPatchEnvelope(t *testing.T) {
	e := newSnapEnv(t, "")
	e.put("src/app.py", "import os\n\ndef f():\n    pass\n\ndef g():\n    return 1\n")
	e.put("src/old.py", "def run():\n    args = parse()\n    dispatch(args)\n")
	e.put("obsolete.txt", "bye\n")
	must0(t, os.Chmod(e.path("src/old.py"), 0o755))
	old := tree(t, e.dir)
	s := e.session()
	ans, err := s.ToolPatch(e.ctx, []byte(`*** Begin Patch
*** Add File: docs/notes.md
+# Notes
+
+- one
*** Update File: src/app.py
@@ def f():
-    pass
+    return 0
@@ def g():
-    return 1
+    return 2
*** Delete File: obsolete.txt
*** Update File: src/old.py
*** Move to: src/cli/new.py
@@ def run():
-    args = parse()
-    dispatch(args)
+    cli = parse()
+    dispatch(cli)
*** End Patch
`))
	if err != nil {
		t.Fatal(err)
	}
	s.files.Wait()
	neu := map[string]string{
		"docs/notes.md":  "# Notes\n\n- one\n",
		"src/app.py":     "import os\n\ndef f():\n    return 0\n\ndef g():\n    return 2\n",
		"src/cli/new.py": "x:def run():\n    cli = parse()\n    dispatch(cli)\n",
	}
	sameTree(t, "patched", tree(t, e.dir), neu)
	if len(ans.Files) != 5 {
		t.Fatalf("answer files %v", ans.Files)
	}
	must(s.Undo(e.ctx))(t)
	sameTree(t, "undone", tree(t, e.dir), old)
	must(s.Redo(e.ctx))(t)
	sameTree(t, "redone", tree(t, e.dir), neu)
}

// TestToolPatchRefused: a patch that is malformed, names a file it may not
// change, or does not apply is refused whole, and changes nothing: every
// file byte for byte as it was, no change line, no temp file.
func TestToolPatchRefused(t *testing.T) {
	e := newSnapEnv(t, "")
	e.put("a.txt", numbered(10, "a"))
	e.put("b.txt", numbered(10, "b"))
	e.put("dir/x.txt", "x\n")
	must0(t, os.Symlink("a.txt", e.path("link")))
	must0(t, os.WriteFile(e.path("bin"), binary(1000, 5), 0o644))
	// A real binary patch made for other content than bin's.
	gitDir := t.TempDir()
	must0(t, os.WriteFile(filepath.Join(gitDir, "bin"), binary(1000, 6), 0o644))
	gitRun(t, gitDir, "init", "-q")
	gitRun(t, gitDir, "add", "-A")
	gitRun(t, gitDir, "commit", "-q", "-m", "x")
	must0(t, os.WriteFile(filepath.Join(gitDir, "bin"), binary(1000, 7), 0o644))
	otherBinary := gitRun(t, gitDir, "diff", "--binary")
	noBinaryData := gitRun(t, gitDir, "diff")
	if !strings.Contains(noBinaryData, "Binary files") {
		t.Fatalf("git diff without --binary: %s", noBinaryData)
	}

	good := "*** Update File: a.txt\n@@\n-a line 1\n+a line ONE\n"
	env := func(body string) string { return "*** Begin Patch\n" + good + body + "*** End Patch\n" }
	gitGood := "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n a line 1\n-a line 2\n+a line TWO\n"
	for _, c := range []struct {
		name, patch string
		bad         bool // ErrBadInput; else a *PatchError
		path        string
		hunk        int
	}{
		{"empty", "", true, "", 0},
		{"not a patch", "hello\nworld\n", true, "", 0},
		{"no end marker", "*** Begin Patch\n" + good, true, "", 0},
		{"bad hunk header", env("*** Rename File: b.txt\n"), true, "", 0},
		{"update without hunks", env("*** Update File: b.txt\n"), true, "", 0},
		{"lines not in the file", env("*** Update File: b.txt\n@@\n-no such line\n+x\n"), false, "b.txt", 1},
		{"second hunk missing", env("*** Update File: b.txt\n@@\n-b line 2\n+B\n@@ nowhere\n-b line 3\n+C\n"), false, "b.txt", 2},
		{"update a missing file", env("*** Update File: nope.txt\n@@\n-x\n+y\n"), false, "nope.txt", 0},
		{"delete a missing file", env("*** Delete File: nope.txt\n"), false, "nope.txt", 0},
		{"delete a folder", env("*** Delete File: dir\n"), true, "", 0},
		{"add over a folder", env("*** Add File: dir\n+x\n"), true, "", 0},
		{"through a link", env("*** Update File: link\n@@\n-a line 1\n+x\n"), true, "", 0},
		{"climbs out", env("*** Add File: ../outside.txt\n+x\n"), true, "", 0},
		{"absolute outside", env("*** Add File: /tmp/cairn-outside.txt\n+x\n"), true, "", 0},
		{"under a file", env("*** Add File: b.txt/c.txt\n+x\n"), true, "", 0},
		{"git: context differs", gitGood + "diff --git a/b.txt b/b.txt\n--- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n b line 1\n-b line Q\n+b line C\n", false, "b.txt", 1},
		{"git: second hunk differs", gitGood + "diff --git a/b.txt b/b.txt\n--- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n b line 1\n-b line 2\n+b line TWO\n@@ -8,2 +8,2 @@\n b line 8\n-b line zzz\n+b line NINE\n", false, "b.txt", 2},
		{"git: new file exists", gitGood + "diff --git a/b.txt b/b.txt\nnew file mode 100644\n--- /dev/null\n+++ b/b.txt\n@@ -0,0 +1 @@\n+x\n", false, "b.txt", 0},
		{"git: delete differs", gitGood + "diff --git a/dir/x.txt b/dir/x.txt\ndeleted file mode 100644\n--- a/dir/x.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-y\n", false, "dir/x.txt", 1},
		{"git: rename onto a file", gitGood + "diff --git a/dir/x.txt b/b.txt\nsimilarity index 100%\nrename from dir/x.txt\nrename to b.txt\n", false, "b.txt", 0},
		{"git: binary made from other content", gitGood + otherBinary, false, "bin", 0},
		{"git: binary without data", gitGood + noBinaryData, true, "", 0},
		{"git: malformed hunk", gitGood + "diff --git a/b.txt b/b.txt\n--- a/b.txt\n+++ b/b.txt\n@@ -1,5 +1,5 @@\n b line 1\n", true, "", 0},
		{"git: a link", gitGood + "diff --git a/l b/l\nnew file mode 120000\n--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+a.txt\n\\ No newline at end of file\n", true, "", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := tree(t, e.dir)
			s := e.session()
			ans, err := s.ToolPatch(e.ctx, []byte(c.patch))
			var pe *PatchError
			switch {
			case err == nil:
				t.Fatalf("applied: %+v", ans)
			case c.bad && !errors.Is(err, ErrBadInput):
				t.Fatalf("error %v, want bad input", err)
			case !c.bad && (!errors.As(err, &pe) || !errors.Is(err, ErrRefused)):
				t.Fatalf("error %v, want a refusal", err)
			case !c.bad && (pe.Path != c.path || pe.Hunk != c.hunk):
				t.Fatalf("refusal names %s hunk %d, want %s hunk %d: %v", pe.Path, pe.Hunk, c.path, c.hunk, err)
			}
			if !strings.Contains(err.Error(), "nothing was changed") && !c.bad {
				t.Fatalf("the refusal does not say nothing was changed: %v", err)
			}
			sameTree(t, "after the refusal", tree(t, e.dir), before)
			if k := e.kinds(s); k != "" {
				t.Fatalf("the journal holds %s", k)
			}
			if _, err := os.Stat(filepath.Join(os.TempDir(), "cairn-outside.txt")); err == nil {
				t.Fatal("a file was made outside the workspace")
			}
		})
	}
}

// TestToolPatchRequired: snapshots.required applies file by file: a patch
// that changes one required file while snapshots are off is refused whole.
func TestToolPatchRequired(t *testing.T) {
	e := newSnapEnv(t, `{"snapshots":{"enabled":false,"required":["secret/**"]}}`)
	e.put("a.txt", "a\n")
	e.put("secret/key", "k\n")
	old := tree(t, e.dir)
	s := e.session()
	_, err := s.ToolPatch(e.ctx, []byte("*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n*** Delete File: secret/key\n*** End Patch\n"))
	var re *RequiredError
	if !errors.As(err, &re) || len(re.Files) != 1 || re.Files[0].Path != "secret/key" {
		t.Fatalf("error %v, want secret/key required", err)
	}
	sameTree(t, "after the refusal", tree(t, e.dir), old)
	// Without the required file, the patch goes through, unsnapshotted.
	ans := must(s.ToolPatch(e.ctx, []byte("*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n*** End Patch\n")))(t)
	if ans.Snapshot != nil {
		t.Fatalf("a snapshot with snapshots off: %v", *ans.Snapshot)
	}
	e.want("a.txt", "A\n")
}

// TestToolPatchSameFileTwice: the envelope may name a file twice; each
// hunk sees what the one before it made, and one undo puts back the first
// content.
func TestToolPatchSameFileTwice(t *testing.T) {
	e := newSnapEnv(t, "")
	e.put("a.txt", "one\ntwo\n")
	s := e.session()
	ans := must(s.ToolPatch(e.ctx, []byte("*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n*** Update File: a.txt\n*** Move to: b.txt\n@@\n-two\n+TWO\n*** Add File: tmp.txt\n+x\n*** Delete File: tmp.txt\n*** End Patch\n")))(t)
	if len(ans.Files) != 2 {
		t.Fatalf("answer files %v", ans.Files)
	}
	e.want("a.txt", "<absent>")
	e.want("b.txt", "ONE\nTWO\n")
	e.want("tmp.txt", "<absent>")
	must(s.Undo(e.ctx))(t)
	e.want("a.txt", "one\ntwo\n")
	e.want("b.txt", "<absent>")
}

func must0(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
