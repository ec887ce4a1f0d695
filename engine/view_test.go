package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cairn/engine/wskey"
)

// TestWorkspacesVerifiesFolders: Workspaces lists a folder only for the path
// it belongs to, as the command line would find it, and names the others
// with their sessions.
func TestWorkspacesVerifiesFolders(t *testing.T) {
	ctx := context.Background()
	s, ws := testStore(t)
	other, err := s.Workspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, w := range []*Workspace{ws, other} {
		sess := w.Create(SessionOptions{})
		if _, err := sess.Append(ctx, Item{Type: User, Text: "hi"}); err != nil {
			t.Fatal(err)
		}
		if err := sess.Close(); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, sess.ID())
	}
	list, problems, err := s.Workspaces()
	if err != nil || len(list) != 2 || len(problems) != 0 {
		t.Fatalf("whole store: %d workspaces, problems %v, %v", len(list), problems, err)
	}

	// ws's workspace.json now names other's directory.
	info := filepath.Join(ws.Folder(), wskey.InfoFile)
	if err := os.WriteFile(info, []byte(`{"v":1,"path":"`+other.Path()+`","created_at":"2026-01-01T00:00:00.000Z"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	list, problems, err = s.Workspaces()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].Path() != other.Path() || list[0].Key() != other.Key() {
		t.Fatalf("listed %v", list)
	}
	if len(problems) != 1 || problems[0].Name != "workspaces/"+ws.Key() || !errors.Is(problems[0].Err, wskey.ErrNotItsFolder) ||
		len(problems[0].Sessions) != 1 || problems[0].Sessions[0] != ids[0] {
		t.Fatalf("problems %+v", problems)
	}
}

// TestWorkspacesPathNowALink: a workspace whose directory was replaced by a
// link is not used from its old folder (the command line, which resolves
// links, would use the target's); a directory that is gone still lists.
func TestWorkspacesPathNowALink(t *testing.T) {
	ctx := context.Background()
	s, ws := testStore(t)
	sess := ws.Create(SessionOptions{})
	if _, err := sess.Append(ctx, Item{Type: User, Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	moved := filepath.Join(t.TempDir(), "moved")
	if err := os.Rename(ws.Path(), moved); err != nil {
		t.Fatal(err)
	}
	// Gone: still listed.
	list, problems, err := s.Workspaces()
	if err != nil || len(list) != 1 || len(problems) != 0 || list[0].Path() != ws.Path() {
		t.Fatalf("directory gone: %v %v %v", list, problems, err)
	}
	// A link in its place: passed over, and the problem says where it leads.
	if err := os.Symlink(moved, ws.Path()); err != nil {
		t.Fatal(err)
	}
	list, problems, err = s.Workspaces()
	if err != nil || len(list) != 0 || len(problems) != 1 || !errors.Is(problems[0].Err, wskey.ErrNotItsFolder) ||
		!strings.Contains(problems[0].Err.Error(), moved) || len(problems[0].Sessions) != 1 {
		t.Fatalf("directory now a link: %v %+v %v", list, problems, err)
	}
}
