package index

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"cairn/internal/vfs"
)

func TestRefreshNewChangedDeleted(t *testing.T) {
	onEachFS(t, func(t *testing.T, fsys vfs.FS) {
		x := Open(fsys, ws)
		refresh(t, x, false, 0) // no sessions folder yet: empty, nothing written
		if _, err := fsys.Lstat(ws + "/index.json"); !vfs.IsNotExist(err) {
			t.Errorf("index.json written for no sessions: %v", err)
		}

		writeRec(t, fsys, rec(1, "one", at(1)))
		writeRec(t, fsys, rec(2, "two", at(2)))
		writeRec(t, fsys, rec(3, "three", at(3)))
		refresh(t, x, true, 3)
		if got := titles(x.Entries()); !slices.Equal(got, []string{"three", "two", "one"}) {
			t.Fatalf("titles = %v", got)
		}
		want := Entry{ID: id(2), Title: "two", TitleSource: "prompt", CreatedAt: t0, UpdatedAt: at(2),
			OpenedAt: at(2), Items: 2, Bytes: 200, Branch: "main", Tier: "full", Path: "/w", Journal: 2000}
		if got := x.Entries()[1]; got != want {
			t.Errorf("entry = %+v\nwant   %+v", got, want)
		}

		refresh(t, x, false, 0)

		// A changed record is parsed again and moves.
		writeRec(t, fsys, rec(1, "one again", at(10)))
		refresh(t, x, true, 1)
		if got := titles(x.Entries()); !slices.Equal(got, []string{"one again", "three", "two"}) {
			t.Fatalf("after change: titles = %v", got)
		}

		// A deleted record leaves; nothing is parsed.
		remove(t, fsys, id(3)+".json")
		refresh(t, x, true, 0)
		if got := ids(x.Entries()); !slices.Equal(got, []string{id(1), id(2)}) {
			t.Fatalf("after delete: ids = %v", got)
		}

		// A new one comes in; the others are not parsed.
		writeRec(t, fsys, rec(4, "four", at(5)))
		refresh(t, x, true, 1)
		if got := titles(x.Entries()); !slices.Equal(got, []string{"one again", "four", "two"}) {
			t.Fatalf("after create: titles = %v", got)
		}

		// A fresh Index over the same folder reads index.json and parses nothing.
		y := Open(fsys, ws)
		refresh(t, y, true, 0)
		if !slices.EqualFunc(x.Entries(), y.Entries(), sameEntry) {
			t.Errorf("reloaded entries differ:\n%+v\n%+v", x.Entries(), y.Entries())
		}
	})
}

func TestRefreshWritesOnlyOnChange(t *testing.T) {
	onEachFS(t, func(t *testing.T, fsys vfs.FS) {
		writeRec(t, fsys, rec(1, "one", at(1)))
		x := Open(fsys, ws)
		refresh(t, x, true, 1)
		fi1, err := fsys.Lstat(ws + "/index.json")
		if err != nil {
			t.Fatal(err)
		}
		refresh(t, x, false, 0)
		refresh(t, Open(fsys, ws), true, 0)
		fi2, err := fsys.Lstat(ws + "/index.json")
		if err != nil {
			t.Fatal(err)
		}
		if keyOf(fi1) != keyOf(fi2) {
			t.Errorf("index.json rewritten without a change: %+v -> %+v", keyOf(fi1), keyOf(fi2))
		}
	})
}

