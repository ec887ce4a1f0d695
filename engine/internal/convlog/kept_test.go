package convlog

import (
	"os"
	"strings"
	"testing"
	"time"

	"cairn/internal/vfs"
	"cairn/journal"
)

type line struct {
	N int `json:"n"`
}

func read(t *testing.T, fsys vfs.FS, name string) string {
	t.Helper()
	var got []string
	if _, err := journal.Read(fsys, name, func(b []byte) error { got = append(got, string(b)); return nil }); err != nil {
		t.Fatal(err)
	}
	return strings.Join(got, " ")
}

// A journal whose sync failed is cut back to its last good sync and the
// lines written since are written again; one whose writer only broke is
// cut back to its last line written whole.
func TestReopenCutsBackAndRewrites(t *testing.T) {
	for _, c := range []struct {
		name       string
		syncFailed bool
		want       string
	}{
		{"sync failed", true, `{"n":1} {"n":2} {"n":3}`},
		{"writer broke", false, `{"n":1} {"n":2} {"n":3}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			fsys := vfs.NewMem()
			name := "j.jsonl"
			w, err := journal.Create(fsys, name, []any{line{1}}, journal.Options{Sync: journal.SyncManual, Now: time.Now})
			if err != nil {
				t.Fatal(err)
			}
			var k Kept[line]
			k.Durable(w.Size())
			for _, n := range []int{2, 3} {
				if err := w.Append(line{n}); err != nil {
					t.Fatal(err)
				}
				k.Wrote(line{n}, w.Size())
			}
			end := w.Size()
			w.Close()
			// A torn line past the last one written whole.
			f, err := fsys.OpenFile(name, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.Write([]byte(`{"n":9`))
			f.Close()
			if c.syncFailed {
				// What was written since the sync may be lost: here it
				// is, and a Reopen must write it again.
				if err := Cut(fsys, name, k.Synced); err != nil {
					t.Fatal(err)
				}
				k.SyncFailed = true
			}
			nw, err := k.Reopen(fsys, nil, name, time.Now)
			if err != nil {
				t.Fatal(err)
			}
			defer nw.Close()
			if got := read(t, fsys, name); got != c.want {
				t.Fatalf("journal after Reopen: %s, want %s", got, c.want)
			}
			if nw.Size() != end || k.End != end {
				t.Fatalf("size %d, End %d, want %d", nw.Size(), k.End, end)
			}
		})
	}
}
