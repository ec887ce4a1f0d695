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

// TestBackToBackToolWritesCrashAtEverySync runs the tool writes of one turn
// back to back (two files of one folder, one of them twice, and a file of
// another folder), then the Commit that ends the turn, and cuts the power at
// each of their sync points in turn: cleanly, and for a few seeds with a
// random share of the unsynced changes surviving. Then it checks the crash
// guarantee of the file tools: the files hold the first k writes, where k is
// at least the writes that had returned less one (only the newest change may
// be unmade) and at most one more than had returned (the write under way);
// all of them once Commit returned; no file is partial. The session, opened
// again, lists exactly those k changes, and undoing the newest puts back
// what was there before it.
func TestBackToBackToolWritesCrashAtEverySync(t *testing.T) {
	ctx := context.Background()
	paths := []string{"src/a.txt", "src/b.txt", "src/a.txt", "lib/c.txt"}
	content := func(i int) []byte { // write i's content; 10,000 bytes, so the pre-image is inline
		return []byte(strings.Repeat(fmt.Sprintf("write %d of the turn\n", i), 500))
	}
	initial := map[string][]byte{}
	for _, p := range paths {
		initial[p] = []byte(strings.Repeat("the content before the turn: "+p+"\n", 300))
	}
	// after(k) is what each file holds once the first k writes are made.
	after := func(k int) map[string][]byte {
		m := map[string][]byte{}
		for p, b := range initial {
			m[p] = b
		}
		for i := range k {
			m[paths[i]] = content(i)
		}
		return m
	}
	dir := t.TempDir()
	points := 0
	for n := 0; ; n++ {
		completed := false
		for seed := range 3 {
			mem := vfs.NewMem()
			wsfs := WithWorkspaceFS(func(string) (vfs.FS, error) { return mem, nil })
			st, err := OpenFS(mem, "/mem", wsfs)
			if err != nil {
				t.Fatal(err)
			}
			ws := must(st.Workspace(dir))(t)
			s := ws.Create(SessionOptions{})
			must(s.ToolWrite(ctx, "src/warm.txt", []byte("materializes the session")))(t)
			for p, b := range initial {
				if err := mem.MkdirAll(p[:strings.LastIndexByte(p, '/')], vfs.DirPerm); err != nil {
					t.Fatal(err)
				}
				if err := vfs.WriteFileAtomic(mem, p, b); err != nil {
					t.Fatal(err)
				}
			}
			for _, d := range []string{"src", "lib", "."} {
				if err := mem.SyncDir(d); err != nil {
					t.Fatal(err)
				}
			}
			mem.FailAfterSyncs(n)
			returned := 0
			for i, p := range paths {
				if _, err = s.ToolWrite(ctx, p, content(i)); err != nil {
					break
				}
				returned++
			}
			if err == nil {
				err = s.Commit(ctx) // the end of the turn: every write is durable
			}
			if err != nil && !errors.Is(err, vfs.ErrCrashed) {
				t.Fatalf("sync point %d: %v", n, err)
			}
			completed = err == nil
			crashBySeed(mem, n, seed)
			s.Close()
			st.Close()

			where := fmt.Sprintf("sync point %d seed %d (%d writes returned)", n, seed, returned)
			got := map[string][]byte{}
			for _, p := range paths {
				b, err := vfs.ReadFile(mem, p)
				if err != nil {
					t.Fatalf("%s: %s: %v", where, p, err)
				}
				got[p] = b
			}
			k := -1
			for j := len(paths); j >= 0; j-- {
				if sameFiles(got, after(j)) {
					k = j
					break
				}
			}
			switch {
			case k < 0:
				t.Fatalf("%s: the files hold no prefix of the writes (a partial file, or a change lost behind a later one)", where)
			case completed && seed == 0 && k != len(paths):
				t.Fatalf("%s: the turn ended, yet only %d of %d writes are there", where, k, len(paths))
			case k < returned-1:
				t.Fatalf("%s: %d writes are there: more than the newest change was unmade", where, k)
			case k > returned+1:
				t.Fatalf("%s: %d writes are there, more than were made", where, k)
			}

			st = must(OpenFS(mem, "/mem", wsfs))(t)
			ws = must(st.Workspace(dir))(t)
			s2, err := ws.Open(ctx, s.ID(), SessionOptions{})
			if err != nil {
				t.Fatalf("%s: open: %v", where, err)
			}
			l := must(s2.Snapshots(ctx))(t)
			listed := 0
			for _, sn := range l.Snapshots {
				if sn.Applied && len(sn.Files) == 1 && !strings.HasSuffix(sn.Files[0].Path, "warm.txt") {
					listed++
				}
			}
			if listed != k {
				t.Fatalf("%s: the files hold %d writes, the session lists %d changes", where, k, listed)
			}
			if k > 0 {
				must(s2.Undo(ctx))(t)
				want := after(k - 1)[paths[k-1]]
				if b, _ := vfs.ReadFile(mem, paths[k-1]); !bytes.Equal(b, want) {
					t.Fatalf("%s: undoing write %d gave %d bytes, not what was there before it", where, k-1, len(b))
				}
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
		points++
		if n > 400 {
			t.Fatal("the turn never completed")
		}
	}
	if points < 2*len(paths) { // a change line and a folder sync a write, at least
		t.Fatalf("only %d sync points", points)
	}
	t.Logf("%d sync points", points)
}

func sameFiles(a, b map[string][]byte) bool {
	for p, x := range b {
		if !bytes.Equal(a[p], x) {
			return false
		}
	}
	return true
}