func TestGarbageRecords(t *testing.T) {
	onEachFS(t, func(t *testing.T, fsys vfs.FS) {
		writeRec(t, fsys, rec(1, "good one", at(1)))
		writeRaw(t, fsys, id(2)+".json", "{not json")
		writeRaw(t, fsys, id(3)+".json", "")
		writeRaw(t, fsys, id(4)+".json", `["an","array"]`)
		writeRaw(t, fsys, id(5)+".json", `{"v":2,"id":"`+id(5)+`"}`)
		writeRaw(t, fsys, id(6)+".json", `{"v":1,"id":"`+id(7)+`"}`)
		writeRaw(t, fsys, id(8)+".json", `null`)
		writeRec(t, fsys, rec(9, "good nine", at(9)))
		// Not records: ignored without a word.
		writeRaw(t, fsys, id(1)+".audit.jsonl", "{}\n")
		writeRaw(t, fsys, id(1)+".items.jsonl", "garbage\n")
		writeRaw(t, fsys, "."+id(10)+".json.tmp123", "{")
		writeRaw(t, fsys, "notes.json", "{")
		writeRaw(t, fsys, strings.ToUpper(id(11)[:8])+"-zzzz-4000-8000-000000000000.json", "{")

		x := Open(fsys, ws)
		refresh(t, x, true, 8)
		if got := titles(x.Entries()); !slices.Equal(got, []string{"good nine", "good one"}) {
			t.Errorf("titles = %v", got)
		}
		var names []string
		for _, p := range x.Problems() {
			names = append(names, p.Name)
			if !strings.Contains(p.Err, "malformed record") {
				t.Errorf("problem %s: %q does not say malformed record", p.Name, p.Err)
			}
		}
		want := []string{"sessions/" + id(2) + ".json", "sessions/" + id(3) + ".json", "sessions/" + id(4) + ".json",
			"sessions/" + id(5) + ".json", "sessions/" + id(6) + ".json", "sessions/" + id(8) + ".json"}
		if !slices.Equal(names, want) {
			t.Errorf("problems = %v\nwant %v", names, want)
		}

		// Problems are cached like entries: not parsed again, also by a new Index.
		refresh(t, x, false, 0)
		y := Open(fsys, ws)
		refresh(t, y, true, 0)
		if !slices.Equal(y.Problems(), x.Problems()) {
			t.Errorf("cached problems = %v, want %v", y.Problems(), x.Problems())
		}

		// A repaired record joins the listing.
		writeRec(t, fsys, rec(2, "two repaired", at(2)))
		refresh(t, y, true, 1)
		if got := titles(y.Entries()); !slices.Equal(got, []string{"good nine", "two repaired", "good one"}) {
			t.Errorf("after repair: titles = %v", got)
		}
		if len(y.Problems()) != 5 {
			t.Errorf("after repair: %d problems, want 5", len(y.Problems()))
		}
		// A removed garbage record leaves the problems.
		remove(t, fsys, id(3)+".json")
		refresh(t, y, true, 0)
		if len(y.Problems()) != 4 {
			t.Errorf("after remove: %d problems, want 4", len(y.Problems()))
		}
	})
}

func TestIndexFileDeletedOrCorrupt(t *testing.T) {
	for _, tc := range []struct {
		name    string
		corrupt func(t *testing.T, fsys vfs.FS)
	}{
		{"deleted", func(t *testing.T, fsys vfs.FS) {
			if err := fsys.Remove(ws + "/index.json"); err != nil {
				t.Fatal(err)
			}
		}},
		{"garbage", func(t *testing.T, fsys vfs.FS) { writeIndex(t, fsys, "\x00\x01garbage") }},
		{"truncated", func(t *testing.T, fsys vfs.FS) {
			data, err := vfs.ReadFile(fsys, ws+"/index.json")
			if err != nil {
				t.Fatal(err)
			}
			writeIndex(t, fsys, string(data[:len(data)/2]))
		}},
		{"other version", func(t *testing.T, fsys vfs.FS) { writeIndex(t, fsys, `{"v":2,"entries":[]}`) }},
		{"empty", func(t *testing.T, fsys vfs.FS) { writeIndex(t, fsys, "") }},
		{"wrong types", func(t *testing.T, fsys vfs.FS) { writeIndex(t, fsys, `{"v":1,"entries":[{"id":7}]}`) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			onEachFS(t, func(t *testing.T, fsys vfs.FS) {
				for n := range 5 {
					writeRec(t, fsys, rec(n, "s", at(n)))
				}
				x := Open(fsys, ws)
				refresh(t, x, true, 5)
				want := x.Entries()

				tc.corrupt(t, fsys)
				y := Open(fsys, ws)
				refresh(t, y, true, 5)
				if !slices.EqualFunc(y.Entries(), want, sameEntry) {
					t.Errorf("rebuilt entries = %v, want %v", ids(y.Entries()), ids(want))
				}
				// Rewritten, so the next Index reads it again.
				refresh(t, Open(fsys, ws), true, 0)

				// A long-lived Index notices the file changed under it.
				tc.corrupt(t, fsys)
				refresh(t, x, false, 5)
				refresh(t, Open(fsys, ws), true, 0)
			})
		})
	}
}

