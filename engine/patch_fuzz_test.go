package engine

import (
	"context"
	"errors"
	"maps"
	"testing"

	"cairn/internal/vfs"
)

// FuzzToolPatch: whatever the patch, apply_patch changes every file it
// names or none. Refused, the files are as they were and no change is
// listed; applied, one undo puts every file back.
func FuzzToolPatch(f *testing.F) {
	f.Add([]byte("*** Begin Patch\n*** Update File: a.txt\n@@\n-a2\n+A2\n*** Delete File: b.txt\n*** Add File: n/c.txt\n+c\n*** End Patch\n"))
	f.Add([]byte("*** Begin Patch\n*** Update File: a.txt\n*** Move to: b.txt\n@@ a1\n-a2\n+x\n*** End of File\n*** End Patch\n"))
	f.Add([]byte("*** Begin Patch\n*** Update File: a.txt\n@@\n-nope\n+x\n*** End Patch\n"))
	f.Add([]byte("diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n a1\n-a2\n+A2\n"))
	f.Add([]byte("diff --git a/b.txt b/d/e.txt\nsimilarity index 100%\nrename from b.txt\nrename to d/e.txt\n"))
	f.Add([]byte("diff --git a/a.txt b/a.txt\nold mode 100644\nnew mode 100755\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, patch []byte) {
		ctx := context.Background()
		mem := vfs.NewMem() // the workspace's files; the state folder is apart
		st := must(OpenFS(vfs.NewMem(), "/mem", WithWorkspaceFS(func(string) (vfs.FS, error) { return mem, nil })))(t)
		defer st.Close()
		ws := must(st.Workspace(dir))(t)
		s := ws.Create(SessionOptions{})
		defer s.Close()
		must(s.ToolWrite(ctx, "a.txt", []byte("a1\na2\n")))(t)
		must(s.ToolWrite(ctx, "b.txt", []byte("b\n")))(t)
		s.files.Wait()
		files := func() map[string]string {
			got := map[string]string{}
			var walk func(dir string)
			walk = func(dir string) {
				entries, _ := mem.ReadDir(dir)
				for _, e := range entries {
					name := e.Name()
					if dir != "." {
						name = dir + "/" + name
					}
					switch {
					case e.IsDir():
						walk(name)
					default:
						fi, _ := mem.Lstat(name)
						b, _ := vfs.ReadFile(mem, name)
						got[name] = fi.Mode().Perm().String() + string(b)
					}
				}
			}
			walk(".")
			return got
		}
		before := files()
		_, err := s.ToolPatch(ctx, patch)
		s.files.Wait()
		l := must(s.Snapshots(ctx))(t)
		if err != nil {
			if !errors.Is(err, ErrBadInput) && !errors.Is(err, ErrRefused) {
				t.Fatalf("error of the wrong kind: %v", err)
			}
			if got := files(); !maps.Equal(got, before) || len(l.Snapshots) != 2 {
				t.Fatalf("a refused patch (%v) changed the files to %v, %d snapshots", err, got, len(l.Snapshots))
			}
			return
		}
		if len(l.Snapshots) != 3 {
			t.Fatalf("%d snapshots", len(l.Snapshots))
		}
		must(s.Undo(ctx))(t)
		if got := files(); !maps.Equal(got, before) {
			t.Fatalf("undo gave %v, want %v", got, before)
		}
	})
}
