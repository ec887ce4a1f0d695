package engine

import (
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestExecThroughLinkedFolderIsRecorded: a shell line whose literal paths
// pass through a link to a folder of the workspace records the files the
// link leads to, so a file revert puts them back: every writer of the
// literal list, a dangling link, ".." after a link, an absolute name
// through a link outside that leads back in, and a line that makes the
// link it writes through (the whole workspace).
func TestExecThroughLinkedFolderIsRecorded(t *testing.T) {
	for _, c := range []struct {
		line string
		want []string // names the record must hold
	}{
		{"rm lin/r.txt", []string{"real/r.txt"}},
		{"echo I > lin/r.txt", []string{"real/r.txt"}},
		{"echo J > lin/new.txt", []string{"real/new.txt"}},
		{"sed -i s/precious/X/ lin/r.txt", []string{"real/r.txt"}},
		{"touch lin/z", []string{"real/z"}},
		{"tee -a lin/r.txt < a.txt", []string{"real/r.txt"}},
		{"cp a.txt lin/", []string{"real/a.txt"}},
		{"cp -t lin a.txt", []string{"real/a.txt"}},
		{"mkdir lin/dd && echo k > lin/dd/k", []string{"real/dd/k"}},
		{"mv a.txt lin/moved.txt", []string{"a.txt", "real/moved.txt"}},
		{"mv a.txt lin", []string{"a.txt", "real/a.txt"}},
		{"echo d > dangling", []string{"real/later.txt"}},
		{"echo u > sublin/../up.txt", []string{"real/up.txt"}},
		{"echo o > OUT/wsl/real/o.txt", []string{"real/o.txt"}},
		{"ln -s real lk && echo x > lk/made.txt", []string{"lk", "real/made.txt"}},
	} {
		t.Run(c.line, func(t *testing.T) {
			e := newSnapEnv(t, "")
			e.put("real/r.txt", "precious\n")
			e.put("real/sub/s.txt", "s\n")
			e.put("a.txt", "a\n")
			noErr(t, os.Symlink("real", e.path("lin")))
			noErr(t, os.Symlink("real/sub", e.path("sublin")))
			noErr(t, os.Symlink("real/later.txt", e.path("dangling")))
			wsl := t.TempDir()
			noErr(t, os.Symlink(e.dir, filepath.Join(wsl, "wsl")))
			line := strings.ReplaceAll(c.line, "OUT", wsl)
			before := treeOf(t, e.dir)

			s := e.session()
			p := must(s.Append(e.ctx, Item{Type: User, Text: "through a link"}))(t)
			a := e.exec(s, line)
			if a.ExitCode != 0 || a.Unrecorded != "" {
				t.Fatalf("answer %+v", a)
			}
			var got []string
			for _, f := range a.Files {
				got = append(got, filepath.ToSlash(must(filepath.Rel(e.dir, f))(t)))
			}
			for _, w := range c.want {
				if !slices.Contains(got, w) {
					t.Fatalf("%q recorded %v; want %s among them", line, got, w)
				}
			}
			if maps.Equal(before, treeOf(t, e.dir)) {
				t.Fatalf("%q changed nothing: the case tests nothing", line)
			}
			must(s.Revert(e.ctx, p.ID, RevertFiles))(t)
			if after := treeOf(t, e.dir); !maps.Equal(before, after) {
				t.Fatalf("after the revert of %q: %v; want %v", line, after, before)
			}
		})
	}
}

// treeOf maps each regular file under dir to its content and each link to
// "-> " and its target (links are not followed).
func treeOf(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	noErr(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel := must(filepath.Rel(dir, p))(t)
		if d.Type()&fs.ModeSymlink != 0 {
			to, err := os.Readlink(p)
			out[rel] = "-> " + to
			return err
		}
		b, err := os.ReadFile(p)
		out[rel] = string(b)
		return err
	}))
	return out
}

// TestExecGitRunningAProgramIsRecorded: git status is read-only, unless the
// repository names a program git runs (here core.fsmonitor, planted by an
// earlier line): then what it changes is recorded and reverted.
func TestExecGitRunningAProgramIsRecorded(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is not installed")
	}
	e := newSnapEnv(t, "")
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	e.put("victim.txt", "v\n")
	e.sh("git init -q . && git add victim.txt && git -c user.email=a@b -c user.name=n commit -qm i")
	s := e.session()
	if a := e.exec(s, "git status --short"); a.Scope != ScopeNone {
		t.Fatalf("git status in a plain repository: %+v", a)
	}
	e.sh("git config core.fsmonitor 'echo planted >> " + e.path("victim.txt") + "; false'")
	p := must(s.Append(e.ctx, Item{Type: User, Text: "status"}))(t)
	a := e.exec(s, "git status --short")
	if a.Scope != scopeWorkspace || !slices.Contains(a.Files, e.path("victim.txt")) {
		t.Fatalf("git status running the fsmonitor: %+v (victim.txt %q)", a, e.get("victim.txt"))
	}
	must(s.Revert(e.ctx, p.ID, RevertFiles))(t)
	e.want("victim.txt", "v\n")
}
