package index

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"cairn/internal/vfs"
)

// Records are replaced by rename, which moves the sessions folder's time,
// but another program can write one in place (a shell redirection, an
// editor), which leaves the folder alone. So a listing the folder's time
// vouches for still stats every record it names (one open of the folder,
// then a stat per name, on several threads), and is taken again when one
// differs from its cached stat key.
//
// A stat key cannot tell two versions of a record apart when the second
// kept the first's size and was written in place within the same tick of
// the file system's clock (a few milliseconds where times have
// nanoseconds): git's "racily clean" case. cairn never writes a record in
// place, so that takes another program racing a listing to the tick; it is
// not guarded against here (an open and fsck parse the record itself).

// recordsUnchanged reports whether every record c names, entries and cached
// problems, still has its cached stat key. It stats them in chunks and
// stops, reporting false, when ctx is cancelled. The names of a chunk are
// made in one buffer used again for the next: at 100,000 records a string
// a name was 10 MB of memory never touched before, a page fault a page.
func (x *Index) recordsUnchanged(ctx context.Context, c *cache) bool {
	total := len(c.entries) + len(c.problems)
	const chunk = 8192
	names := make([]string, 0, min(total, chunk))
	ends := make([]int, 0, min(total, chunk))
	var buf []byte
	var changed atomic.Bool
	for lo := 0; lo < total; lo += chunk {
		if ctx.Err() != nil {
			return false
		}
		hi := min(lo+chunk, total)
		names, ends, buf = names[:0], ends[:0], buf[:0]
		for i := lo; i < hi; i++ {
			buf = appendRecordFile(buf, c, i)
			ends = append(ends, len(buf))
		}
		// buf holds the chunk's names back to back; it is not appended
		// to again until LstatNames has returned.
		all, start := unsafe.String(unsafe.SliceData(buf), len(buf)), 0
		for _, end := range ends {
			names = append(names, all[start:end])
			start = end
		}
		err := vfs.LstatNames(x.fsys, x.sessionsDir(), names, func(i int, fi fs.FileInfo, err error) {
			if err != nil || keyOf(fi) != statOf(c, lo+i) {
				changed.Store(true)
			}
		})
		if err != nil || changed.Load() {
			return false
		}
	}
	return true
}

// appendRecordFile appends the file name of c's i-th record: its
// entries', then its problems'.
func appendRecordFile(b []byte, c *cache, i int) []byte {
	if i < len(c.entries) {
		return append(append(b, c.entries[i].ID...), ".json"...)
	}
	return append(b, strings.TrimPrefix(c.problems[i-len(c.entries)].Name, "sessions/")...)
}

// statOf is the cached stat key of c's i-th record, as appendRecordFile
// counts.
func statOf(c *cache, i int) statKey {
	if i < len(c.entries) {
		return c.stats[i]
	}
	return c.pstats[i-len(c.entries)]
}

// verifier stats records beside decodeStream, as recordsUnchanged does
// after a load: at 100,000 records the stats take longer than the decode,
// so the decode's time is mostly hidden where there is a core to spare.
// Batches go to GOMAXPROCS-1 threads while the decode runs; wait then
// stats what is left on this one too.
type verifier struct {
	x       *Index
	ctx     context.Context
	batches chan verifyBatch
	changed atomic.Bool
	wg      sync.WaitGroup
}

type verifyBatch struct {
	entries []Entry
	stats   []statKey
}

func (x *Index) verifyAlong(ctx context.Context) *verifier {
	v := &verifier{x: x, ctx: ctx, batches: make(chan verifyBatch, 256)}
	for range max(1, runtime.GOMAXPROCS(0)-1) {
		v.wg.Go(v.work)
	}
	return v
}

// add hands v entries and their cached keys to stat.
func (v *verifier) add(entries []Entry, stats []statKey) {
	v.batches <- verifyBatch{entries, stats}
}

func (v *verifier) work() {
	var names []string
	var buf []byte
	for b := range v.batches {
		if v.changed.Load() || v.ctx.Err() != nil {
			continue // the answer is known: drain
		}
		names, buf = names[:0], buf[:0]
		for i := range b.entries {
			buf = append(append(buf, b.entries[i].ID...), ".json"...)
		}
		all, start := unsafe.String(unsafe.SliceData(buf), len(buf)), 0
		for i := range b.entries {
			end := start + len(b.entries[i].ID) + len(".json")
			names = append(names, all[start:end])
			start = end
		}
		err := vfs.LstatNames(v.x.fsys, v.x.sessionsDir(), names, func(i int, fi fs.FileInfo, err error) {
			if err != nil || keyOf(fi) != b.stats[i] {
				v.changed.Store(true)
			}
		})
		if err != nil {
			v.changed.Store(true)
		}
	}
}

// wait stats what is left of the entries, then c's problems, and reports
// whether every record had its cached key. c is nil when the decode failed.
func (v *verifier) wait(c *cache) bool {
	close(v.batches)
	v.work()
	v.wg.Wait()
	if c == nil || v.changed.Load() || v.ctx.Err() != nil {
		return false
	}
	return v.x.recordsUnchanged(v.ctx, &cache{problems: c.problems, pstats: c.pstats})
}

// peekFolder reads the sessions folder's stat key and the time of its
// listing from the end of index.json as cairn writes it, where they are
// followed only by the unrecorded sessions; ok is false when they are not
// in the file's last 4 KB.
func peekFolder(f io.ReaderAt, size int64) (folder statKey, listedNS int64, ok bool) {
	n := min(size, 4<<10)
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, size-n); err != nil {
		return statKey{}, 0, false
	}
	const at = "\n],\"folder\":"
	i := bytes.LastIndex(buf, []byte(at))
	if i < 0 {
		return statKey{}, 0, false
	}
	s := &scanner{b: string(buf[i+len(at):])}
	folder = s.stat()
	if !strings.HasPrefix(s.b[s.i:], `,"listed_ns":`) {
		return statKey{}, 0, false
	}
	s.i += len(`,"listed_ns":`)
	listedNS = s.int()
	return folder, listedNS, !s.bad
}
