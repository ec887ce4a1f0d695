package engine

import (
	"errors"
	"strings"
	"syscall"
	"testing"

	"cairn/internal/vfs"
)

// TestFileRevertRefusesWhenItCannotTell: a file revert whose interleaving
// check cannot read the other sessions' journals (the sessions folder, one
// of their changes journals) or whose budget check cannot read drops.jsonl
// refuses, names what it could not check, and changes nothing, preview and
// revert alike; with the fault gone the same revert finds the conflict.
func TestFileRevertRefusesWhenItCannotTell(t *testing.T) {
	for _, c := range []struct {
		name string
		rule func(other string) vfs.Rule
	}{
		{"sessions folder", func(string) vfs.Rule {
			return vfs.Rule{Op: vfs.OpReadDir, Path: "workspaces/*/sessions"}
		}},
		{"another session's journal", func(other string) vfs.Rule {
			return vfs.Rule{Op: vfs.OpOpen, Path: "workspaces/*/sessions/" + other + ".changes.jsonl"}
		}},
		{"another session's journal read", func(other string) vfs.Rule {
			return vfs.Rule{Op: vfs.OpRead, Path: "workspaces/*/sessions/" + other + ".changes.jsonl"}
		}},
		{"drops journal", func(string) vfs.Rule {
			return vfs.Rule{Op: vfs.OpOpen, Path: "workspaces/*/" + dropsFile}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newRvEnvWith(t, nil, true)
			p := e.prompt("go")
			e.write("", "a.txt", "a1")
			other := e.ws.Create(SessionOptions{})
			defer other.Close()
			must(other.Append(e.ctx, Item{Type: User, Text: "other"}))(t)
			must(other.ToolWrite(e.ctx, "a.txt", []byte("theirs")))(t)
			must(other.ToolWrite(e.ctx, "a.txt", []byte("a1")))(t)
			e.write("", "a.txt", "a2")

			r := c.rule(other.ID())
			r.Err = syscall.EIO
			e.faulty.Inject(r)
			for _, apply := range []bool{false, true} {
				var err error
				if apply {
					_, err = e.s.Revert(e.ctx, p.ID, RevertFiles)
				} else {
					_, err = e.s.PreviewRevert(e.ctx, p.ID, RevertFiles)
				}
				if !errors.Is(err, ErrRefused) || !errors.Is(err, syscall.EIO) || !strings.Contains(err.Error(), "cannot check") {
					t.Fatalf("apply %v: %v; want a refusal that cannot check", apply, err)
				}
			}
			e.faulty.Reset()
			e.want(map[string]string{"a.txt": "a2"})
			if _, err := e.s.Unrevert(e.ctx); !errors.Is(err, ErrRefused) {
				t.Fatalf("unrevert after a refused revert: %v; want nothing to unrevert", err)
			}
			_, err := e.s.Revert(e.ctx, p.ID, RevertFiles)
			if got := e.conflicts(err); len(got) != 1 || got[0] != "interleaved a.txt" {
				t.Fatalf("without the fault: %v (%v)", got, err)
			}
		})
	}
}
