package scope

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io"
	"path"
	"slices"
	"strings"
	"time"

	"cairn/internal/vfs"
	"cairn/objects"
)

// Cache maps a path and its stat data to its content hash, so a walk reads
// again only the files whose stat changed. NewCache or LoadCache make one;
// like the rest of the package it is not safe for concurrent use by
// several walks.
//
// It holds the files by folder, each folder's sorted by name: a walk reads
// a folder's names in that order too, so it finds their entries in one
// pass (cacheCursor), without hashing each path into one big map, whose
// lookups were the largest cost of a warm walk outside the kernel (about
// 6% of its CPU time on the 50,000-file tree of cmd/cairn-bench's B2).
type Cache struct {
	dirs map[string]*cacheDir // by folder, relative ("" the root)
	n    int                  // files held
	// changed: the cache learned or forgot a file since it was made,
	// loaded or saved (Changed).
	changed bool
	// gen counts the walks that taught the cache: a walk marks each entry
	// it finds unchanged with its own gen (in place, so nothing is
	// written to the map while folders are read in parallel), and after a
	// whole walk the entries it did not mark are gone from the tree.
	gen uint32
}

// cacheDir is the files of one folder, sorted by name.
type cacheDir struct {
	ents []cacheEntry
}

// cacheEntry is what the cache knows of one regular file.
type cacheEntry struct {
	name               string // in its folder
	size, mtime, ctime int64
	ino                uint64
	mode               uint32
	// stamp (ns since 1970) is when the walk that read the hash started,
	// less racyMargin: git's racy rule, an mtime or ctime not older than
	// it may hide a change made in the same clock tick as the read.
	stamp int64
	hash  objects.ID
	gen   uint32
	gone  bool // removed by learn, until its folder is compacted
}

// racyMargin widens the racy window for filesystem clocks that are coarse
// (the kernel's tick) or whole seconds (and FAT's two): a file changed
// that close before a walk is read again at the next one.
const racyMargin = 2 * time.Second

// NewCache is an empty cache.
func NewCache() *Cache { return &Cache{dirs: map[string]*cacheDir{}} }

// Len is how many files the cache holds.
func (c *Cache) Len() int { return c.n }

// Changed reports whether the cache learned or forgot a file since it was
// made, loaded or last saved: when not, saving it again would write what
// its file already holds (the walks' marks are not part of it), so a
// caller can skip the write and its syncs.
func (c *Cache) Changed() bool { return c.changed }

// splitPath is the folder and name of the relative path p.
func splitPath(p string) (dir, name string) {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i], p[i+1:]
	}
	return "", p
}

// entry is the cache's entry of path p, nil when it has none.
func (c *Cache) entry(p string) *cacheEntry {
	dir, name := splitPath(p)
	d := c.dirs[dir]
	if d == nil {
		return nil
	}
	i, ok := slices.BinarySearchFunc(d.ents, name, func(ce cacheEntry, name string) int { return strings.Compare(ce.name, name) })
	if !ok {
		return nil
	}
	return &d.ents[i]
}

// cacheCursor finds the entries of one folder's files, asked in name
// order, in one pass over the folder's sorted entries.
type cacheCursor struct {
	ents []cacheEntry
	i    int
}

// cursor is a cursor over folder dir (relative, "" the root).
func (c *Cache) cursor(dir string) *cacheCursor {
	if d := c.dirs[dir]; d != nil {
		return &cacheCursor{ents: d.ents}
	}
	return &cacheCursor{}
}

// entry is the entry of name, nil when there is none; name must not sort
// before the one asked last.
func (k *cacheCursor) entry(name string) *cacheEntry {
	for k.i < len(k.ents) && k.ents[k.i].name < name {
		k.i++
	}
	if k.i < len(k.ents) && k.ents[k.i].name == name {
		return &k.ents[k.i]
	}
	return nil
}

// lookup is the hash of e when ce (the cache's entry of e.Path, or nil)
// holds its stat data unchanged and not racy; a hit is marked as seen by
// the walk of generation gen. Walks of several goroutines may look up at
// once (each path once): nothing writes the cache's map meanwhile.
func (ce *cacheEntry) lookup(e *Entry, gen uint32) (objects.ID, bool) {
	if ce == nil || ce.size != e.Size || ce.mtime != e.MtimeNS || ce.ctime != e.CtimeNS || ce.ino != e.Ino ||
		ce.mode != uint32(e.Mode) || ce.mtime >= ce.stamp || ce.ctime >= ce.stamp {
		return objects.ID{}, false
	}
	// Not racy under its stamp: it keeps it (a later stamp would say the
	// same; an earlier one, from a clock set back, could make it racy).
	ce.gen = gen
	return ce.hash, true
}

