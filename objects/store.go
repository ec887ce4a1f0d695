package objects

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"

	"cairn/internal/vfs"
)

// Store is a folder of objects in a vfs.FS. It is safe for concurrent use,
// and by several processes at once.
type Store struct {
	fsys vfs.FS
	dir  string

	mu     sync.Mutex // guards ready, shards and unsynced
	ready  bool       // dir exists and its entry is durable
	shards [256]bool  // shard folder exists and its entry is durable
	// unsynced holds the objects this Store renamed into place whose shard
	// folder has not been synced since: in flight, or their sync failed.
	// Their entries may not be durable, so a Put of one writes it again.
	unsynced map[ID]bool
	// batchOpen, when not zero, replaces the const of that name (tests:
	// a batch that flushes every few objects).
	batchOpen int
	// fetcher, when set, is asked for an object a read finds missing.
	fetcher Fetcher
}

// New returns the store in folder dir of fsys ("objects"). The folder is
// created by the first Put.
func New(fsys vfs.FS, dir string) *Store {
	dir = path.Clean(dir)
	return &Store{fsys: fsys, dir: dir}
}

// Dir is the store's folder in its FS.
func (s *Store) Dir() string { return s.dir }

// Path is the name, relative to the store's FS, of object id stored raw
// (compressed adds ".zst").
func (s *Store) Path(id ID, compressed bool) string {
	h := id.String()
	p := s.dir + "/" + h[:2] + "/" + h[2:]
	if compressed {
		p += zstSuffix
	}
	return p
}

func (s *Store) shardDir(id ID) string { return s.dir + "/" + id.String()[:2] }

// ensureStore creates the store folder if needed and makes its entry, and
// that of every parent it had to create, durable.
func (s *Store) ensureStore() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ready {
		return nil
	}
	// Find the top-most missing folder, so only the parents whose entries
	// change get synced.
	var missing []string
	for d := s.dir; d != "." && d != "/"; d = path.Dir(d) {
		if _, err := s.fsys.Stat(d); err == nil {
			break
		} else if !vfs.IsNotExist(err) {
			return fmt.Errorf("objects: %w", err)
		}
		missing = append(missing, d)
	}
	if len(missing) > 0 {
		if err := s.fsys.MkdirAll(s.dir, vfs.DirPerm); err != nil {
			return fmt.Errorf("objects: create store: %w", err)
		}
		for i := len(missing) - 1; i >= 0; i-- {
			if err := s.fsys.SyncDir(path.Dir(missing[i])); err != nil {
				return fmt.Errorf("objects: create store: %w", err)
			}
		}
	}
	s.ready = true
	return nil
}

// ensureShard creates the shard folder of id if needed and makes its entry
// durable (by syncing the store folder) before anything is renamed into it.
func (s *Store) ensureShard(id ID) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shards[id[0]] {
		return nil
	}
	d := s.shardDir(id)
	if _, err := s.fsys.Stat(d); err != nil {
		if !vfs.IsNotExist(err) {
			return fmt.Errorf("objects: %w", err)
		}
		if err := s.fsys.MkdirAll(d, vfs.DirPerm); err != nil {
			return fmt.Errorf("objects: create shard: %w", err)
		}
		if err := s.fsys.SyncDir(s.dir); err != nil {
			return fmt.Errorf("objects: create shard: %w", err)
		}
	}
	s.shards[id[0]] = true
	return nil
}

// ensureShards creates the shard folders of ids that are missing, and
// makes their entries durable with one sync of the store folder (a
// Batch's flush: one sync for all the shards it needs, not one each).
func (s *Store) ensureShards(ids []ID) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	made := false
	for _, id := range ids {
		if s.shards[id[0]] {
			continue
		}
		d := s.shardDir(id)
		if _, err := s.fsys.Stat(d); err == nil {
			s.shards[id[0]] = true
			continue
		} else if !vfs.IsNotExist(err) {
			return fmt.Errorf("objects: %w", err)
		}
		if err := s.fsys.MkdirAll(d, vfs.DirPerm); err != nil {
			return fmt.Errorf("objects: create shard: %w", err)
		}
		made = true
	}
	if made {
		if err := s.fsys.SyncDir(s.dir); err != nil {
			return fmt.Errorf("objects: create shard: %w", err)
		}
	}
	for _, id := range ids {
		s.shards[id[0]] = true
	}
	return nil
}

