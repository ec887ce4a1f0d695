package scope

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// ignoreTree is the conformance tree: .gitignore files (by folder) and the
// files around them.
var ignoreTree = struct {
	ignores map[string]string
	files   []string
}{
	ignores: map[string]string{
		"": "# a comment\n\n*.o\n!keep.o\n/top.txt\nlogs/\nfoo/**\n!foo/keep\n**/gen/*.go\ndocs/**/draft\n" +
			"\\#hash\n\\!bang\nsp\\ ace\\ \ntrail   \n[!x]*.tmp\n[[:digit:]]*.num\na**b\nbuild\n!build/keep.txt\n" +
			"deep/*/mid\n*.[ch]~\nweird[\n*.lit\n*\\*\n",
		"sub":       "/only-here\n*.log\n!keep.log\nnested/\n!*.o\n",
		"sub/inner": "!only-here\n*.txt\n!important.txt\n/anchored/\n",
		"docs":      "!*.md\n*.draft\n",
		"foo/keep":  "x\n",
	},
	files: []string{
		"a.o", "keep.o", "dir/keep.o", "dir/b.o", "top.txt", "dir/top.txt", "logs/today", "dir/logs/x",
		"logs.txt", "foo/bar", "foo/keep/k", "foo/keep/x", "foo/other/y", "gen/a.go", "x/gen/b.go", "x/y/gen/c.go",
		"x/gen/d.txt", "gen/sub/e.go", "docs/draft", "docs/a/b/draft", "docs/a/draft/z", "docs/readme.md", "docs/a.draft",
		"#hash", "dir/#hash", "!bang", "sp ace ", "sp ace", "trail", "trail   ", "a.tmp", "x.tmp", "xy.tmp",
		"1.num", "x.num", "ab", "axxb", "a/b", "azb/c", "build/keep.txt", "build/other", "deep/1/mid", "deep/1/2/mid",
		"deep/mid", "f.c~", "f.h~", "f.x~", "weird[", "sub/only-here", "sub/x/only-here", "only-here", "sub/a.log",
		"sub/keep.log", "sub/nested/n", "sub/x/nested/n", "sub/c.o", "sub/inner/only-here", "sub/inner/a.txt",
		"sub/inner/important.txt", "sub/inner/anchored/z", "sub/inner/q/anchored/z", "sub/inner/a.log", "sub/inner/keep.log",
		"plain/file", "plain/.hidden", ".lit", "x.lit", "d.lit/f", "x.lity", "lit", "star*", "no-star",
	},
}

// Ignore decisions equal real git's: every path of a tree with nested
// .gitignore files is covered by Walk exactly when
// `git -c core.excludesFile= check-ignore --no-index` says it is not
// ignored.
func TestIgnoreMatchesGit(t *testing.T) {
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Fatalf("this test needs git on PATH to compare with: %v", err)
	}
	root := t.TempDir()
	for _, f := range ignoreTree.files {
		writeFile(t, root, f, "x")
	}
	for dir, content := range ignoreTree.ignores {
		writeFile(t, root, filepath.Join(dir, ".gitignore"), content)
	}
	git := func(stdin string, args ...string) string {
		cmd := exec.Command(gitPath, args...)
		cmd.Dir = root
		cmd.Stdin = strings.NewReader(stdin)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+root)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || errb.Len() > 0 {
				t.Fatalf("git %v: %v: %s", args, err, errb.String())
			}
		}
		return out.String()
	}
	git("", "init", "-q")

	var all []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, p)
		if rel == "." {
			return nil
		}
		if rel == ".git" {
			return filepath.SkipDir
		}
		all = append(all, filepath.ToSlash(rel))
		return nil
	})
	out := git(strings.Join(all, "\x00")+"\x00", "-c", "core.excludesFile=", "check-ignore", "--no-index", "--stdin", "-z")
	gitIgnored := map[string]bool{}
	for _, p := range strings.Split(out, "\x00") {
		if p != "" {
			gitIgnored[p] = true
		}
	}
	if len(gitIgnored) < 20 {
		t.Fatalf("git ignores only %d paths: the tree does not exercise the rules", len(gitIgnored))
	}

	tree, err := Walk(context.Background(), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{}
	for _, e := range tree.Entries() {
		covered[e.Path] = true
	}
	var diffs []string
	for _, p := range all {
		if covered[p] == gitIgnored[p] {
			diffs = append(diffs, p+": git ignored="+boolWord(gitIgnored[p])+", walk covered="+boolWord(covered[p]))
		}
	}
	for p := range covered {
		if !slices.Contains(all, p) {
			diffs = append(diffs, p+": covered but not in the tree")
		}
	}
	if len(diffs) > 0 {
		slices.Sort(diffs)
		t.Fatalf("%d decisions differ from git:\n%s", len(diffs), strings.Join(diffs, "\n"))
	}
}