func writeIndex(t *testing.T, fsys vfs.FS, data string) {
	t.Helper()
	if err := vfs.WriteFileAtomic(fsys, ws+"/index.json", []byte(data)); err != nil {
		t.Fatal(err)
	}
}

func TestSortOrder(t *testing.T) {
	onEachFS(t, func(t *testing.T, fsys vfs.FS) {
		// Written in an order unlike updated_at, so neither mtime nor id
		// gives the right answer.
		writeRec(t, fsys, rec(5, "middle", at(50)))
		writeRec(t, fsys, rec(1, "oldest", at(10)))
		writeRec(t, fsys, rec(9, "tie b", at(60)))
		writeRec(t, fsys, rec(7, "tie a", at(60)))
		writeRec(t, fsys, rec(3, "future", time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)))
		r := rec(2, "no time", at(0))
		delete(r, "updated_at")
		writeRec(t, fsys, r)
		r = rec(4, "bad time", at(0))
		r["updated_at"] = "yesterday"
		writeRec(t, fsys, r)
		r = rec(6, "offset time", at(0))
		r["updated_at"] = "2026-11-29T10:05:00.000+01:00" // 09:05Z: between oldest and middle
		writeRec(t, fsys, r)

		x := Open(fsys, ws)
		refresh(t, x, true, 8)
		want := []string{"future", "tie a", "tie b", "middle", "oldest", "offset time", "no time", "bad time"}
		if got := titles(x.Entries()); !slices.Equal(got, want) {
			t.Errorf("order = %v\nwant    %v", got, want)
		}
		// The same order from index.json.
		y := Open(fsys, ws)
		refresh(t, y, true, 0)
		if got := titles(y.Entries()); !slices.Equal(got, want) {
			t.Errorf("order from index.json = %v", got)
		}
	})
}

func TestLenientFields(t *testing.T) {
	fsys := vfs.NewMem()
	writeRaw(t, fsys, id(1)+".json", `{"v":1,"id":"`+id(1)+`","items":7,"bytes":4096,"title":"top-level counts","pinned":true,"fork_of":"`+id(9)+`"}`)
	writeRaw(t, fsys, id(2)+".json", `{"id":"`+id(2)+`","counts":{"items":3,"bytes":30},"title":42,"tier":["x"],"pinned":"yes","updated_at":17}`)
	writeRaw(t, fsys, id(3)+".json", `{"title":"no id, no v","items":"many","counts":"none","journals":{"items":"x"}}`)
	writeRaw(t, fsys, id(4)+".json", `{"title":"journal size","journals":{"items":512,"changes":9}}`)
	writeRaw(t, fsys, id(5)+".json", `{"title":"remote","remote":{"host":"me@devbox","path":"/srv/p","identity":"x","generation":2}}`)
	x := Open(fsys, ws)
	refresh(t, x, true, 5)
	got := x.Entries()
	want := []Entry{
		{ID: id(1), Title: "top-level counts", Items: 7, Bytes: 4096, Pinned: true, ForkOf: id(9), Journal: -1},
		{ID: id(2), Items: 3, Bytes: 30, Journal: -1},
		{ID: id(3), Title: "no id, no v", Journal: -1},
		{ID: id(4), Title: "journal size", Journal: 512},
		{ID: id(5), Title: "remote", Remote: "me@devbox:/srv/p", Journal: -1},
	}
	if !slices.EqualFunc(got, want, sameEntry) {
		t.Errorf("entries =\n%+v\nwant\n%+v", got, want)
	}
	if len(x.Problems()) != 0 {
		t.Errorf("problems = %v", x.Problems())
	}
}

