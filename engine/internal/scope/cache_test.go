package scope

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
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
	for _, dir := range c.dirs {
		for i := range dir.ents {
			dir.ents[i].stamp += d.Nanoseconds()
		}
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
	e := cache.entry("f")
	e.stamp = e.mtime // mtime not older than the stamp
	e.hash = objects.ID{1}
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
	c.insert(1, 0, []Entry{{Path: "a", Size: 1, Hash: objects.ID{2}}})
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
	if c := LoadCache(disk, "c"); c.Len() != 1 || c.entry("a").hash != (objects.ID{2}) {
		t.Fatal("good cache not loaded")
	}
}

// A whole walk forgets the files gone from the tree; a rescan forgets the
// removed paths but keeps the ones it found again unchanged.
func TestCacheForgetsGoneFiles(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "a", "a")
	writeFile(t, root, "d/b", "b")
	writeFile(t, root, "d/c", "c")
	ageAll(t, root)
	cache := NewCache()
	prev := mustWalk(t, root, Options{Cache: cache})
	stampLater(cache, time.Hour)
	os.Remove(filepath.Join(root, "d/b"))
	got, err := Rescan(context.Background(), root, prev, []string{"d"}, Options{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if ok := cache.entry("d/b") != nil; ok || cache.Len() != 2 || len(got.Entries()) != 3 {
		t.Fatalf("after a rescan the cache holds %d entries (d/b: %v)", cache.Len(), ok)
	}
	ch := &countingHash{}
	mustWalk(t, root, Options{Cache: cache, Hash: ch.hash})
	if r := ch.take(); len(r) != 0 {
		t.Fatalf("files found unchanged by the rescan read again: %v", r)
	}
	os.Remove(filepath.Join(root, "a"))
	mustWalk(t, root, Options{Cache: cache})
	if cache.entry("a") != nil || cache.Len() != 1 {
		t.Fatalf("after a whole walk the cache holds %d entries", cache.Len())
	}
}

// cacheHashes is every path the cache holds, with its hash.
func cacheHashes(c *Cache) map[string]objects.ID {
	out := map[string]objects.ID{}
	for dir, d := range c.dirs {
		for _, ce := range d.ents {
			out[join(dir, ce.name)] = ce.hash
		}
	}
	return out
}

// fileHashes is every regular file of a walk, with its hash.
func fileHashes(tr *Tree) map[string]objects.ID {
	out := map[string]objects.ID{}
	for _, e := range tr.Entries() {
		if e.Mode.IsRegular() && e.Skipped == "" {
			out[e.Path] = e.Hash
		}
	}
	return out
}

// TestCacheFollowsRandomChanges: after each whole walk of a tree changed
// at random (files written, rewritten and removed, folders removed, names
// that sort around a folder's: "a", "a.b", "a/b", "a-"), the cache holds
// exactly the tree's files with their hashes, the walk read exactly the
// files changed since the last one, a partial walk (WalkPaths) keeps it
// so, and a save and a load give the same cache.
func TestCacheFollowsRandomChanges(t *testing.T) {
	disk, err := vfs.OpenDisk(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer disk.Close()
	root := t.TempDir()
	r := rand.New(rand.NewPCG(5, 5))
	dirs := []string{"", "a", "a.b", "a/b", "a-", "a/b/c", "z"}
	names := []string{"a", "a.b", "a-", "b", "f.go", "z"}
	ctx := context.Background()
	cache := NewCache()
	var changed []string
	for round := range 40 {
		for range 1 + r.IntN(8) {
			d, n := dirs[r.IntN(len(dirs))], names[r.IntN(len(names))]
			p := join(d, n)
			switch fi, err := os.Lstat(filepath.Join(root, p)); {
			case err == nil && fi.IsDir():
				if r.IntN(4) == 0 {
					os.RemoveAll(filepath.Join(root, p))
				}
			case err == nil && r.IntN(3) == 0:
				os.Remove(filepath.Join(root, p))
			default:
				if os.MkdirAll(filepath.Join(root, d), 0o755) == nil {
					if os.WriteFile(filepath.Join(root, p), fmt.Appendf(nil, "%d %s", round, p), 0o644) == nil {
						changed = append(changed, p)
					}
				}
			}
		}
		ch := &countingHash{}
		var tr *Tree
		if round%5 == 4 {
			// A partial walk of some paths, then a whole one.
			named := []string{dirs[r.IntN(len(dirs))], join(dirs[r.IntN(len(dirs))], names[r.IntN(len(names))])}
			if _, err := WalkPaths(ctx, root, named, Options{Cache: cache, Hash: ch.hash}); err != nil {
				t.Fatal(err)
			}
			stampLater(cache, time.Hour)
		}
		tr = mustWalk(t, root, Options{Cache: cache, Hash: ch.hash})
		stampLater(cache, time.Hour)
		files := fileHashes(tr)
		if got := cacheHashes(cache); !maps.Equal(got, files) {
			t.Fatalf("round %d: the cache holds %d paths, the tree %d files:\n%v\n%v", round, len(got), len(files), got, files)
		}
		if cache.Len() != len(files) {
			t.Fatalf("round %d: Len %d, want %d", round, cache.Len(), len(files))
		}
		// Every read file was changed (a file written twice is read once).
		for _, p := range ch.take() {
			if !slices.Contains(changed, p) {
				t.Fatalf("round %d: %s read again, unchanged", round, p)
			}
		}
		changed = changed[:0]
		if err := cache.Save(disk, "c"); err != nil {
			t.Fatal(err)
		}
		if got := cacheHashes(LoadCache(disk, "c")); !maps.Equal(got, files) {
			t.Fatalf("round %d: the loaded cache holds %d paths, want %d", round, len(got), len(files))
		}
	}
}

// TestCacheChanged: a cache is changed by a walk that reads a file or
// finds one gone, not by one the cache gave every file to, and a save or
// a load leaves it unchanged.
func TestCacheChanged(t *testing.T) {
	disk, err := vfs.OpenDisk(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer disk.Close()
	root := t.TempDir()
	writeFile(t, root, "a", "a")
	writeFile(t, root, "d/b", "b")
	cache := NewCache()
	if mustWalk(t, root, Options{Cache: cache}); !cache.Changed() {
		t.Fatal("a walk that read two files left the cache unchanged")
	}
	stampLater(cache, time.Hour)
	if err := cache.Save(disk, "c"); err != nil || cache.Changed() {
		t.Fatalf("saved: %v, changed %v", err, cache.Changed())
	}
	if mustWalk(t, root, Options{Cache: cache}); cache.Changed() {
		t.Fatal("a walk the cache gave every file changed it")
	}
	loaded := LoadCache(disk, "c")
	if mustWalk(t, root, Options{Cache: loaded}); loaded.Changed() || loaded.Len() != 2 {
		t.Fatalf("a loaded cache: changed %v, %d files", loaded.Changed(), loaded.Len())
	}
	os.Remove(filepath.Join(root, "d/b"))
	if mustWalk(t, root, Options{Cache: loaded}); !loaded.Changed() || loaded.Len() != 1 {
		t.Fatalf("a walk that found a file gone: changed %v, %d files", loaded.Changed(), loaded.Len())
	}
}
