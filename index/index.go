package index

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"cairn/internal/vfs"
)

// Index is the picker index of one workspace folder. Its methods are safe for
// concurrent use. Entries, Page, Problems and Lookup answer from the last
// Refresh.
type Index struct {
	fsys vfs.FS
	dir  string

	mu       sync.Mutex
	loaded   bool    // a Refresh has succeeded
	saved    bool    // index.json holds c
	fileStat statKey // of index.json when last read or written; zero: none
	c        *cache

	parses     int      // records parsed so far: a test hook
	unrecorded []string // session ids with a journal and no record
}

// Open returns the index of the workspace folder dir (fsys-relative), whose
// records are in dir/sessions. It reads nothing until Refresh.
func Open(fsys vfs.FS, dir string) *Index {
	return &Index{fsys: fsys, dir: dir, c: &cache{}}
}

func (x *Index) sessionsDir() string { return path.Join(x.dir, "sessions") }
func (x *Index) fileName() string    { return path.Join(x.dir, fileName) }

// Refresh brings the index up to date with the records: it reads index.json
// (when it changed since this Index last read or wrote it; a missing,
// corrupt or other-version file counts as empty), lists the sessions folder,
// reuses each entry whose record's stat key is unchanged, parses the records
// that are new or changed, and drops entries whose record is gone. It writes
// index.json back only when the listing differs from what the file held.
// changed reports whether Entries or Problems differ from before the call.
//
// A record that cannot be read or parsed becomes a Problem, never an error.
// An error listing the sessions folder is returned and the index is left as
// it was; an error writing index.json is returned wrapped in ErrNotSaved,
// with the listing already up to date (the index is a cache).
func (x *Index) Refresh(ctx context.Context) (changed bool, err error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return false, err
	}
	before := x.c
	defer func() {
		changed = x.c != before && !sameListing(before, x.c)
	}()

	var fileKey statKey
	verified := false // the records were stat'ed against c as it was read
	if fi, err := x.fsys.Lstat(x.fileName()); err == nil {
		fileKey = keyOf(fi)
	}
	if !x.loaded || !x.saved || fileKey != x.fileStat {
		var c *cache
		c, verified = x.load(ctx)
		// A file without its count (an earlier build's) is written again,
		// so that Head can read its first page.
		x.saved = c != nil && c.counted
		if c == nil {
			c = &cache{}
		}
		x.c, x.fileStat = c, fileKey
	}
	if err := ctx.Err(); err != nil {
		// What was read stays: it is index.json as it is.
		x.loaded = false
		return false, err
	}

	// Every change cairn makes to a record is a create, rename or remove in
	// the sessions folder, which moves the folder's modification time. When
	// the folder is as it was at the cached listing, and that listing was
	// taken well after the folder last changed (so a coarse clock cannot
	// hide a change made during it), the folder need not be listed again:
	// at 10,000 sessions listing it costs as much as the rest of a listing.
	// Its records are still stat'ed, by name (verify.go), for a record
	// another program wrote in place, without a rename.
	folderKey := statKey{}
	if fi, err := x.fsys.Stat(x.sessionsDir()); err == nil {
		folderKey = keyOf(fi)
	}
	if x.saved && trusted(x.c, folderKey) && (verified || x.recordsUnchanged(ctx, x.c)) {
		x.loaded = true
		x.unrecorded = x.c.unrecorded
		return false, nil
	}
	if err := ctx.Err(); err != nil {
		x.loaded = false
		return false, err
	}
	listedNS := time.Now().UnixNano()
	ents, err := x.fsys.ReadDir(x.sessionsDir())
	noFolder := vfs.IsNotExist(err)
	if err != nil && !noFolder {
		x.c = before
		x.loaded = false
		return false, fmt.Errorf("index: %w", err)
	}
	next, dirty, err := x.merge(ctx, ents)
	if err != nil {
		x.c = before
		x.loaded = false
		return false, err
	}
	x.loaded = true
	if !dirty {
		// The same listing, already sorted: keep it, and note the folder's
		// key when that makes it trustworthy for the next refresh.
		same := *x.c
		next = &same
	}
	next.folder, next.listedNS, next.unrecorded = folderKey, listedNS, slices.Clone(x.unrecorded)
	if !dirty && x.saved && (trusted(x.c, folderKey) || !trusted(next, folderKey)) {
		return false, nil
	}
	x.c = next
	if noFolder && len(next.entries) == 0 && len(next.problems) == 0 {
		// Nothing to cache, and perhaps no workspace folder to write in.
		return false, nil
	}
	x.saved = false
	if err := vfs.WriteFileAtomic(x.fsys, x.fileName(), next.encode()); err != nil {
		return false, fmt.Errorf("%w: %w", ErrNotSaved, err)
	}
	x.saved = true
	x.fileStat = statKey{}
	if fi, err := x.fsys.Lstat(x.fileName()); err == nil {
		x.fileStat = keyOf(fi)
	}
	return false, nil
}