// pathsUnder lists the paths the cache holds at or under any of paths
// (relative, clean), a folder's files only when it may hold one.
func (c *Cache) pathsUnder(paths []string) []string {
	var out []string
	for dir, d := range c.dirs {
		if dir != "" && under(dir, paths) {
			for i := range d.ents {
				out = append(out, dir+"/"+d.ents[i].name)
			}
			continue
		}
		for _, q := range paths {
			qdir, name := splitPath(path.Clean(q))
			if qdir != dir {
				continue
			}
			if i, ok := slices.BinarySearchFunc(d.ents, name, func(ce cacheEntry, name string) int { return strings.Compare(ce.name, name) }); ok {
				out = append(out, join(dir, d.ents[i].name))
			}
		}
	}
	return out
}

// stampOf is the racy stamp of a walk that started at start.
func stampOf(start time.Time) int64 { return start.Add(-racyMargin).UnixNano() }

// learn ends a walk of generation gen (c.gen+1, taken when it started):
// the entries it hashed (read) join the cache, and, after a whole walk
// (hits, the count of files the cache gave it, not negative), the ones it
// neither found nor read leave it; after a partial one (hits -1), the
// paths removed yields leave it unless the walk found them.
func (c *Cache) learn(gen uint32, stamp int64, read []Entry, hits int, removed func(yield func(string) bool)) {
	touched := map[*cacheDir]string{} // folders with entries marked gone
	if removed != nil {
		for p := range removed {
			dir, _ := splitPath(p)
			if ce := c.entry(p); ce != nil && ce.gen != gen && !ce.gone {
				ce.gone = true
				touched[c.dirs[dir]] = dir
			}
		}
	}
	for d, dir := range touched {
		c.compact(dir, d, func(ce *cacheEntry) bool { return !ce.gone })
	}
	c.insert(gen, stamp, read)
	// Every entry a whole walk found or read has its gen: when they are
	// all there is, none is left to go, and the walk need not look.
	if hits >= 0 && c.n > hits+len(read) {
		for dir, d := range c.dirs {
			c.compact(dir, d, func(ce *cacheEntry) bool { return ce.gen == gen })
		}
	}
	c.gen = gen
}

// compact keeps the entries of folder dir (d) that keep says to, and
// drops the folder when none is left.
func (c *Cache) compact(dir string, d *cacheDir, keep func(*cacheEntry) bool) {
	n := len(d.ents)
	d.ents = slices.DeleteFunc(d.ents, func(ce cacheEntry) bool { return !keep(&ce) })
	if len(d.ents) != n {
		c.n -= n - len(d.ents)
		c.changed = true
	}
	if len(d.ents) == 0 {
		delete(c.dirs, dir)
	}
}

// insert puts the entries a walk of generation gen read in the cache, a
// folder at a time: each folder's new entries are merged into its sorted
// ones (a cold walk reads every file, so one at a time would move a large
// folder's entries once per file).
func (c *Cache) insert(gen uint32, stamp int64, read []Entry) {
	if len(read) == 0 {
		return
	}
	c.changed = true
	type one struct {
		dir, name string
		e         *Entry
	}
	all := make([]one, len(read))
	for i := range read {
		dir, name := splitPath(read[i].Path)
		all[i] = one{dir, name, &read[i]}
	}
	slices.SortFunc(all, func(a, b one) int {
		if c := strings.Compare(a.dir, b.dir); c != 0 {
			return c
		}
		return strings.Compare(a.name, b.name)
	})
	for len(all) > 0 {
		j := 1
		for j < len(all) && all[j].dir == all[0].dir {
			j++
		}
		group := all[:j]
		all = all[j:]
		dir := group[0].dir
		d := c.dirs[dir]
		if d == nil {
			// A path of the walk is part of its folder's string
			// (readNames): the cache keeps copies of its own.
			d = &cacheDir{}
			c.dirs[strings.Clone(dir)] = d
		}
		old := d.ents
		ents := make([]cacheEntry, 0, len(old)+len(group))
		i := 0
		for _, g := range group {
			for i < len(old) && old[i].name < g.name {
				ents = append(ents, old[i])
				i++
			}
			if i < len(old) && old[i].name == g.name {
				i++ // replaced
			} else {
				c.n++
			}
			e := g.e
			ents = append(ents, cacheEntry{name: strings.Clone(g.name), size: e.Size, mtime: e.MtimeNS, ctime: e.CtimeNS,
				ino: e.Ino, mode: uint32(e.Mode), stamp: stamp, hash: e.Hash, gen: gen})
		}
		d.ents = append(ents, old[i:]...)
	}
}

// The cache file (part of the format): derived data, rebuilt by the next
// walk when missing or unreadable.
//
//	"cairn-statcache\n"   16 bytes of magic
//	uvarint version       1
//	uvarint count
//	count entries, in no order:
//	  uvarint len, path   slash-separated, relative to the workspace
//	  varint size, varint mtime ns, varint ctime ns, uvarint inode,
//	  uvarint mode (Go fs.FileMode bits), varint stamp ns
//	  32 bytes            SHA-256 of the content
//	32 bytes              SHA-256 of everything before it
const (
	cacheMagic   = "cairn-statcache\n"
	cacheVersion = 1
)

