package index

import (
	"context"
	"io/fs"
	"strings"
	"sync/atomic"

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
// stops, reporting false, when ctx is cancelled.
func (x *Index) recordsUnchanged(ctx context.Context, c *cache) bool {
	names := make([]string, 0, len(c.entries)+len(c.problems))
	keys := make([]statKey, 0, cap(names))
	for i := range c.entries {
		names = append(names, c.entries[i].ID+".json")
		keys = append(keys, c.stats[i])
	}
	for i, p := range c.problems {
		names = append(names, strings.TrimPrefix(p.Name, "sessions/"))
		keys = append(keys, c.pstats[i])
	}
	var changed atomic.Bool
	const chunk = 8192
	for lo := 0; lo < len(names); lo += chunk {
		if ctx.Err() != nil {
			return false
		}
		hi := min(lo+chunk, len(names))
		err := vfs.LstatNames(x.fsys, x.sessionsDir(), names[lo:hi], func(i int, fi fs.FileInfo, err error) {
			if err != nil || keyOf(fi) != keys[lo+i] {
				changed.Store(true)
			}
		})
		if err != nil || changed.Load() {
			return false
		}
	}
	return true
}
