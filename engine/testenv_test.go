package engine

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"cairn/internal/vfs"
)

// storeSpec says how a test's store is made. openStore is the one builder
// the engine's test envs (snapEnv, rvEnv, memEnv, crashEnv, degradeEnv and
// the fault envs) open their stores with.
type storeSpec struct {
	// mem, when set, holds the state folder (named "/mem" in messages); nil
	// opens a fresh state folder on the real disk.
	mem *vfs.Mem
	// home is the state folder on the real disk; "" makes a fresh one.
	home string
	// faults puts mem behind a fault injector (openedStore.faulty); faulty,
	// when set, is the one to use (an env that reopens its store keeps it).
	faults bool
	faulty *vfs.Faulty
	// wsOnState opens every workspace's files on the state folder's
	// filesystem (mem, or its fault injector), so a crash drops both.
	wsOnState bool
	// clock, when set, is the store's clock.
	clock func() time.Time
	// config is written to config.json when not "".
	config string
	// opts are further options of the store.
	opts []Option
	// closedByCaller leaves closing the store to the env (one that reopens it).
	closedByCaller bool
}

// openedStore is a store a test opened, with the filesystems under it.
type openedStore struct {
	*Store
	mem    *vfs.Mem    // nil on the real disk
	faulty *vfs.Faulty // nil without faults
	home   string      // the state folder on the real disk
}

// openStore opens a store as sp says and closes it when the test ends.
func openStore(t *testing.T, sp storeSpec) openedStore {
	t.Helper()
	ts := openedStore{mem: sp.mem}
	opts := append([]Option(nil), sp.opts...)
	if sp.clock != nil {
		opts = append(opts, WithClock(sp.clock))
	}
	var err error
	if sp.mem == nil {
		ts.home = sp.home
		if ts.home == "" {
			ts.home = filepath.Join(t.TempDir(), "home")
		}
		ts.Store, err = Open(ts.home, opts...)
	} else {
		var fsys vfs.FS = sp.mem
		ts.faulty = sp.faulty
		if ts.faulty == nil && sp.faults {
			ts.faulty = vfs.NewFaulty(sp.mem)
		}
		if ts.faulty != nil {
			fsys = ts.faulty
		}
		if sp.wsOnState {
			opts = append(opts, WithWorkspaceFS(func(string) (vfs.FS, error) { return fsys, nil }))
		}
		ts.Store, err = OpenFS(fsys, "/mem", opts...)
	}
	if err != nil {
		t.Fatal(err)
	}
	if !sp.closedByCaller {
		t.Cleanup(func() { ts.Close() })
	}
	if sp.config != "" {
		if sp.mem == nil {
			err = os.WriteFile(filepath.Join(ts.home, "config.json"), []byte(sp.config), 0o600)
		} else {
			err = vfs.WriteFileAtomic(sp.mem, "config.json", []byte(sp.config))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return ts
}
