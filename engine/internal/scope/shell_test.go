package scope

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const testRoot = "/work/ws"

// TestParse holds one case per rule of the seed's table and the package doc.
func TestParse(t *testing.T) {
	ro := func() Scope { return Scope{Kind: ReadOnly} }
	ps := func(p ...string) Scope { return Scope{Kind: Paths, Paths: p} }
	ws := func(why string) Scope { return Scope{Kind: Workspace, Why: why} }
	cases := []struct {
		rule, line string
		want       Scope
	}{
		{"empty line", "", ro()},
		{"comment only", "# nothing", ro()},
		{"read-only git status", "git status --short", ro()},
		{"read-only git log", "git log --oneline -5", ro()},
		{"read-only git diff", "git diff HEAD~1 -- a.go", ro()},
		{"read-only rg", "rg -n 'func main' .", ro()},
		{"read-only ls", "ls -la src", ro()},
		{"read-only cat", "cat README.md", ro()},
		{"read-only grep", "grep -rn TODO engine", ro()},
		{"read-only find", "find . -name x.go -type f", ro()},
		{"read-only echo", "echo hello", ro()},
		{"read-only pwd and which", "pwd; which go", ro()},
		{"read-only env alone", "env", ro()},
		{"read-only pipeline", "git log | head -20 | wc -l", ro()},
		{"read-only list", "ls && cat a || true", ro()},
		{"read-only subshell and block", "(ls); { pwd; }", ro()},
		{"read-only fd redirects", "ls 2>&1 >&2", ro()},
		{"read-only input redirect", "wc -l < a.txt", ro()},
		{"redirect to /dev/null is outside", "grep x a 2>/dev/null", ps()},
		{"echo with redirect", "echo hi > out.txt", ps("out.txt")},
		{"append redirect", "echo hi >> logs/a.log", ps("logs/a.log")},
		{"redirect of both streams", "make &> build.log", ws("program make")},
		{"redirect both to a path", "ls &> list.txt", ps("list.txt")},
		{"redirect quoted path", `cat a > "my file.txt"`, ps("my file.txt")},
		{"rm literal paths", "rm -rf build dist/x.o", ps("build", "dist/x.o")},
		{"rm after --", "rm -- -weird", ps("-weird")},
		{"mkdir -p", "mkdir -p a/b/c", ps("a/b/c")},
		{"mkdir -m mode", "mkdir -m 755 bin", ps("bin")},
		{"touch", "touch a b", ps("a", "b")},
		{"touch -r reads a reference", "touch -r ref.txt new.txt", ps("new.txt")},
		{"tee", "ls | tee -a out.txt", ps("out.txt")},
		{"mv records sources and destination", "mv a.txt b.txt", ps("a.txt", "b.txt")},
		{"mv into a folder records it whole", "mv a b dir", ps("a", "b", "dir")},
		{"mv -t", "mv -t dir a", ps("a", "dir")},
		{"cp records the destination only", "cp -r src dst", ps("dst")},
		{"cp into a folder", "cp a b dir/", ps("dir")},
		{"cp --target-directory", "cp --target-directory=out a b", ps("out")},
		{"ln destination only", "ln -sf ../x link", ps("link")},
		{"ln one operand", "ln -s /opt/tool/bin/tool", ps("tool")},
		{"sed -i", "sed -i 's/a/b/' x.go y.go", ps("x.go", "y.go")},
		{"sed -i with -e", "sed -i -e s/a/b/ x.go", ps("x.go")},
		{"sed -i with a backup suffix", "sed -i.bak s/a/b/ x.go", ps("x.go", "x.go.bak")},
		{"sed without -i is a program", "sed s/a/b/ x.go", ws("program sed")},
		{"absolute path inside", "rm /work/ws/a/b", ps("a/b")},
		{"absolute path outside is dropped", "rm /tmp/x a", ps("a")},
		{"climbing out is dropped", "touch ../x sub/../y", ps("y")},
		{"read-only plus writes", "git status && touch a", ps("a")},
		{"glob", "rm *.o", ws("glob")},
		{"glob in a redirect", "ls > *.txt", ws("expansion")},
		{"brace", "touch a{1,2}", ws("brace")},
		{"tilde", "rm ~/x", ws("tilde")},
		{"variable", "rm $X", ws("expansion")},
		{"parameter in quotes", `rm "${X}"`, ws("expansion")},
		{"command substitution", "rm $(ls)", ws("expansion")},
		{"process substitution", "diff <(ls) b", ws("expansion")},
		{"heredoc", "cat <<EOF > a\nx\nEOF", ws("heredoc")},
		{"here-string", "cat <<< x", ws("heredoc")},
		{"assignment", "X=1 ls", ws("assignment")},
		{"unlisted option", "rm --preserve-root=all x", ws("option rm --preserve-root=all")},
		{"unlisted short option", "cp -b a b", ws("option cp -b")},
		{"other program", "make test", ws("program make")},
		{"other program in a pipeline", "ls | xargs rm", ws("program xargs")},
		{"git writing subcommand", "git checkout main", ws("program git")},
		{"git option before subcommand", "git -c x=y status", ws("program git")},
		{"git --output", "git diff --output=d.txt", ws("option git --output=d.txt")},
		{"find -delete", "find . -name '*.o' -delete", ws("option find -delete")},
		{"find -exec", "find . -exec rm x ';'", ws("option find -exec")},
		{"sort -o", "sort -o out in", ws("option sort -o")},
		{"rg --pre", "rg --pre cat x", ws("option rg --pre")},
		{"env with a program", "env FOO=1 make", ws("program env")},
		{"cd", "cd sub && rm a", ws("cd")},
		{"control structure", "for f in a b; do rm $f; done", ws("compound command")},
		{"background", "touch a &", ws("background")},
		{"parse failure", "rm 'a", ws("parse")},
		{"workspace root itself", "rm -rf .", ws("workspace root")},
		{"escaped characters", `rm a\ b`, ws("escape")},
		{"ansi-c quoting", `rm $'a'`, ws("expansion")},
		{"single quotes are literal", `rm 'a b'`, ps("a b")},

		// sed scripts that write other files or run commands.
		{"sed w command", "sed -i 's/a/A/w sedw.txt' a.txt", ws("sed script flag s///w")},
		{"sed e command", "sed -i '1e touch evil.txt' a.txt", ws("sed script command e")},
		{"sed W in a second -e", "sed -i -e 's/a/b/' -e 'W w2.txt' a.txt", ws("sed script command W")},
		{"sed w after an address", "sed -i '/x/w out' a.txt", ws("sed script command w")},
		{"sed w in a block", "sed -i '/x/{s/a/b/;w out\n}' a.txt", ws("sed script command w")},
		{"sed s///e", "sed -i 's/.*/date/e' a.txt", ws("sed script flag s///e")},
		{"sed --expression=w", "sed -i --expression='$w x' a.txt", ws("sed script command w")},
		{"sed script file", "sed -i -f script.sed a.txt", ws("option sed -f")},
		{"sed script it cannot read", "sed -i 's/a' a.txt", ws("sed script unread")},
		{"sed sandbox refuses w", "sed -i --sandbox 's/a/b/w x' a.txt", ps("a.txt")},
		{"sed s with w in its parts", "sed -i 's/w/e/g;s|/w|/e|2' a.txt", ps("a.txt")},
		{"sed y, append, labels", "sed -i -e 'y/abc/xyz/;:top' -e '$a wide' -e '/x/b top' a.txt", ps("a.txt")},
		{"sed read a file", "sed -i '/x/r other.txt' a.txt", ps("a.txt")},
		{"sed --follow-symlinks", "sed -i --follow-symlinks s/a/b/ a.txt", ps("a.txt")},

		// The other ways a command of the lists writes elsewhere.
		{"tee -a", "ls | tee -a log.txt", ps("log.txt")},
		{"cp -t", "cp -t dir a b", ps("dir")},
		{"install", "install -m 755 a bin/a", ws("program install")},
		{"tar -C", "tar -C out -xf a.tar", ws("program tar")},
		{"dd of=", "dd if=a of=b", ws("program dd")},
		{"git -C", "git -C sub status", ws("program git")},
		{"find -fprint", "find . -fprint list.txt", ws("option find -fprint")},
		{"sort -o grouped", "sort -uo out in", ws("option sort -uo")},
		{"sort --compress-program", "sort --compress-program=gzip in", ws("option sort --compress-program=gzip")},
		{"file -C compiles a magic file", "file -C -m magic", ws("option file -C")},
		{"file -bC", "file -bC -m magic", ws("option file -bC")},
		{"git grep -O runs a pager", "git grep -Ovim main", ws("option git grep -Ovim")},
		{"git grep --open-files-in-pager", "git grep --open-files-in-pager=vi x", ws("option git grep --open-files-in-pager=vi")},
		{"git diff -O reads an order file", "git diff -Oorder.txt", ro()},
		{"env -S runs a program", "env -S'touch x'", ws("option env -Stouch x")},
		{"tree -R writes 00Tree.html", "tree -R -H . src", ws("option tree -R")},

		// A name under one ln, cp or mv writes may pass a link the line makes.
		{"a link the line makes", "ln -s real lk && echo x > lk/y", ws("link")},
		{"a folder cp makes", "cp -r src dst; touch dst/new", ws("link")},
		{"a folder mv moves", "mv lk d && rm d/x", ws("link")},
		{"mkdir then write is followed", "mkdir -p d && echo x > d/y", ps("d", "d/y")},
		{"ln last is followed", "touch a && ln -s a b", ps("a", "b")},
	}
	for _, c := range cases {
		got := Parse(c.line, Env{Root: testRoot})
		if got.Kind != c.want.Kind || !slices.Equal(got.Paths, c.want.Paths) && (len(got.Paths)+len(c.want.Paths) > 0) ||
			c.want.Why != "" && got.Why != c.want.Why {
			t.Errorf("%s: Parse(%q) = %+v, want %+v", c.rule, c.line, got, c.want)
		}
	}
}