// markUnsynced records that object id is being renamed into place and its
// entry is not known durable until its shard folder is synced.
func (s *Store) markUnsynced(id ID) {
	s.mu.Lock()
	if s.unsynced == nil {
		s.unsynced = map[ID]bool{}
	}
	s.unsynced[id] = true
	s.mu.Unlock()
}

// synced records that id's shard folder was synced after id was renamed
// into place: its entry is durable.
func (s *Store) synced(id ID) {
	s.mu.Lock()
	delete(s.unsynced, id)
	s.mu.Unlock()
}

// isUnsynced reports whether id's entry is not known durable (markUnsynced).
func (s *Store) isUnsynced(id ID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.unsynced[id]
}

func (s *Store) forgetShard(id ID) {
	s.mu.Lock()
	s.shards[id[0]] = false
	s.mu.Unlock()
}

// Has reports whether the store holds object id (raw or compressed). It
// does not verify it.
func (s *Store) Has(id ID) (bool, error) {
	_, _, err := s.find(id)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// find stats the stored file of id: raw first, then compressed.
func (s *Store) find(id ID) (name string, size int64, err error) {
	for _, z := range [2]bool{false, true} {
		p := s.Path(id, z)
		fi, err := s.fsys.Stat(p)
		if err == nil {
			if !fi.Mode().IsRegular() {
				return "", 0, fmt.Errorf("objects: %s: not a regular file", p)
			}
			return p, fi.Size(), nil
		}
		if !vfs.IsNotExist(err) {
			return "", 0, fmt.Errorf("objects: %w", err)
		}
	}
	return "", 0, notFound(id)
}

// Stat describes object id without verifying it. Size is the content's size:
// the file's size for a raw object; for a compressed one, the size in the
// zstd frame header, or, when the header has none, the size found by
// decoding it.
func (s *Store) Stat(id ID) (Info, error) {
	name, stored, err := s.find(id)
	if errors.Is(err, ErrNotFound) {
		if ok, ferr := s.fetch(context.Background(), id); ferr != nil {
			return Info{}, ferr
		} else if ok {
			name, stored, err = s.find(id)
		}
	}
	if err != nil {
		return Info{}, err
	}
	return s.statFile(id, name, stored, true)
}

// statFile describes the stored file name of id. When a compressed file's
// frame header has no content size, it decodes the frame to count it if
// count is set, and leaves Size -1 otherwise.
func (s *Store) statFile(id ID, name string, stored int64, count bool) (Info, error) {
	info := Info{ID: id, Size: stored, Stored: stored}
	if !strings.HasSuffix(name, zstSuffix) {
		return info, nil
	}
	info.Compressed = true
	f, err := s.fsys.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return Info{}, fmt.Errorf("objects: %w", err)
	}
	defer f.Close()
	var hdr [zstd.HeaderMaxSize]byte
	n, err := io.ReadFull(f, hdr[:])
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return Info{}, fmt.Errorf("objects: %w", err)
	}
	var h zstd.Header
	if err := h.Decode(hdr[:n]); err != nil {
		return Info{}, mismatch(id, err)
	}
	if h.HasFCS {
		info.Size = int64(h.FrameContentSize)
		return info, nil
	}
	if !count {
		info.Size = -1
		return info, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return Info{}, fmt.Errorf("objects: %w", err)
	}
	d, err := getDecoder(f)
	if err != nil {
		return Info{}, mismatch(id, err)
	}
	defer putDecoder(d)
	size, err := d.WriteTo(io.Discard)
	if err != nil {
		return Info{}, mismatch(id, err)
	}
	info.Size = size
	return info, nil
}

// Remove deletes object id (both forms, if both exist) and makes the removal
// durable. It returns an error wrapping ErrNotFound when there is none.
func (s *Store) Remove(id ID) error {
	found := false
	for _, z := range [2]bool{false, true} {
		err := s.fsys.Remove(s.Path(id, z))
		if err == nil {
			found = true
		} else if !vfs.IsNotExist(err) {
			return fmt.Errorf("objects: remove: %w", err)
		}
	}
	if !found {
		return notFound(id)
	}
	if err := s.fsys.SyncDir(s.shardDir(id)); err != nil {
		return fmt.Errorf("objects: remove: %w", err)
	}
	return nil
}
