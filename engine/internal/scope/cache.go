package scope

import (
	"cairn/internal/vfs"
)

// Cache maps a path and its stat data to its content hash, so a walk reads
// again only the files whose stat changed. Its zero value is not usable:
// NewCache or LoadCache.
type Cache struct {
	entries map[string]cacheEntry
	// stamp (ns since 1970): an entry whose mtime is not older is racy
	// (git's rule) and hashed again.
	stamp int64
}

type cacheEntry struct {
	size, mtime, ctime int64
	ino                uint64
	mode               uint32
	hash               [32]byte
}

// NewCache is an empty cache.
func NewCache() *Cache { return &Cache{entries: map[string]cacheEntry{}} }

// LoadCache reads the cache file name of fsys; a missing or corrupt file is
// an empty cache.
func LoadCache(fsys vfs.FS, name string) *Cache {
	return NewCache()
}

// Save writes the cache to the file name of fsys atomically.
func (c *Cache) Save(fsys vfs.FS, name string) error {
	return errNotBuilt
}

// Len is how many paths the cache holds.
func (c *Cache) Len() int { return len(c.entries) }