func boolWord(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func writeFile(t testing.TB, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// wildmatch cases from git's t3070-wildmatch that gitignore uses (with
// WM_PATHNAME).
func TestWildmatch(t *testing.T) {
	cases := []struct {
		pattern, text string
		want          bool
	}{
		{"foo", "foo", true}, {"foo", "bar", false}, {"???", "foo", true}, {"*", "foo", true},
		{"f*", "foo", true}, {"*f", "foo", false}, {"*foo*", "foo", true}, {"*ob*a*r*", "foobar", true},
		{"\\*", "*", true}, {"\\*", "x", false}, {"[!a]", "b", true}, {"[^a]", "a", false},
		{"[a-c]x", "bx", true}, {"[]]", "]", true}, {"[!]]", "a", true}, {"[[:digit:]]*", "1a", true},
		{"[[:alpha:]]", "1", false}, {"foo/*", "foo/bar", true}, {"foo/*", "foo/bar/baz", false},
		{"foo/**", "foo/bar/baz", true}, {"foo/**", "foo", false}, {"**/foo", "foo", true},
		{"**/foo", "a/b/foo", true}, {"a/**/b", "a/b", true}, {"a/**/b", "a/x/y/b", true},
		{"a**b", "axxb", true}, {"a**b", "a/b", false}, {"*.c", "a/b.c", false}, {"?", "/", false},
		{"[/]", "/", false}, {"weird[", "weird[", false}, {"ab\\", "ab\\", false},
		// Backtracking is cut (git's aborts): this would take ages without.
		{strings.Repeat("*a", 30) + "*b", strings.Repeat("a", 200), false},
		{strings.Repeat("**/a", 20) + "/b", strings.Repeat("a/", 100) + "c", false},
	}
	for _, c := range cases {
		if got := wildmatch(c.pattern, c.text); got != c.want {
			t.Errorf("wildmatch(%q, %q) = %v, want %v", c.pattern, c.text, got, c.want)
		}
	}
}

// A .gitignore that is a symbolic link is not read (git refuses one too).
func TestIgnoreFileLinkNotRead(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "rules", "*.txt\n")
	writeFile(t, root, "sub/a.txt", "a")
	if err := os.Symlink("../rules", filepath.Join(root, "sub/.gitignore")); err != nil {
		t.Fatal(err)
	}
	tr := mustWalk(t, root, Options{})
	if !slices.Contains(paths(tr), "sub/a.txt") {
		t.Fatalf("a linked .gitignore was applied: %v", paths(tr))
	}
}

// No .gitignore and no path panics the matcher.
func FuzzIgnore(f *testing.F) {
	f.Add("*.o\n!keep.o\n/a/**/b\n[!x]\n\\#x\nfoo/\n", "a/x/b")
	f.Add("[[:digit:]\n[a-\n\\", "1")
	f.Fuzz(func(t *testing.T, rules, p string) {
		ig := parseIgnore("", []byte(rules))
		ig.match(p, false)
		ig.match(p, true)
		wildmatch(rules, p)
	})
}
