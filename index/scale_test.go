package index

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"cairn/internal/vfs"
)

// At 2,000 sessions, unchanged records are never read again: not by the same
// Index, not by a new one over the same index.json; a change costs one parse
// per changed record.
func TestRefresh2000ParsesOnlyChanges(t *testing.T) {
	onEachFS(t, func(t *testing.T, fsys vfs.FS) {
		const n = 2000
		if err := fsys.MkdirAll(ws+"/sessions", vfs.DirPerm); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			data, _ := json.Marshal(rec(i, fmt.Sprint("s", i), at(i)))
			writeFast(t, fsys, id(i)+".json", data)
		}
		x := Open(fsys, ws)
		refresh(t, x, true, n)
		refresh(t, x, false, 0)
		y := Open(fsys, ws)
		refresh(t, y, true, 0)
		if len(y.Entries()) != n || y.Entries()[0].ID != id(n-1) {
			t.Fatalf("%d entries, first %v", len(y.Entries()), y.Entries()[0].ID)
		}
		for i := 0; i < n; i += 200 {
			writeRec(t, fsys, rec(i, "touched", at(n+i)))
		}
		remove(t, fsys, id(1)+".json")
		refresh(t, y, true, 10)
		es := y.Entries()
		if len(es) != n-1 {
			t.Fatalf("%d entries, want %d", len(es), n-1)
		}
		if got := titles(es[:10]); !slices.Equal(got, slices.Repeat([]string{"touched"}, 10)) {
			t.Errorf("first titles = %v", got)
		}
		if es[0].ID != id(1800) || es[10].ID != id(n-1) {
			t.Errorf("order: es[0] = %s, es[10] = %s", es[0].ID, es[10].ID)
		}
		refresh(t, Open(fsys, ws), true, 0)
	})
}

// benchFolder makes n records on the disk, unsynced.
func benchFolder(b *testing.B, n int) *vfs.Disk {
	d := newDisk(b)
	if err := d.MkdirAll(ws+"/sessions", vfs.DirPerm); err != nil {
		b.Fatal(err)
	}
	data := make([]byte, 0, 1024)
	for i := range n {
		data = fmt.Appendf(data[:0], `{"v":1,"id":%q,"path":"/home/me/proj","title":"session number %d","title_source":"prompt",`+
			`"created_at":"2026-11-29T09:12:03.120Z","updated_at":%q,"opened_at":"2026-11-29T09:12:03.120Z",`+
			`"head":"i-1","branch":"main","build":"0.1.0","tier":"full","pinned":false,"fork_of":null,`+
			`"counts":{"items":%d,"bytes":%d}}`, id(i), i, at(i).Format(timeLayout), i, i*1000)
		writeFast(b, d, id(i)+".json", data)
	}
	return d
}

func benchRefresh(b *testing.B, n int, warm bool) { benchRefreshOf(b, benchFolder(b, n), n, warm) }

func benchRefreshOf(b *testing.B, d *vfs.Disk, n int, warm bool) {
	x := Open(d, ws)
	if _, err := x.Refresh(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if !warm {
			x = Open(d, ws)
		}
		if _, err := x.Refresh(ctx); err != nil {
			b.Fatal(err)
		}
		if len(x.Entries()) != n || x.parses != 0 && !warm {
			b.Fatalf("%d entries, %d parses", len(x.Entries()), x.parses)
		}
	}
}

// BenchmarkRefresh10k: a new Index (a new process) refreshing 10,000 unchanged
// sessions: index.json read, the folder listed, nothing parsed.
func BenchmarkRefresh10k(b *testing.B) { benchRefresh(b, 10_000, false) }

// BenchmarkRefresh10kStill: as BenchmarkRefresh10k, in a sessions folder
// whose time vouches for the cached listing: the folder is not listed, each
// record is stat'ed by name.
func BenchmarkRefresh10kStill(b *testing.B) {
	d := benchFolder(b, 10_000)
	past := time.Now().Add(-time.Minute)
	if err := os.Chtimes(filepath.Join(d.Dir(), ws, "sessions"), past, past); err != nil {
		b.Fatal(err)
	}
	benchRefreshOf(b, d, 10_000, false)
}

// BenchmarkRefresh10kWarm: the same Index refreshing again.
func BenchmarkRefresh10kWarm(b *testing.B) { benchRefresh(b, 10_000, true) }

// BenchmarkReadDir10k is the floor a Refresh cannot beat: listing the folder
// with each file's stat data.
func BenchmarkReadDir10k(b *testing.B) {
	d := benchFolder(b, 10_000)
	b.ReportAllocs()
	for b.Loop() {
		ents, err := d.ReadDir(ws + "/sessions")
		if err != nil || len(ents) != 10_000 {
			b.Fatal(len(ents), err)
		}
		for _, e := range ents {
			if _, err := e.Info(); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkRefresh100k is the picker's goal size (run it with -bench 100k).
func BenchmarkRefresh100k(b *testing.B) { benchRefresh(b, 100_000, false) }

// BenchmarkDecode100k: reading a 100,000-entry index.json, without the disk.
func BenchmarkDecode100k(b *testing.B) {
	c := &cache{}
	for i := range 100_000 {
		c.entries = append(c.entries, Entry{ID: id(i), Title: fmt.Sprint("session number ", i), TitleSource: "prompt",
			CreatedAt: t0, UpdatedAt: at(i), OpenedAt: at(i), Items: i, Bytes: int64(i) * 1000,
			Branch: "main", Tier: "full", Path: "/home/me/proj"})
		c.stats = append(c.stats, statKey{size: 400, mtime: int64(i) * 1e9, ino: uint64(i)})
	}
	data := c.encode()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decodeCache(data); err != nil {
			b.Fatal(err)
		}
	}
}