// load reads index.json; nil when it is missing or unusable. A file as
// cairn writes it is read a block at a time (decodeStream), any other
// whole (decodeCache). verified reports that every record the file names
// was stat'ed while it was read and had its cached key (verifyAlong): done
// only when the file's listing of the folder is trusted, so not wasted.
func (x *Index) load(ctx context.Context) (c *cache, verified bool) {
	f, err := x.fsys.OpenFile(x.fileName(), os.O_RDONLY, 0)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, false
	}
	var v *verifier
	if folder, listedNS, ok := peekFolder(f, fi.Size()); ok {
		if sfi, err := x.fsys.Stat(x.sessionsDir()); err == nil && trusted(&cache{folder: folder, listedNS: listedNS}, keyOf(sfi)) {
			v = x.verifyAlong(ctx)
		}
	}
	var batch func([]Entry, []statKey)
	if v != nil {
		batch = v.add
	}
	c, ok := decodeStream(f, fi.Size(), batch)
	if v != nil {
		verified = v.wait(c) && ok
	}
	if !ok {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, false
		}
		data, err := readFull(f, fi.Size())
		if err != nil {
			return nil, false
		}
		if c, err = decodeCache(data); err != nil {
			return nil, false
		}
	}
	if !slices.IsSortedFunc(c.entries, func(a, b Entry) int { return compareEntries(&a, &b) }) {
		sortCache(c)
	}
	return c, verified
}

// readAll reads a whole file into a buffer of its size: a big index.json
// would cost many copies to io.ReadAll's doubling.
func readAll(fsys vfs.FS, name string) ([]byte, error) {
	f, err := fsys.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return readFull(f, fi.Size())
}

// readFull reads the rest of f, which was size bytes when stat'ed.
func readFull(f io.Reader, size int64) ([]byte, error) {
	buf := make([]byte, size)
	if _, err := io.ReadFull(f, buf); err != nil {
		return nil, err // shorter than its size: replaced under us, or torn
	}
	rest, err := io.ReadAll(f) // longer: not the file we stat'ed either way
	if err != nil {
		return nil, err
	}
	return append(buf, rest...), nil
}

// merge builds the listing of the folder entries ents from x.c, parsing only
// records whose stat key changed. dirty reports whether it differs from x.c.
func (x *Index) merge(ctx context.Context, ents []fs.DirEntry) (next *cache, dirty bool, err error) {
	old := x.c
	at := make(map[string]int32, len(old.entries))
	for i := range old.entries {
		at[old.entries[i].ID] = int32(i)
	}
	var pat map[string]int
	if len(old.problems) > 0 {
		pat = make(map[string]int, len(old.problems))
		for i := range old.problems {
			pat[old.problems[i].Name] = i
		}
	}
	next = &cache{
		entries: make([]Entry, 0, len(old.entries)+1),
		stats:   make([]statKey, 0, len(old.entries)+1),
	}
	reused := 0
	var journals []string
	records := make(map[string]bool, len(old.entries))
	defer func() {
		// A new slice: the one before may be the cache's, which a
		// listing taken earlier still holds.
		var u []string
		for _, j := range journals {
			if !records[j] {
				u = append(u, j)
			}
		}
		x.unrecorded = u
	}()
	for n, de := range ents {
		if n&1023 == 1023 {
			if err := ctx.Err(); err != nil {
				return nil, false, err
			}
		}
		name := de.Name()
		if j, ok := strings.CutSuffix(name, ".items.jsonl"); ok {
			journals = append(journals, j)
			continue
		}
		id, ok := recordName(name)
		if !ok {
			continue
		}
		records[id] = true
		fi, err := de.Info()
		if err != nil {
			if vfs.IsNotExist(err) {
				continue // removed since the listing
			}
			next.addProblem(problemName(name), err.Error(), statKey{})
			dirty = true
			continue
		}
		if !fi.Mode().IsRegular() {
			next.addProblem(problemName(name), fmt.Sprintf("%v: not a regular file", ErrBadRecord), statKey{})
			dirty = true
			continue
		}
		key := keyOf(fi)
		if i, ok := at[id]; ok && old.stats[i] == key {
			next.entries = append(next.entries, old.entries[i])
			next.stats = append(next.stats, key)
			reused++
			continue
		}
		pname := problemName(name)
		if i, ok := pat[pname]; ok && old.pstats[i] == key {
			next.addProblem(pname, old.problems[i].Err, key)
			reused++
			continue
		}
		dirty = true
		e, err := x.read(id)
		switch {
		case err == nil:
			next.entries = append(next.entries, e)
			next.stats = append(next.stats, key)
		case errors.Is(err, ErrBadRecord):
			next.addProblem(pname, err.Error(), key)
		default:
			next.addProblem(pname, err.Error(), statKey{})
		}
	}
	if reused != len(old.entries)+len(old.problems) {
		dirty = true
	}
	if dirty {
		sortCache(next)
	}
	return next, dirty, nil
}