// A record replaced by one of the same size and modification time is still
// parsed again: the inode is part of the stat key.
func TestReplacedSameSizeAndTime(t *testing.T) {
	d := newDisk(t)
	writeRec(t, d, rec(1, "aaaa", at(1)))
	x := Open(d, ws)
	refresh(t, x, true, 1)
	name := d.RealPath(ws + "/sessions/" + id(1) + ".json")
	fi, err := os.Lstat(name)
	if err != nil {
		t.Fatal(err)
	}
	writeRec(t, d, rec(1, "bbbb", at(1)))
	if err := os.Chtimes(name, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	refresh(t, x, true, 1)
	if got := titles(x.Entries()); !slices.Equal(got, []string{"bbbb"}) {
		t.Errorf("titles = %v", got)
	}
}

func TestFaults(t *testing.T) {
	mem := vfs.NewMem()
	f := vfs.NewFaulty(mem)
	writeRec(t, mem, rec(1, "one", at(1)))
	writeRec(t, mem, rec(2, "two", at(2)))
	x := Open(f, ws)
	refresh(t, x, true, 2)

	// The folder cannot be listed: an error, the listing as it was.
	writeRec(t, mem, rec(3, "three", at(3)))
	f.Inject(vfs.Rule{Op: vfs.OpReadDir, Err: errors.New("EIO")})
	if changed, err := x.Refresh(ctx); err == nil || changed {
		t.Errorf("Refresh with ReadDir failing = %v, %v; want an error", changed, err)
	}
	if got := titles(x.Entries()); !slices.Equal(got, []string{"two", "one"}) {
		t.Errorf("titles after failed Refresh = %v", got)
	}
	f.Reset()

	// A record that cannot be read is a problem, retried next time.
	f.Inject(vfs.Rule{Op: vfs.OpOpen, Path: ws + "/sessions/" + id(3) + ".json", Count: 1, Err: errors.New("EIO")})
	refresh(t, x, true, 1) // the problem is news
	if p := x.Problems(); len(p) != 1 || !strings.Contains(p[0].Err, "EIO") {
		t.Errorf("problems = %v", p)
	}
	refresh(t, x, true, 1)
	if got := titles(x.Entries()); !slices.Equal(got, []string{"three", "two", "one"}) {
		t.Errorf("titles after retry = %v", got)
	}
	if p := x.Problems(); len(p) != 0 {
		t.Errorf("problems after retry = %v", p)
	}

	// index.json cannot be written: an error, the listing up to date, and
	// the write tried again.
	writeRec(t, mem, rec(4, "four", at(4)))
	f.Inject(vfs.Rule{Op: vfs.OpRename, Err: errors.New("ENOSPC")})
	if changed, err := x.Refresh(ctx); !errors.Is(err, ErrNotSaved) || !changed {
		t.Errorf("Refresh with rename failing = %v, %v; want changed and ErrNotSaved", changed, err)
	}
	if got := titles(x.Entries()); !slices.Equal(got, []string{"four", "three", "two", "one"}) {
		t.Errorf("titles = %v", got)
	}
	f.Reset()
	if _, err := x.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	y := Open(mem, ws)
	refresh(t, y, true, 0)
	if got := titles(y.Entries()); !slices.Equal(got, []string{"four", "three", "two", "one"}) {
		t.Errorf("titles from index.json = %v", got)
	}
}

func TestRefreshCancelled(t *testing.T) {
	fsys := vfs.NewMem()
	writeRec(t, fsys, rec(1, "one", at(1)))
	x := Open(fsys, ws)
	c, cancel := contextWithCancel()
	cancel()
	if _, err := x.Refresh(c); err == nil {
		t.Error("Refresh with a cancelled context succeeded")
	}
	if len(x.Entries()) != 0 {
		t.Error("cancelled Refresh changed the listing")
	}
}

// An index.json an earlier build wrote has no "journal" in its entries:
// their records are read again once, so each entry carries the journal
// size its record says it reflects, and then never again.
func TestEarlierIndexReadsRecordsAgainOnce(t *testing.T) {
	onEachFS(t, func(t *testing.T, fsys vfs.FS) {
		for n := 1; n <= 3; n++ {
			writeRec(t, fsys, rec(n, fmt.Sprint("s", n), at(n)))
		}
		x := Open(fsys, ws)
		refresh(t, x, true, 3)
		b, err := vfs.ReadFile(fsys, ws+"/index.json")
		if err != nil {
			t.Fatal(err)
		}
		old := regexp.MustCompile(`,"journal":[0-9]+`).ReplaceAll(b, nil)
		if bytes.Equal(old, b) {
			t.Fatalf("no journal sizes in %s", b)
		}
		if err := vfs.WriteFileAtomic(fsys, ws+"/index.json", old); err != nil {
			t.Fatal(err)
		}
		y := Open(fsys, ws)
		refresh(t, y, true, 3)
		for i, e := range y.Entries() {
			if want := int64(3-i) * 1000; e.Journal != want {
				t.Errorf("%s: journal %d, want %d", e.ID, e.Journal, want)
			}
		}
		refresh(t, Open(fsys, ws), true, 0)
	})
}
