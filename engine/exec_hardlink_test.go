package engine

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestExecThroughHardLinkIsRecorded: a literal-path line writing through
// a name of a file with other names (a hard link) changes them all; its
// record covers the whole workspace as well as the named paths, so every
// name is recorded as the file it is, an ignored named one too, and a
// revert puts each back (as a file of its own).
func TestExecThroughHardLinkIsRecorded(t *testing.T) {
	for _, c := range []struct {
		name, line string
		names      []string // the names of the linked file
	}{
		{"append through the second name", "echo more >> h.txt", []string{"a.txt", "h.txt"}},
		{"cp writes in place", "cp new.txt h.txt", []string{"a.txt", "h.txt"}},
		{"an ignored name", "echo more >> build/h.txt", []string{"src/a.txt", "build/h.txt"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newSnapEnv(t, "")
			e.put(".gitignore", "build/\n")
			e.put("new.txt", "new\n")
			e.put(c.names[0], "a\n")
			noErr(t, os.MkdirAll(filepath.Dir(e.path(c.names[1])), 0o755))
			noErr(t, os.Link(e.path(c.names[0]), e.path(c.names[1])))
			before := treeOf(t, e.dir)
			s := e.session()
			p := must(s.Append(e.ctx, Item{Type: User, Text: "hard links"}))(t)
			a := e.exec(s, c.line)
			if a.Scope != scopeWorkspace || a.Unrecorded != "" {
				t.Fatalf("answer %+v", a)
			}
			for _, n := range c.names {
				if !slices.Contains(a.Files, e.path(n)) {
					t.Fatalf("recorded %v; want %s among them", a.Files, n)
				}
			}
			if maps.Equal(before, treeOf(t, e.dir)) {
				t.Fatal("the line changed nothing")
			}
			must(s.Revert(e.ctx, p.ID, RevertFiles))(t)
			if after := treeOf(t, e.dir); !maps.Equal(before, after) {
				t.Fatalf("after the revert: %v; want %v", after, before)
			}
		})
	}
}

// TestPendingExecThroughHardLink: under an agent's hooks too, a named hard
// link takes the whole workspace: the marker says so, and the record made
// by the post-tool hook names both names.
func TestPendingExecThroughHardLink(t *testing.T) {
	e := newSnapEnv(t, "")
	a := AgentSession{Agent: "claude-code", ID: "bash-hl"}
	e.put("a.txt", "a\n")
	noErr(t, os.Link(e.path("a.txt"), e.path("h.txt")))
	e.hookPair(a, func(s *Session) { must(s.Append(e.ctx, Item{Type: User, Text: "run"}))(t) })
	var p *PendingExec
	e.hookPair(a, func(s *Session) {
		p = must(s.BeginExec(e.ctx, "bash", "toolu_hl", "echo more >> h.txt", ""))(t)
	})
	if p.Scope != scopeWorkspace || strings.Join(p.Paths, " ") != "h.txt" {
		t.Fatalf("pending %+v", p)
	}
	e.sh("echo more >> h.txt")
	e.hookPair(a, func(s *Session) {
		ans := must(s.SettleChange(e.ctx, "toolu_hl"))(t)
		if ans == nil || !slices.Contains(ans.Files, e.path("a.txt")) || !slices.Contains(ans.Files, e.path("h.txt")) {
			t.Fatalf("answer %+v", ans)
		}
	})
}

// TestFileToolReplacesAHardLinkedName: the file tools replace the file a
// name holds (a new file, renamed over it), so a write through one name
// of a hard-linked file changes that name only; the record says just
// that, and undo puts its content back.
func TestFileToolReplacesAHardLinkedName(t *testing.T) {
	e := newSnapEnv(t, "")
	e.put("a.txt", "a\n")
	noErr(t, os.Link(e.path("a.txt"), e.path("h.txt")))
	s := e.session()
	ans := must(s.ToolWrite(e.ctx, "h.txt", []byte("new\n")))(t)
	if len(ans.Files) != 1 || ans.Files[0] != e.path("h.txt") {
		t.Fatalf("answer %+v", ans)
	}
	e.want("h.txt", "new\n")
	e.want("a.txt", "a\n")
	must(s.Undo(e.ctx))(t)
	e.want("h.txt", "a\n")
	e.want("a.txt", "a\n")
}