// problemName is the name a Problem gives the record file name.
func problemName(name string) string { return "sessions/" + name }

// read parses the record of id.
func (x *Index) read(id string) (Entry, error) {
	x.parses++
	data, err := vfs.ReadFile(x.fsys, path.Join(x.sessionsDir(), id+".json"))
	if err != nil {
		return Entry{}, err
	}
	return parseRecord(id, data)
}

func (c *cache) addProblem(name, msg string, st statKey) {
	c.problems = append(c.problems, Problem{Name: name, Err: msg})
	c.pstats = append(c.pstats, st)
}

// sortCache puts entries in listing order and problems by name, keeping each
// stat key with its entry.
func sortCache(c *cache) {
	perm := make([]int32, len(c.entries))
	for i := range perm {
		perm[i] = int32(i)
	}
	slices.SortFunc(perm, func(a, b int32) int { return compareEntries(&c.entries[a], &c.entries[b]) })
	entries := make([]Entry, len(perm))
	stats := make([]statKey, len(perm))
	for i, j := range perm {
		entries[i], stats[i] = c.entries[j], c.stats[j]
	}
	c.entries, c.stats = entries, stats

	pp := make([]int, len(c.problems))
	for i := range pp {
		pp[i] = i
	}
	slices.SortFunc(pp, func(a, b int) int { return compareProblems(c.problems[a], c.problems[b]) })
	problems := make([]Problem, len(pp))
	pstats := make([]statKey, len(pp))
	for i, j := range pp {
		problems[i], pstats[i] = c.problems[j], c.pstats[j]
	}
	c.problems, c.pstats = problems, pstats
}

// sameListing reports whether two caches list the same entries and problems.
func sameListing(a, b *cache) bool {
	return slices.EqualFunc(a.entries, b.entries, sameEntry) && slices.Equal(a.problems, b.problems)
}

func sameEntry(a, b Entry) bool {
	return a.ID == b.ID && a.Title == b.Title && a.TitleSource == b.TitleSource &&
		a.CreatedAt.Equal(b.CreatedAt) && a.UpdatedAt.Equal(b.UpdatedAt) && a.OpenedAt.Equal(b.OpenedAt) &&
		a.Items == b.Items && a.Bytes == b.Bytes && a.Branch == b.Branch && a.Tier == b.Tier &&
		a.Pinned == b.Pinned && a.ForkOf == b.ForkOf && a.Path == b.Path && a.Remote == b.Remote && a.Journal == b.Journal
}

// Entries returns the listing: newest UpdatedAt first, ties by ID. The slice
// is shared with the index and must not be modified; a later Refresh does
// not change it.
func (x *Index) Entries() []Entry {
	x.mu.Lock()
	defer x.mu.Unlock()
	return slices.Clip(x.c.entries)
}

// Unrecorded lists the sessions whose items journal has no record beside it
// (a crash between the two writes): not listed until their record is
// rebuilt from the journal. The slice is the caller's.
func (x *Index) Unrecorded() []string {
	x.mu.Lock()
	defer x.mu.Unlock()
	return slices.Clone(x.unrecorded)
}

// Problems returns the records that could not be read or parsed, by name.
func (x *Index) Problems() []Problem {
	x.mu.Lock()
	defer x.mu.Unlock()
	return slices.Clone(x.c.problems)
}

// racyNS is how long after a folder's last change a listing must be taken
// for the folder's time to vouch for it: file systems keep times as coarse
// as a second or two.
const racyNS = int64(2 * time.Second)

// trusted reports whether cache c's listing still holds for a sessions
// folder whose stat key is now folder.
func trusted(c *cache, folder statKey) bool {
	if c == nil || folder == (statKey{}) || c.folder != folder || c.listedNS-folder.mtime <= racyNS {
		return false
	}
	for _, st := range c.pstats {
		if st == (statKey{}) {
			return false // a read error worth retrying
		}
	}
	return true
}
