package engine

import (
	"maps"
	"os"
	"strings"
	"testing"

	"cairn/internal/vfs"
)

// TestNonUTF8NamesRoundTrip: file names that are not valid UTF-8 are
// recorded as their bytes (base64 in the journal), so the records a shell
// line, a file tool and apply_patch make of them read back as the same
// names after a reopen: a file revert across them puts the files back
// instead of refusing over a file that does not exist, and undo works.
func TestNonUTF8NamesRoundTrip(t *testing.T) {
	e := newSnapEnv(t, "")
	bad, tool, patched := "bad\xff", "dir\xfe/x\xff.txt", "p\xc3(.txt"
	e.put(bad, "old\n")
	e.put(tool, "tool old\n")
	e.put("other.txt", "o\n")
	before := treeOf(t, e.dir)
	s := e.session()
	p := must(s.Append(e.ctx, Item{Type: User, Text: "names"}))(t)
	a := e.exec(s, `for f in bad* other.txt; do echo new > "$f"; done`)
	if len(a.Files) != 2 || !strings.HasSuffix(a.Files[0], "/"+bad) {
		t.Fatalf("the line recorded %q", a.Files)
	}
	must(s.ToolWrite(e.ctx, tool, []byte("tool new\n")))(t)
	must(s.ToolPatch(e.ctx, []byte("*** Begin Patch\n*** Add File: "+patched+"\n+made\n*** End Patch\n")))(t)
	if e.get(tool) != "tool new\n" || e.get(patched) != "made\n" {
		t.Fatalf("tools wrote %q %q", e.get(tool), e.get(patched))
	}
	journal := string(must(vfs.ReadFile(e.store.fsys, changesName(e.ws.dir, s.ID())))(t))
	if strings.Contains(journal, `\ufffd`) || !strings.Contains(journal, `{"base64":"YmFk/w=="}`) {
		t.Fatalf("the journal does not keep the names' bytes:\n%s", journal)
	}
	// Read back from the journal by a new owner: undo the patch, then
	// revert the rest.
	s = e.reopen(s)
	must(s.Undo(e.ctx))(t)
	if _, err := os.Lstat(e.path(patched)); !os.IsNotExist(err) {
		t.Fatalf("undo left %q: %v", patched, err)
	}
	must(s.PreviewRevert(e.ctx, p.ID, RevertFiles))(t)
	must(s.Revert(e.ctx, p.ID, RevertFiles))(t)
	if after := treeOf(t, e.dir); !maps.Equal(before, after) {
		t.Fatalf("after the revert: %q; want %q", after, before)
	}
	must(s.Unrevert(e.ctx))(t)
	if e.get(bad) != "new\n" || e.get(tool) != "tool new\n" {
		t.Fatalf("after the unrevert: %q %q", e.get(bad), e.get(tool))
	}
}
