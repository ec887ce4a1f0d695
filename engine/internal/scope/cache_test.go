package scope

import (
	"crypto/sha256"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"cairn/internal/vfs"
	"cairn/objects"
)

// countingHash hashes as the walk does and records which paths it read.
type countingHash struct {
	mu   sync.Mutex
	read []string
}

func (c *countingHash) hash(rel string, r io.Reader) (objects.ID, error) {
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return objects.ID{}, err
	}
	c.mu.Lock()
	c.read = append(c.read, rel)
	c.mu.Unlock()
	var id objects.ID
	h.Sum(id[:0])
	return id, nil
}

func (c *countingHash) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.read
	c.read = nil
	slices.Sort(r)
	return r
}

// ageAll sets every file's mtime an hour back, out of the racy window.
func ageAll(t *testing.T, root string) {
	old := time.Now().Add(-time.Hour)
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			os.Chtimes(p, old, old)
		}
		return nil
	})
}

// The second walk reads again only the files whose stat changed, and the
// cache survives a save and a load.
func TestCacheSecondWalkRereadsChangedOnly(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	for _, f := range []string{"a", "b", "c/d", "c/e"} {
		writeFile(t, root, f, "content of "+f)
	}
	ageAll(t, root)
	cache := NewCache()
	ch := &countingHash{}
	first := mustWalk(t, root, Options{Cache: cache, Hash: ch.hash})
	if got := ch.take(); len(got) != 4 {
		t.Fatalf("first walk read %v, want all 4", got)
	}
	// The files' ctimes are now, racy for the first walk: move its stamp
	// an hour on (the racy rule has its own test below).
	stampLater(cache, time.Hour)

	disk, err := vfs.OpenDisk(state)
	if err != nil {
		t.Fatal(err)
	}
	defer disk.Close()
	if err := cache.Save(disk, "stat.cache"); err != nil {
		t.Fatal(err)
	}
	loaded := LoadCache(disk, "stat.cache")
	if loaded.Len() != 4 {
		t.Fatalf("loaded %d entries", loaded.Len())
	}

	writeFile(t, root, "c/d", "changed, longer")
	second := mustWalk(t, root, Options{Cache: loaded, Hash: ch.hash})
	if got := ch.take(); !slices.Equal(got, []string{"c/d"}) {
		t.Fatalf("second walk read %v, want only c/d", got)
	}
	if d := Diff(first, second); len(d) != 1 || d[0].Path != "c/d" || d[0].Op != Modified {
		t.Fatalf("diff %+v", d)
	}
}

// stampLater moves every stamp of c on by d, as if its walk had run that
// much later.
func stampLater(c *Cache, d time.Duration) {
	for p, e := range c.entries {
		e.stamp += d.Nanoseconds()
		c.entries[p] = e
	}
}

// Git's racy rule: an entry whose mtime is not older than its stamp is
// hashed again, even with the same stat data.
func TestCacheRacyEntryIsRehashed(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "f", "v1")
	cache := NewCache()
	ch := &countingHash{}
	mustWalk(t, root, Options{Cache: cache, Hash: ch.hash})
	ch.take()
	// Just written: inside the racy window of the walk that read it.
	mustWalk(t, root, Options{Cache: cache, Hash: ch.hash})
	if got := ch.take(); !slices.Equal(got, []string{"f"}) {
		t.Fatalf("racy file not re-read: %v", got)
	}
	// The same stat data, stamped after the file's times: trusted.
	stampLater(cache, time.Hour)
	mustWalk(t, root, Options{Cache: cache, Hash: ch.hash})
	if got := ch.take(); len(got) != 0 {
		t.Fatalf("settled file re-read: %v", got)
	}
	// And a change of content within the same stat data (what the rule
	// protects) is caught while racy: fake it by restoring the stat.
	e := cache.entries["f"]
	e.stamp = e.mtime // mtime not older than the stamp
	e.hash = objects.ID{1}
	cache.entries["f"] = e
	tr := mustWalk(t, root, Options{Cache: cache, Hash: ch.hash})
	if entry(t, tr, "f").Hash != objects.Sum([]byte("v1")) {
		t.Fatal("racy entry's stale hash was used")
	}
}

func TestCacheCorruptOrMissingIsEmpty(t *testing.T) {
	disk, err := vfs.OpenDisk(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer disk.Close()
	if c := LoadCache(disk, "none"); c.Len() != 0 {
		t.Fatal("missing cache not empty")
	}
	c := NewCache()
	c.entries["a"] = cacheEntry{size: 1, hash: objects.ID{2}}
	if err := c.Save(disk, "c"); err != nil {
		t.Fatal(err)
	}
	good, _ := vfs.ReadFile(disk, "c")
	for i := range good {
		bad := slices.Clone(good)
		bad[i] ^= 0x40
		vfs.WriteFileAtomic(disk, "c", bad)
		if c := LoadCache(disk, "c"); c.Len() != 0 {
			t.Fatalf("flipped byte %d: loaded %d entries", i, c.Len())
		}
	}
	vfs.WriteFileAtomic(disk, "c", good[:len(good)/2])
	if c := LoadCache(disk, "c"); c.Len() != 0 {
		t.Fatal("truncated cache loaded")
	}
	vfs.WriteFileAtomic(disk, "c", good)
	if c := LoadCache(disk, "c"); c.Len() != 1 || c.entries["a"].hash != (objects.ID{2}) {
		t.Fatal("good cache not loaded")
	}
}