// FuzzParse: no line panics, and every answer is well formed: a Paths scope
// names only clean paths inside the workspace, a Workspace scope says why.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"rm -rf a b", "cp a b dir", "echo x > y", "sed -i.bak s/a/b/ f", "mv -t d a",
		"ln -s x", "cat <<E\nE", "a=1; rm $a", "git log | head", "rm ../../x /work/ws/y", "touch -d", "cp -t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		s := Parse(line, Env{Root: testRoot})
		switch s.Kind {
		case ReadOnly:
			if len(s.Paths) > 0 {
				t.Fatalf("read-only with paths: %+v", s)
			}
		case Paths:
			for _, p := range s.Paths {
				if p == "" || p == "." || p == ".." || strings.HasPrefix(p, "../") || strings.HasPrefix(p, "/") {
					t.Fatalf("path %q of %q is not inside the workspace", p, line)
				}
			}
		case Workspace:
			if s.Why == "" {
				t.Fatalf("workspace without a reason: %q", line)
			}
		default:
			t.Fatalf("kind %d", s.Kind)
		}
	})
}

// TestParseDir: relative names are taken from the folder the line runs in
// (Env.Dir), which an agent's shell may have cd'ed into; names that lead
// out of the workspace from there are dropped.
func TestParseDir(t *testing.T) {
	cases := []struct {
		dir, line string
		want      []string
	}{
		{testRoot + "/sub", "rm a.txt", []string{"sub/a.txt"}},
		{testRoot + "/sub", "touch ../b /work/ws/c", []string{"b", "c"}},
		{"/elsewhere", "rm a.txt", nil},
		{"", "rm a.txt", []string{"a.txt"}},
	}
	for _, c := range cases {
		got := Parse(c.line, Env{Root: testRoot, Dir: c.dir})
		if got.Kind != Paths || !slices.Equal(got.Paths, c.want) {
			t.Errorf("Parse(%q) in %s = %+v, want paths %v", c.line, c.dir, got, c.want)
		}
	}
}

