package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"cairn/internal/vfs"
)

// TestBackToBackMixedSizesCrash runs tool writes of one turn whose new
// content is in turn in the change line (small: its folder's sync left to
// the end of the turn) and not (large: synced in the background), among
// them a large write to a file a small write changed two writes before,
// and cuts the power at each sync point: cleanly, and for a few seeds with
// a random share of the unsynced changes surviving. Once the session is
// opened again, the files hold the first k writes, no file partial, where
// k is at least the writes that returned less one (the newest change line
// may name a write not made, and on the background path the write before
// it with it), and the session lists exactly those k changes. A large
// write whose line was durable while the small writes before it were lost
// must be judged against every state its file passed through since the
// last settled line, not only the change just before it: else it is taken
// as made, and the small writes it followed are never made again.
func TestBackToBackMixedSizesCrash(t *testing.T) {
	ctx := context.Background()
	type write struct {
		path string
		size int
	}
	writes := []write{{"src/a.txt", 3000}, {"src/b.txt", 3000}, {"src/a.txt", 20_000}, {"lib/c.txt", 3000}, {"src/a.txt", 3000}, {"src/b.txt", 20_000}}
	content := func(i int) []byte {
		line := fmt.Sprintf("write %d of the turn\n", i)
		return []byte(strings.Repeat(line, writes[i].size/len(line)+1)[:writes[i].size])
	}
	initial := map[string][]byte{}
	for _, w := range writes {
		initial[w.path] = []byte(strings.Repeat("the content before the turn: "+w.path+"\n", 100))
	}
	paths := make([]string, len(writes))
	for i, w := range writes {
		paths[i] = w.path
	}
	prefix := turnWrites{paths: paths, initial: initial, content: content}.prefix // backtoback_crash_test.go
	dir := t.TempDir()
	for n := 0; ; n++ {
		completed := false
		for seed := range 3 {
			mem := vfs.NewMem()
			wsfs := WithWorkspaceFS(func(string) (vfs.FS, error) { return mem, nil })
			st := must(OpenFS(mem, "/mem", wsfs))(t)
			ws := must(st.Workspace(dir))(t)
			s := ws.Create(SessionOptions{})
			must(s.ToolWrite(ctx, "src/warm.txt", []byte("materializes the session")))(t)
			must(0, s.Commit(ctx))(t)
			putDurably(t, mem, initial)
			mem.FailAfterSyncs(n)
			returned := 0
			var err error
			for i, w := range writes {
				if _, err = s.ToolWrite(ctx, w.path, content(i)); err != nil {
					break
				}
				returned++
			}
			if err == nil {
				err = s.Commit(ctx)
			}
			if err != nil && !errors.Is(err, vfs.ErrCrashed) {
				t.Fatalf("sync point %d: %v", n, err)
			}
			completed = err == nil
			crashBySeed(mem, n, seed)
			s.Close()
			st.Close()
			lines := turnChangeLines(t, mem, changesName(ws.dir, s.ID()))
			where := fmt.Sprintf("sync point %d seed %d (%d writes returned, %d lines)", n, seed, returned, lines)

			st = must(OpenFS(mem, "/mem", wsfs))(t)
			ws = must(st.Workspace(dir))(t)
			s2, err := ws.Open(ctx, s.ID(), SessionOptions{})
			if err != nil {
				t.Fatalf("%s: open: %v", where, err)
			}
			got := map[string][]byte{}
			for p := range initial {
				got[p] = must(vfs.ReadFile(mem, p))(t)
			}
			k := prefix(got)
			if k < 0 || k < returned-1 || (completed && k != len(writes)) {
				desc := []string{}
				for p, b := range got {
					which := "initial"
					for i := range writes {
						if writes[i].path == p && bytes.Equal(b, content(i)) {
							which = fmt.Sprintf("write %d", i)
						}
					}
					desc = append(desc, p+": "+which)
				}
				t.Fatalf("%s: opened again, the files hold %d writes (%s)", where, k, strings.Join(desc, ", "))
			}
			listed := 0
			for _, sn := range must(s2.Snapshots(ctx))(t).Snapshots {
				if sn.Applied && len(sn.Files) == 1 && !strings.HasSuffix(sn.Files[0].Path, "warm.txt") {
					listed++
				}
			}
			if listed != k {
				t.Fatalf("%s: the files hold %d writes, the session lists %d changes", where, k, listed)
			}
			s2.Close()
			st.Close()
			if completed {
				break
			}
		}
		if completed {
			break
		}
		if n > 400 {
			t.Fatal("the turn never completed")
		}
	}
}
