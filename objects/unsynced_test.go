package objects

import (
	"errors"
	"strings"
	"syscall"
	"testing"

	"cairn/internal/vfs"
)

// hookFS runs its hooks ahead of the Rename and SyncDir calls of the FS it
// wraps: a test puts another writer's work at the moment it matters.
type hookFS struct {
	vfs.FS
	beforeRename  func(oldname, newname string)
	beforeSyncDir func(name string)
}

func (h *hookFS) Rename(oldname, newname string) error {
	if h.beforeRename != nil {
		h.beforeRename(oldname, newname)
	}
	return h.FS.Rename(oldname, newname)
}

func (h *hookFS) SyncDir(name string) error {
	if h.beforeSyncDir != nil {
		h.beforeSyncDir(name)
	}
	return h.FS.SyncDir(name)
}

// TestFailedFolderSyncKeepsAnotherWritersObject: between a Put's check that
// its content is not stored and its rename, another writer (its own Store,
// as another process has) stores the same content, and a journal of its
// may name it from then on. The first Put's folder sync fails: the object
// must still be there, whole.
func TestFailedFolderSyncKeepsAnotherWritersObject(t *testing.T) {
	for name, b := range crashContents() {
		m := vfs.NewMem()
		f := vfs.NewFaulty(m)
		id := Sum(b)
		shard := "objects/" + id.String()[:2]
		other := New(m, "objects")
		fired := false
		h := &hookFS{FS: f, beforeRename: func(_, newname string) {
			if fired || !strings.HasPrefix(newname, shard+"/") {
				return
			}
			fired = true
			if info, err := other.PutBytes(ctx, b); err != nil || info.Existed {
				t.Fatalf("%s: the other writer: %+v %v", name, info, err)
			}
			f.Inject(vfs.Rule{Op: vfs.OpSync, Path: shard, Count: 1})
		}}
		_, err := New(h, "objects").PutBytes(ctx, b)
		if !fired || !errors.Is(err, syscall.EIO) {
			t.Fatalf("%s: fired %v, Put: %v", name, fired, err)
		}
		if err := other.Verify(ctx, id); err != nil {
			t.Fatalf("%s: a failed folder sync took away the object another writer stored: %v", name, err)
		}
	}
}

// TestFailedFolderSyncWrittenAgain: after a Put's folder sync fails, its
// object stays but is not known durable; the next Put of the content must
// write and sync it again rather than take it as stored, so it survives a
// power loss.
func TestFailedFolderSyncWrittenAgain(t *testing.T) {
	for name, b := range crashContents() {
		m := vfs.NewMem()
		f := vfs.NewFaulty(m)
		s := New(f, "objects")
		id := Sum(b)
		f.Inject(vfs.Rule{Op: vfs.OpSync, Path: s.shardDir(id), Count: 1})
		if _, err := s.PutBytes(ctx, b); !errors.Is(err, syscall.EIO) {
			t.Fatalf("%s: Put: %v, want EIO", name, err)
		}
		if err := s.Verify(ctx, id); err != nil {
			t.Fatalf("%s: the failed folder sync did not keep the object: %v", name, err)
		}
		info, err := s.PutBytes(ctx, b)
		if err != nil || info.Existed {
			t.Fatalf("%s: Put after the failed sync: %+v %v, want it written again", name, info, err)
		}
		m.Crash()
		if err := New(m, "objects").Verify(ctx, id); err != nil {
			t.Fatalf("%s: acknowledged object lost in a crash: %v", name, err)
		}
	}
}

// TestPutDuringAnotherPutsFolderSync: a Put of a content that another Put
// of the same Store has renamed into place but not yet synced must not take
// it as stored: it is acknowledged only once an entry is durable.
func TestPutDuringAnotherPutsFolderSync(t *testing.T) {
	for name, b := range crashContents() {
		m := vfs.NewMem()
		id := Sum(b)
		var s *Store
		fired, present := false, false
		h := &hookFS{FS: m, beforeSyncDir: func(dir string) {
			if fired || dir != s.shardDir(id) {
				return
			}
			fired = true
			info, err := s.PutBytes(ctx, b)
			if err != nil {
				t.Fatalf("%s: the second Put: %v", name, err)
			}
			if info.Existed {
				t.Errorf("%s: the second Put took an entry not yet synced as stored", name)
			}
			m.Crash()
			present = New(m, "objects").Verify(ctx, id) == nil
		}}
		s = New(h, "objects")
		s.PutBytes(ctx, b) // its fate is the crash's; the second Put was acknowledged
		if !fired || !present {
			t.Fatalf("%s: fired %v; the acknowledged object survived the crash: %v", name, fired, present)
		}
	}
}
