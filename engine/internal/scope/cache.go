package scope

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io"
	"time"

	"cairn/internal/vfs"
	"cairn/objects"
)

// Cache maps a path and its stat data to its content hash, so a walk reads
// again only the files whose stat changed. NewCache or LoadCache make one;
// like the rest of the package it is not safe for concurrent use by
// several walks.
type Cache struct {
	entries map[string]*cacheEntry
	// gen counts the walks that taught the cache: a walk marks each entry
	// it finds unchanged with its own gen (through the pointer, so no map
	// write while folders are read in parallel), and after a whole walk
	// the entries it did not mark are gone from the tree.
	gen uint32
}

// cacheEntry is what the cache knows of one regular file.
type cacheEntry struct {
	size, mtime, ctime int64
	ino                uint64
	mode               uint32
	// stamp (ns since 1970) is when the walk that read the hash started,
	// less racyMargin: git's racy rule, an mtime or ctime not older than
	// it may hide a change made in the same clock tick as the read.
	stamp int64
	hash  objects.ID
	gen   uint32
}

// racyMargin widens the racy window for filesystem clocks that are coarse
// (the kernel's tick) or whole seconds (and FAT's two): a file changed
// that close before a walk is read again at the next one.
const racyMargin = 2 * time.Second

// NewCache is an empty cache.
func NewCache() *Cache { return &Cache{entries: map[string]*cacheEntry{}} }

// Len is how many files the cache holds.
func (c *Cache) Len() int { return len(c.entries) }

// lookup is the hash of e when the cache holds its stat data unchanged and
// not racy; a hit is marked as seen by the walk of generation gen. Walks of several goroutines may
// look up at once (each path once): nothing writes the map meanwhile.
func (c *Cache) lookup(e *Entry, gen uint32) (objects.ID, bool) {
	ce := c.entries[e.Path]
	if ce == nil || ce.size != e.Size || ce.mtime != e.MtimeNS || ce.ctime != e.CtimeNS || ce.ino != e.Ino ||
		ce.mode != uint32(e.Mode) || ce.mtime >= ce.stamp || ce.ctime >= ce.stamp {
		return objects.ID{}, false
	}
	// Not racy under its stamp: it keeps it (a later stamp would say the
	// same; an earlier one, from a clock set back, could make it racy).
	ce.gen = gen
	return ce.hash, true
}

// stampOf is the racy stamp of a walk that started at start.
func stampOf(start time.Time) int64 { return start.Add(-racyMargin).UnixNano() }

// learn ends a walk of generation gen (c.gen+1, taken when it started):
// the entries it hashed (read) join the cache, and, after a whole walk
// (whole), the ones it neither found nor read leave it; after a partial
// one, the paths removed yields leave it unless the walk found them.
func (c *Cache) learn(gen uint32, stamp int64, read []Entry, whole bool, removed func(yield func(string) bool)) {
	if removed != nil {
		for p := range removed {
			if ce := c.entries[p]; ce != nil && ce.gen != gen {
				delete(c.entries, p)
			}
		}
	}
	for i := range read {
		e := &read[i]
		c.entries[e.Path] = &cacheEntry{size: e.Size, mtime: e.MtimeNS, ctime: e.CtimeNS, ino: e.Ino, mode: uint32(e.Mode),
			stamp: stamp, hash: e.Hash, gen: gen}
	}
	if whole {
		for p, ce := range c.entries {
			if ce.gen != gen {
				delete(c.entries, p)
			}
		}
	}
	c.gen = gen
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
	c := &Cache{entries: make(map[string]*cacheEntry, n)}
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
		c.entries[string(p)] = &ce
	}
	if r.Len() != 0 {
		return nil, errCorrupt
	}
	return c, nil
}

// Save writes the cache to the file name of fsys atomically (a temp file
// renamed over it, vfs.WriteAtomic).
func (c *Cache) Save(fsys vfs.FS, name string) error {
	return vfs.WriteAtomic(fsys, name, func(w io.Writer) error {
		_, err := w.Write(c.encode())
		return err
	})
}

func (c *Cache) encode() []byte {
	b := make([]byte, 0, 64+len(c.entries)*96)
	b = append(b, cacheMagic...)
	b = binary.AppendUvarint(b, cacheVersion)
	b = binary.AppendUvarint(b, uint64(len(c.entries)))
	for p, ce := range c.entries {
		b = binary.AppendUvarint(b, uint64(len(p)))
		b = append(b, p...)
		b = binary.AppendVarint(b, ce.size)
		b = binary.AppendVarint(b, ce.mtime)
		b = binary.AppendVarint(b, ce.ctime)
		b = binary.AppendUvarint(b, ce.ino)
		b = binary.AppendUvarint(b, uint64(ce.mode))
		b = binary.AppendVarint(b, ce.stamp)
		b = append(b, ce.hash[:]...)
	}
	s := sha256.Sum256(b)
	return append(b, s[:]...)
}
