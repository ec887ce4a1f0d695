package engine

import (
	"errors"
	"maps"
	"os"
	"strings"
	"testing"
)

// TestFileRevertRefusesFolderMadeALink: a recorded folder replaced by a
// symbolic link (by the reverted call itself, or by hand since; leading
// outside, to an absolute name inside, or to another folder inside) makes
// the preview, the revert and the unrevert a changed conflict that says
// so (ErrRefused, exit 3), never a failed read, and nothing changes on
// either side of the link.
func TestFileRevertRefusesFolderMadeALink(t *testing.T) {
	for _, c := range []struct {
		name string
		line string // the reverted call
		swap string // then, by hand ("" none): OUT is the outside folder, WS the workspace
	}{
		{"the call made it a link out", "rm -r d; F=OUT/od; ln -s $F d", ""},
		{"by hand, a link out", "F=changed; echo $F > d/x", "mv d d.bak && ln -s OUT/od d"},
		{"by hand, an absolute link inside", "F=changed; echo $F > d/x", "mv d d.bak && ln -s WS/d.bak d"},
		{"by hand, a relative link inside", "F=changed; echo $F > d/x", "mv d d.bak && ln -s d.bak d"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newSnapEnv(t, "")
			out := t.TempDir()
			e.put("d/x", "dx\n")
			noErr(t, os.MkdirAll(out+"/od", 0o755))
			noErr(t, os.WriteFile(out+"/od/x", []byte("outside\n"), 0o644))
			fill := func(s string) string { return strings.NewReplacer("OUT", out, "WS", e.dir).Replace(s) }
			s := e.session()
			p := must(s.Append(e.ctx, Item{Type: User, Text: "swap"}))(t)
			e.exec(s, fill(c.line))
			if c.swap != "" {
				e.sh(fill(c.swap))
			}
			inside, outside := treeOf(t, e.dir), treeOf(t, out)
			refused := func(what string, err error) {
				t.Helper()
				var ce *RevertConflictError
				if !errors.Is(err, ErrRefused) || !errors.As(err, &ce) {
					t.Fatalf("%s: %v; want a conflict", what, err)
				}
				found := false
				for _, cf := range ce.Files.Conflicts {
					found = found || cf.Kind == "changed" && strings.HasSuffix(cf.Path, "/d/x") && strings.Contains(cf.Detail, "d is a symbolic link now")
				}
				if !found {
					t.Fatalf("%s: conflicts %+v; want d/x changed, saying d is a link", what, ce.Files.Conflicts)
				}
				if a, b := treeOf(t, e.dir), treeOf(t, out); !maps.Equal(a, inside) || !maps.Equal(b, outside) {
					t.Fatalf("%s changed files: %v %v", what, a, b)
				}
			}
			_, err := s.PreviewRevert(e.ctx, p.ID, RevertFiles)
			refused("preview", err)
			_, err = s.Revert(e.ctx, p.ID, RevertFiles)
			refused("revert", err)
		})
	}
}

// TestUnrevertRefusesFolderMadeALink: after a revert put d/x back, d
// replaced by a link makes the unrevert a changed conflict.
func TestUnrevertRefusesFolderMadeALink(t *testing.T) {
	e := newSnapEnv(t, "")
	out := t.TempDir()
	e.put("d/x", "dx\n")
	noErr(t, os.WriteFile(out+"/x", []byte("outside\n"), 0o644))
	s := e.session()
	p := must(s.Append(e.ctx, Item{Type: User, Text: "change it"}))(t)
	e.exec(s, "F=changed; echo $F > d/x")
	must(s.Revert(e.ctx, p.ID, RevertFiles))(t)
	e.sh("mv d d.bak && ln -s " + out + " d")
	inside, outside := treeOf(t, e.dir), treeOf(t, out)
	_, err := s.Unrevert(e.ctx)
	var ce *RevertConflictError
	if !errors.As(err, &ce) || len(ce.Files.Conflicts) != 1 || !strings.Contains(ce.Files.Conflicts[0].Detail, "d is a symbolic link now") {
		t.Fatalf("unrevert with a link where the folder was: %v", err)
	}
	if a, b := treeOf(t, e.dir), treeOf(t, out); !maps.Equal(a, inside) || !maps.Equal(b, outside) {
		t.Fatalf("the refused unrevert changed files: %v %v", a, b)
	}
}

// TestUndoDoesNotWriteThroughFolderLink: the one applier of undo, redo and
// revert never writes below a folder that is a link: an undo after d was
// replaced by a link to another folder leaves both folders as they are and
// refuses, naming the file it could not put back and why.
func TestUndoDoesNotWriteThroughFolderLink(t *testing.T) {
	e := newSnapEnv(t, "")
	e.put("d/x", "dx\n")
	s := e.session()
	must(s.ToolWrite(e.ctx, "d/x", []byte("new\n")))(t)
	e.sh("mv d d.bak && mkdir other && echo other > other/x && ln -s other d")
	before := treeOf(t, e.dir)
	res, err := s.Undo(e.ctx)
	if after := treeOf(t, e.dir); !maps.Equal(before, after) {
		t.Fatalf("the undo wrote through the link: %v -> %v (%+v, %v)", before, after, res, err)
	}
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "d/x (it could not be written: d is a symbolic link") {
		t.Fatalf("undo %+v, %v: want a refusal naming d/x and the link", res, err)
	}
}
