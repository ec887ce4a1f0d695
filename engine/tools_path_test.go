package engine

import (
	"context"
	"errors"
	"maps"
	"os"
	"strings"
	"testing"
)

// bg is the context of the tool calls of these tests.
var bg = context.Background()

// TestFileToolsRefuseVCSFolders: write, edit, rm and apply_patch (both
// shapes, a move into one too) refuse every name inside a repository's
// .git, .jj or .hg folder, a nested one and another case included, say
// why, and change nothing; names that only look alike are written; with
// tools.write_vcs_folders the same calls go through.
func TestFileToolsRefuseVCSFolders(t *testing.T) {
	hook := "diff --git a/.git/hooks/pre-commit b/.git/hooks/pre-commit\nnew file mode 100755\n--- /dev/null\n+++ b/.git/hooks/pre-commit\n@@ -0,0 +1,2 @@\n+#!/bin/sh\n+echo ran\n"
	fsmonitor := "*** Begin Patch\n*** Update File: .git/config\n@@\n [core]\n+\tfsmonitor = touch pwned\n*** End Patch\n"
	moveIn := "*** Begin Patch\n*** Update File: a.txt\n*** Move to: sub/.git/hooks/post-checkout\n@@\n-a\n+b\n*** End Patch\n"
	calls := []struct {
		what string
		run  func(s *Session) (*ToolAnswer, error)
	}{
		{"write a hook", func(s *Session) (*ToolAnswer, error) {
			return s.ToolWrite(bg, ".git/hooks/post-merge", []byte("#!/bin/sh\n"))
		}},
		{"edit the config", func(s *Session) (*ToolAnswer, error) {
			return s.ToolEdit(bg, ".git/config", "[core]", "[core]\n\tfsmonitor = touch pwned")
		}},
		{"rm the index", func(s *Session) (*ToolAnswer, error) { return s.ToolRm(bg, ".git/index") }},
		{"write another case", func(s *Session) (*ToolAnswer, error) { return s.ToolWrite(bg, ".GIT/hooks/x", []byte("x")) }},
		{"write a nested repository's", func(s *Session) (*ToolAnswer, error) { return s.ToolWrite(bg, "sub/.git/config", []byte("x")) }},
		{"write .jj", func(s *Session) (*ToolAnswer, error) { return s.ToolWrite(bg, ".jj/repo/config.toml", []byte("x")) }},
		{"write .hg", func(s *Session) (*ToolAnswer, error) { return s.ToolWrite(bg, ".hg/hgrc", []byte("x")) }},
		{"a git diff adding a hook", func(s *Session) (*ToolAnswer, error) { return s.ToolPatch(bg, []byte(hook)) }},
		{"an envelope updating the config", func(s *Session) (*ToolAnswer, error) { return s.ToolPatch(bg, []byte(fsmonitor)) }},
		{"an envelope moving a file in", func(s *Session) (*ToolAnswer, error) { return s.ToolPatch(bg, []byte(moveIn)) }},
	}
	setup := func(t *testing.T, config string) *snapEnv {
		e := newSnapEnv(t, config)
		e.put(".git/config", "[core]\n")
		e.put(".git/index", "index")
		e.put("sub/.git/config", "[core]\n")
		e.put("a.txt", "a\n")
		return e
	}
	e := setup(t, "")
	s := e.session()
	before := treeOf(t, e.dir)
	for _, c := range calls {
		a, err := c.run(s)
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "tools.write_vcs_folders") {
			t.Fatalf("%s: %+v, %v; want a refusal naming the setting", c.what, a, err)
		}
		if after := treeOf(t, e.dir); !maps.Equal(before, after) {
			t.Fatalf("%s: the refused call changed files: %v", c.what, after)
		}
	}
	// Names that only look alike are not version control folders.
	for _, name := range []string{".gitignore", ".github/workflows/ci.yml", "docs/.git-notes", "x.hg"} {
		if _, err := s.ToolWrite(bg, name, []byte("ok")); err != nil {
			t.Fatalf("write %s: %v", name, err)
		}
	}

	// Allowed by config.json: every call goes through.
	e = setup(t, `{"tools": {"write_vcs_folders": true}}`)
	s = e.session()
	for _, c := range calls {
		if _, err := c.run(s); err != nil {
			t.Fatalf("%s with tools.write_vcs_folders: %v", c.what, err)
		}
	}
	if e.get(".git/hooks/pre-commit") != "#!/bin/sh\necho ran\n" || !strings.Contains(e.get(".git/config"), "fsmonitor = touch pwned") {
		t.Fatalf("allowed writes not made: %q %q", e.get(".git/hooks/pre-commit"), e.get(".git/config"))
	}
}

// TestFileToolsRefuseFolderLinks: write, edit, rm and apply_patch refuse a
// name below a link to a folder of the workspace, as they refuse a name
// that is a link: no link is followed, and nothing changes.
func TestFileToolsRefuseFolderLinks(t *testing.T) {
	e := newSnapEnv(t, "")
	e.put("real/r.txt", "r\n")
	noErr(t, os.Symlink("real", e.path("lin")))
	noErr(t, os.Symlink("lin", e.path("chain")))
	s := e.session()
	before := treeOf(t, e.dir)
	for _, c := range []struct {
		what string
		run  func() (*ToolAnswer, error)
	}{
		{"write", func() (*ToolAnswer, error) { return s.ToolWrite(bg, "lin/w.txt", []byte("w")) }},
		{"write below a chain of links", func() (*ToolAnswer, error) { return s.ToolWrite(bg, "chain/w.txt", []byte("w")) }},
		{"edit", func() (*ToolAnswer, error) { return s.ToolEdit(bg, "lin/r.txt", "r", "R") }},
		{"rm", func() (*ToolAnswer, error) { return s.ToolRm(bg, "lin/r.txt") }},
		{"add a file", func() (*ToolAnswer, error) {
			return s.ToolPatch(bg, []byte("*** Begin Patch\n*** Add File: lin/in.txt\n+x\n*** End Patch\n"))
		}},
		{"update a file", func() (*ToolAnswer, error) {
			return s.ToolPatch(bg, []byte("*** Begin Patch\n*** Update File: lin/r.txt\n@@\n-r\n+R\n*** End Patch\n"))
		}},
		{"a git diff", func() (*ToolAnswer, error) {
			return s.ToolPatch(bg, []byte("diff --git a/lin/r.txt b/lin/r.txt\n--- a/lin/r.txt\n+++ b/lin/r.txt\n@@ -1 +1 @@\n-r\n+R\n"))
		}},
	} {
		a, err := c.run()
		if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "is a symbolic link") {
			t.Fatalf("%s through a folder link: %+v, %v", c.what, a, err)
		}
		if after := treeOf(t, e.dir); !maps.Equal(before, after) {
			t.Fatalf("%s: the refused call changed files: %v", c.what, after)
		}
	}
	// The folder itself, by its own name, is written as before.
	must(s.ToolWrite(bg, "real/w.txt", []byte("w")))(t)
	e.want("real/w.txt", "w")
}