var errCorrupt = errors.New("scope: stat cache corrupt")

// LoadCache reads the cache file name of fsys; a missing, unreadable or
// corrupt file is an empty cache.
func LoadCache(fsys vfs.FS, name string) *Cache {
	data, err := vfs.ReadFile(fsys, name)
	if err != nil {
		return NewCache()
	}
	c, err := decodeCache(data)
	if err != nil {
		return NewCache()
	}
	return c
}

func decodeCache(data []byte) (*Cache, error) {
	if len(data) < len(cacheMagic)+sha256.Size || string(data[:len(cacheMagic)]) != cacheMagic {
		return nil, errCorrupt
	}
	body, sum := data[:len(data)-sha256.Size], data[len(data)-sha256.Size:]
	if s := sha256.Sum256(body); !bytes.Equal(s[:], sum) {
		return nil, errCorrupt
	}
	r := bytes.NewReader(body[len(cacheMagic):])
	if v, err := binary.ReadUvarint(r); err != nil || v != cacheVersion {
		return nil, errCorrupt
	}
	n, err := binary.ReadUvarint(r)
	if err != nil || n > uint64(len(body)) {
		return nil, errCorrupt
	}
	c := NewCache()
	for range n {
		l, err := binary.ReadUvarint(r)
		if err != nil || l > uint64(r.Len()) {
			return nil, errCorrupt
		}
		p := make([]byte, l)
		io.ReadFull(r, p)
		var ce cacheEntry
		var mode uint64
		var errs [7]error
		ce.size, errs[0] = binary.ReadVarint(r)
		ce.mtime, errs[1] = binary.ReadVarint(r)
		ce.ctime, errs[2] = binary.ReadVarint(r)
		ce.ino, errs[3] = binary.ReadUvarint(r)
		mode, errs[4] = binary.ReadUvarint(r)
		ce.stamp, errs[5] = binary.ReadVarint(r)
		_, errs[6] = io.ReadFull(r, ce.hash[:])
		if errors.Join(errs[:]...) != nil || mode > 1<<32-1 {
			return nil, errCorrupt
		}
		ce.mode = uint32(mode)
		dir, name := splitPath(string(p))
		ce.name = name
		d := c.dirs[dir]
		if d == nil {
			d = &cacheDir{}
			c.dirs[dir] = d
		}
		d.ents = append(d.ents, ce)
	}
	if r.Len() != 0 {
		return nil, errCorrupt
	}
	for _, d := range c.dirs {
		slices.SortFunc(d.ents, func(a, b cacheEntry) int { return strings.Compare(a.name, b.name) })
		d.ents = slices.CompactFunc(d.ents, func(a, b cacheEntry) bool { return a.name == b.name })
		c.n += len(d.ents)
	}
	return c, nil
}

// DecodeCache reads the bytes of a cache file; anything else is an error.
func DecodeCache(data []byte) (*Cache, error) { return decodeCache(data) }

// Hashes calls fn with the content hash of every entry: the objects a
// later walk takes from the cache without reading, which must stay stored
// (a prune keeps them).
func (c *Cache) Hashes(fn func(objects.ID)) {
	for _, d := range c.dirs {
		for i := range d.ents {
			fn(d.ents[i].hash)
		}
	}
}

// Save writes the cache to the file name of fsys atomically (a temp file
// renamed over it, vfs.WriteAtomic).
func (c *Cache) Save(fsys vfs.FS, name string) error {
	err := vfs.WriteAtomic(fsys, name, func(w io.Writer) error {
		_, err := w.Write(c.encode())
		return err
	})
	if err == nil {
		c.changed = false
	}
	return err
}

func (c *Cache) encode() []byte {
	b := make([]byte, 0, 64+c.n*96)
	b = append(b, cacheMagic...)
	b = binary.AppendUvarint(b, cacheVersion)
	b = binary.AppendUvarint(b, uint64(c.n))
	for dir, d := range c.dirs {
		for i := range d.ents {
			b = appendEntry(b, dir, &d.ents[i])
		}
	}
	s := sha256.Sum256(b)
	return append(b, s[:]...)
}

// appendEntry appends one entry of the cache file, of folder dir.
func appendEntry(b []byte, dir string, ce *cacheEntry) []byte {
	l := len(ce.name)
	if dir != "" {
		l += len(dir) + 1
	}
	b = binary.AppendUvarint(b, uint64(l))
	if dir != "" {
		b = append(append(b, dir...), '/')
	}
	b = append(b, ce.name...)
	b = binary.AppendVarint(b, ce.size)
	b = binary.AppendVarint(b, ce.mtime)
	b = binary.AppendVarint(b, ce.ctime)
	b = binary.AppendUvarint(b, ce.ino)
	b = binary.AppendUvarint(b, uint64(ce.mode))
	b = binary.AppendVarint(b, ce.stamp)
	return append(b, ce.hash[:]...)
}
