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
	entries map[string]cacheEntry
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
}

// racyMargin widens the racy window for filesystem clocks that are coarse
// (the kernel's tick) or whole seconds (and FAT's two): a file changed
// that close before a walk is read again at the next one.
const racyMargin = 2 * time.Second

// NewCache is an empty cache.
func NewCache() *Cache { return &Cache{entries: map[string]cacheEntry{}} }

// Len is how many files the cache holds.
func (c *Cache) Len() int { return len(c.entries) }

// lookup is the hash of e when the cache holds its stat data unchanged and
// not racy.
func (c *Cache) lookup(e *Entry) (objects.ID, bool) {
	ce, ok := c.entries[e.Path]
	if !ok || ce.size != e.Size || ce.mtime != e.MtimeNS || ce.ctime != e.CtimeNS || ce.ino != e.Ino ||
		ce.mode != uint32(e.Mode) || ce.mtime >= ce.stamp || ce.ctime >= ce.stamp {
		return objects.ID{}, false
	}
	return ce.hash, true
}

// learn makes the cache hold the regular files of t, from a walk that
// started at start. Each gets that walk's stamp: the walk read it, or
// found its stat data unchanged and not racy under an older stamp, so not
// racy under this one either.
func (c *Cache) learn(t *Tree, start time.Time) {
	stamp := start.Add(-racyMargin).UnixNano()
	next := make(map[string]cacheEntry, t.Files)
	for i := range t.Entries {
		e := &t.Entries[i]
		if !e.Mode.IsRegular() || e.Skipped != "" {
			continue
		}
		next[e.Path] = cacheEntry{size: e.Size, mtime: e.MtimeNS, ctime: e.CtimeNS, ino: e.Ino, mode: uint32(e.Mode), stamp: stamp, hash: e.Hash}
	}
	c.entries = next
}

// learnPaths is learn for a partial walk (WalkPaths, Rescan): it drops
// the paths removed says, then holds the paths of t, leaving the rest.
func (c *Cache) learnPaths(t *Tree, start time.Time, removed func(yield func(string) bool)) {
	stamp := start.Add(-racyMargin).UnixNano()
	for p := range removed {
		delete(c.entries, p)
	}
	for i := range t.Entries {
		e := &t.Entries[i]
		if !e.Mode.IsRegular() || e.Skipped != "" {
			continue
		}
		c.entries[e.Path] = cacheEntry{size: e.Size, mtime: e.MtimeNS, ctime: e.CtimeNS, ino: e.Ino, mode: uint32(e.Mode), stamp: stamp, hash: e.Hash}
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
	c := &Cache{entries: make(map[string]cacheEntry, n)}
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
		c.entries[string(p)] = ce
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