// TestResolve: names are followed through the links they pass, as the
// system will open them: the entry a name makes or removes, and the file a
// write through a final link changes; names leading outside are left out;
// a loop of links or a name reaching the root is the whole workspace.
func TestResolve(t *testing.T) {
	root := t.TempDir()
	out := t.TempDir()
	mk := func(rel string) {
		if err := os.MkdirAll(filepath.Join(root, rel), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ln := func(target, rel string) {
		if err := os.Symlink(target, filepath.Join(root, rel)); err != nil {
			t.Fatal(err)
		}
	}
	mk("real/sub")
	ln("real", "lin")
	ln(root+"/real/sub", "abs")
	ln("lin/sub", "chain")
	ln(out, "away")
	ln("loop2", "loop1")
	ln("loop1", "loop2")
	ln("..", "real/up")
	ln("real/nothing-yet.txt", "dangling")
	ln(root, filepath.Join("..", filepath.Base(out), "back")) // out/back -> root
	cases := []struct {
		line string
		want Scope
	}{
		{"rm lin/r.txt", Scope{Kind: Paths, Paths: []string{"lin/r.txt", "real/r.txt"}}},
		{"echo x > lin", Scope{Kind: Paths, Paths: []string{"lin", "real"}}},
		{"rm -r lin/", Scope{Kind: Paths, Paths: []string{"lin", "real"}}},
		{"touch chain/x", Scope{Kind: Paths, Paths: []string{"chain/x", "real/sub/x"}}},
		{"touch abs/x", Scope{Kind: Paths, Paths: []string{"abs/x", "real/sub/x"}}},
		{"echo x > dangling", Scope{Kind: Paths, Paths: []string{"dangling", "real/nothing-yet.txt"}}},
		{"touch lin/../top", Scope{Kind: Paths, Paths: []string{"top"}}},
		{"touch real/sub/../../lin/x", Scope{Kind: Paths, Paths: []string{"lin/x", "real/x"}}},
		{"touch lin/missing/deeper/x", Scope{Kind: Paths, Paths: []string{"lin/missing/deeper/x", "real/missing/deeper/x"}}},
		{"touch away/x", Scope{Kind: Paths, Paths: []string{"away/x"}}},
		{"touch " + out + "/back/real/b", Scope{Kind: Paths, Paths: []string{"real/b"}}},
		{"touch loop1/x", Scope{Kind: Workspace, Why: "link"}},
		{"rm -r real/up/", Scope{Kind: Workspace, Why: "workspace root"}},
	}
	for _, c := range cases {
		got := Resolve(Parse(c.line, Env{Root: root}), root)
		if got.Kind != c.want.Kind || got.Why != c.want.Why || !slices.Equal(got.Paths, c.want.Paths) {
			t.Errorf("Resolve(%q) = %+v, want %+v", c.line, got, c.want)
		}
	}
	// Other kinds pass as they are.
	if got := Resolve(Scope{Kind: Workspace, Why: "glob"}, root); got.Why != "glob" {
		t.Fatalf("workspace scope: %+v", got)
	}
}

// TestGitRunsPrograms: the repository's own config keys and hooks that make
// git's read-only commands run a program are found, in the repository a
// folder is in, a worktree's common folder included; booleans and other
// keys are not.
func TestGitRunsPrograms(t *testing.T) {
	write := func(p, s string, mode os.FileMode) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), mode); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ config, want string }{
		{"[core]\n\tbare = false\n\tfsmonitor = true\n", ""},
		{"[core]\n\tfsmonitor = touch /tmp/x\n", "core.fsmonitor"},
		{"[Core]\n\tFSMonitor=.git/hooks/fsmonitor-watchman\n", "core.fsmonitor"},
		{"[diff \"pdf\"]\n\ttextconv = pdftotext\n", "diff.pdf.textconv"},
		{"[diff]\n\texternal = difft\n", "diff.external"},
		{"[filter \"lfs\"]\n\tclean = git-lfs clean -- %f\n", "filter.lfs.clean"},
		{"[include]\n\tpath = other.cfg\n", "include.path"},
		{"[remote \"origin\"]\n\turl = x\n[branch \"main\"]\n\tremote = origin\n", ""},
	} {
		root := t.TempDir()
		write(filepath.Join(root, ".git", "config"), c.config, 0o644)
		if err := os.MkdirAll(filepath.Join(root, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
		if got := GitRunsPrograms(filepath.Join(root, "sub")); got != c.want {
			t.Errorf("config %q: %q, want %q", c.config, got, c.want)
		}
	}
	// A hook run when status refreshes the index, through a worktree's
	// common folder; no repository at all.
	main := t.TempDir()
	write(filepath.Join(main, ".git", "config"), "[core]\n", 0o644)
	write(filepath.Join(main, ".git", "hooks", "post-index-change"), "#!/bin/sh\n", 0o755)
	wt := t.TempDir()
	write(filepath.Join(main, ".git", "worktrees", "wt", "commondir"), "../..\n", 0o644)
	write(filepath.Join(wt, ".git"), "gitdir: "+filepath.Join(main, ".git", "worktrees", "wt")+"\n", 0o644)
	if got := GitRunsPrograms(wt); got != "hooks/post-index-change" {
		t.Errorf("worktree: %q", got)
	}
	if got := GitRunsPrograms("/"); got != "" {
		t.Errorf("no repository: %q", got)
	}
}
