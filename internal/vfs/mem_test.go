package vfs_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"testing"
	"time"

	"cairn/internal/vfs"
)

// put creates or truncates name with data; sync says whether the file's
// data is synced (its folder never is).
func put(t *testing.T, fsys vfs.FS, name, data string, sync bool) {
	t.Helper()
	f, err := fsys.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, vfs.FilePerm)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := io.WriteString(f, data); err != nil {
		t.Fatal(err)
	}
	if sync {
		if err := f.Sync(); err != nil {
			t.Fatal(err)
		}
	}
}

func syncDir(t *testing.T, fsys vfs.FS, name string) {
	t.Helper()
	if err := fsys.SyncDir(name); err != nil {
		t.Fatal(err)
	}
}

func want(t *testing.T, fsys vfs.FS, name, data string) {
	t.Helper()
	got, err := vfs.ReadFile(fsys, name)
	if err != nil {
		t.Fatalf("read %s: %v", name, err)
	}
	if string(got) != data {
		t.Fatalf("%s = %q, want %q", name, got, data)
	}
}

func gone(t *testing.T, fsys vfs.FS, name string) {
	t.Helper()
	if _, err := fsys.Lstat(name); !vfs.IsNotExist(err) {
		t.Fatalf("%s: %v, want gone", name, err)
	}
}

func TestMemCrashKeepsSyncedData(t *testing.T) {
	m := vfs.NewMem()
	put(t, m, "f", "synced", true)
	syncDir(t, m, ".")
	f, err := m.OpenFile("f", os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte(" and not")); err != nil {
		t.Fatal(err)
	}
	want(t, m, "f", "synced and not")
	put(t, m, "g", "never synced", true) // data synced, entry not
	m.Crash()
	want(t, m, "f", "synced")
	gone(t, m, "g")
	if _, err := f.Write([]byte("x")); !errors.Is(err, vfs.ErrCrashed) {
		t.Fatalf("write on old handle: %v, want ErrCrashed", err)
	}
	if _, err := f.Read(make([]byte, 1)); !errors.Is(err, vfs.ErrCrashed) {
		t.Fatalf("read on old handle: %v, want ErrCrashed", err)
	}
	if err := f.Sync(); !errors.Is(err, vfs.ErrCrashed) {
		t.Fatalf("sync on old handle: %v, want ErrCrashed", err)
	}
	if err := f.Close(); err != nil {
		t.Fatalf("close of old handle: %v", err)
	}
	want(t, m, "f", "synced")
	// The crashed state is the new durable state: writes go on from it.
	put(t, m, "f", "after", true)
	m.Crash()
	want(t, m, "f", "after")
}

func TestMemCrashTruncateAndOverwrite(t *testing.T) {
	m := vfs.NewMem()
	put(t, m, "f", "0123456789", true)
	syncDir(t, m, ".")
	f, err := m.OpenFile("f", os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(3); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("AB")); err != nil {
		t.Fatal(err)
	}
	want(t, m, "f", "AB2")
	m.Crash()
	want(t, m, "f", "0123456789")
}

func TestMemCrashDropsUnsyncedEntries(t *testing.T) {
	m := vfs.NewMem()
	if err := m.MkdirAll("d", vfs.DirPerm); err != nil {
		t.Fatal(err)
	}
	syncDir(t, m, ".")
	put(t, m, "d/f", "data", true) // file synced, d not
	// x is synced inside, but x itself is never synced into the root.
	if err := m.MkdirAll("x/y", vfs.DirPerm); err != nil {
		t.Fatal(err)
	}
	put(t, m, "x/y/f", "data", true)
	syncDir(t, m, "x/y")
	syncDir(t, m, "x")
	m.Crash()
	if fi, err := m.Stat("d"); err != nil || !fi.IsDir() {
		t.Fatalf("d: %v %v", fi, err)
	}
	gone(t, m, "d/f")
	gone(t, m, "x")
	ents, err := m.ReadDir(".")
	if err != nil || len(ents) != 1 || ents[0].Name() != "d" {
		t.Fatalf("root = %v %v", ents, err)
	}

	// Once the folders are synced, a crash keeps them.
	put(t, m, "d/f", "data", true)
	syncDir(t, m, "d")
	m.Crash()
	want(t, m, "d/f", "data")
}

func TestMemCrashUndoesRenameAndRemove(t *testing.T) {
	m := vfs.NewMem()
	if err := m.MkdirAll("sub", vfs.DirPerm); err != nil {
		t.Fatal(err)
	}
	put(t, m, "a", "old", true)
	put(t, m, "b", "new", true)
	put(t, m, "gone", "kept", true)
	syncDir(t, m, ".")
	if err := m.Rename("b", "a"); err != nil {
		t.Fatal(err)
	}
	if err := m.Remove("gone"); err != nil {
		t.Fatal(err)
	}
	if err := m.Rename("a", "sub/a"); err != nil {
		t.Fatal(err)
	}
	gone(t, m, "a")
	want(t, m, "sub/a", "new")
	m.Crash()
	want(t, m, "a", "old")
	want(t, m, "b", "new")
	want(t, m, "gone", "kept")
	gone(t, m, "sub/a")

	// Renamed and synced: the new state survives.
	if err := m.Rename("b", "a"); err != nil {
		t.Fatal(err)
	}
	syncDir(t, m, ".")
	m.Crash()
	want(t, m, "a", "new")
	gone(t, m, "b")
}

func TestMemSymlinkDurability(t *testing.T) {
	m := vfs.NewMem()
	put(t, m, "t", "x", true)
	if err := m.Symlink("t", "l"); err != nil {
		t.Fatal(err)
	}
	syncDir(t, m, ".")
	if err := m.Symlink("t", "l2"); err != nil {
		t.Fatal(err)
	}
	m.Crash()
	if got, err := m.Readlink("l"); err != nil || got != "t" {
		t.Fatalf("Readlink = %q %v", got, err)
	}
	gone(t, m, "l2")
}

// atomicAt writes old then new with WriteFileAtomic, the second time
// stopping at sync point n, and crashes there (partially, when r is set).
// It reports whether the second write returned nil.
func atomicAt(t *testing.T, n int, r *rand.Rand) (*vfs.Mem, bool) {
	m := vfs.NewMem()
	if err := m.MkdirAll("s", vfs.DirPerm); err != nil {
		t.Fatal(err)
	}
	syncDir(t, m, ".")
	if err := vfs.WriteFileAtomic(m, "s/f", []byte("old content")); err != nil {
		t.Fatal(err)
	}
	m.FailAfterSyncs(n)
	err := vfs.WriteFileAtomic(m, "s/f", []byte("new content, longer"))
	if err != nil && !errors.Is(err, vfs.ErrCrashed) {
		t.Fatalf("sync point %d: %v", n, err)
	}
	if r != nil {
		m.CrashPartial(r)
	} else {
		m.Crash()
	}
	return m, err == nil
}

func TestMemWriteAtomicCrashAtEverySync(t *testing.T) {
	sawOld, sawNew := false, false
	for n := 0; ; n++ {
		if n > 10 {
			t.Fatal("WriteFileAtomic never finished")
		}
		for seed := range 20 {
			var r *rand.Rand
			if seed > 0 {
				r = rand.New(rand.NewPCG(uint64(n), uint64(seed)))
			}
			m, finished := atomicAt(t, n, r)
			got, err := vfs.ReadFile(m, "s/f")
			if err != nil {
				t.Fatalf("sync point %d seed %d: %v", n, seed, err)
			}
			switch string(got) {
			case "old content":
				sawOld = true
				if finished {
					t.Fatalf("sync point %d: finished write lost", n)
				}
			case "new content, longer":
				sawNew = true
			default:
				t.Fatalf("sync point %d seed %d: s/f = %q", n, seed, got)
			}
			if _, err := vfs.SweepTemps(m, "s"); err != nil {
				t.Fatal(err)
			}
			ents, _ := m.ReadDir("s")
			if len(ents) != 1 {
				t.Fatalf("sync point %d: s holds %d files after SweepTemps", n, len(ents))
			}
			if finished && seed == 0 {
				if !sawOld || !sawNew {
					t.Fatalf("saw old %v, new %v", sawOld, sawNew)
				}
				return
			}
		}
	}
}

func TestMemCrashPartialNeverInvents(t *testing.T) {
	for seed := range 200 {
		r := rand.New(rand.NewPCG(1, uint64(seed)))
		m := vfs.NewMem()
		f, err := m.OpenFile("j", os.O_WRONLY|os.O_CREATE|os.O_APPEND, vfs.FilePerm)
		if err != nil {
			t.Fatal(err)
		}
		syncDir(t, m, ".")
		var all bytes.Buffer
		synced := 0
		for i := range 10 {
			line := fmt.Sprintf("line %d %s\n", i, bytes.Repeat([]byte{'a' + byte(i)}, i))
			f.Write([]byte(line))
			all.WriteString(line)
			if r.IntN(3) == 0 {
				f.Sync()
				synced = all.Len()
			}
		}
		put(t, m, "o", "first version", true)
		syncDir(t, m, ".")
		put(t, m, "o", "2nd", false)
		m.CrashPartial(r)
		got, err := vfs.ReadFile(m, "j")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(all.Bytes(), got) || len(got) < synced {
			t.Fatalf("seed %d: j = %q, synced %d of %q", seed, got, synced, all.Bytes())
		}
		o, err := vfs.ReadFile(m, "o")
		if err != nil {
			t.Fatal(err)
		}
		if s := string(o); s != "first version" && s != "2nd" && s != "" {
			t.Fatalf("seed %d: o = %q", seed, o)
		}
	}
}

func TestMemCrashPartialEntries(t *testing.T) {
	// Each unsynced entry survives or not on its own; over many seeds both
	// happen, and a rename within a folder is never half done.
	kept, lost := 0, 0
	for seed := range 100 {
		r := rand.New(rand.NewPCG(2, uint64(seed)))
		m := vfs.NewMem()
		put(t, m, "a", "a", true)
		syncDir(t, m, ".")
		put(t, m, "n", "n", true)
		if err := m.Rename("a", "b"); err != nil {
			t.Fatal(err)
		}
		m.CrashPartial(r)
		_, errA := m.Stat("a")
		_, errB := m.Stat("b")
		if (errA == nil) == (errB == nil) {
			t.Fatalf("seed %d: rename half done: a %v, b %v", seed, errA, errB)
		}
		if _, err := m.Stat("n"); err == nil {
			kept++
			want(t, m, "n", "n")
		} else {
			lost++
		}
	}
	if kept == 0 || lost == 0 {
		t.Fatalf("kept %d, lost %d: want both", kept, lost)
	}
}

func TestMemFailAfterSyncs(t *testing.T) {
	m := vfs.NewMem()
	base := m.Syncs()
	m.FailAfterSyncs(2)
	put(t, m, "a", "1", true)
	syncDir(t, m, ".")
	if got := m.Syncs() - base; got != 2 {
		t.Fatalf("Syncs = %d, want 2", got)
	}
	if _, err := m.Stat("a"); !errors.Is(err, vfs.ErrCrashed) {
		t.Fatalf("Stat after the last sync: %v, want ErrCrashed", err)
	}
	if err := m.SyncDir("."); !errors.Is(err, vfs.ErrCrashed) {
		t.Fatalf("SyncDir: %v, want ErrCrashed", err)
	}
	if _, err := m.OpenFile("b", os.O_RDWR|os.O_CREATE, vfs.FilePerm); !errors.Is(err, vfs.ErrCrashed) {
		t.Fatalf("OpenFile: %v, want ErrCrashed", err)
	}
	if got := m.Syncs() - base; got != 2 {
		t.Fatalf("Syncs after failures = %d, want 2", got)
	}
	m.Crash()
	want(t, m, "a", "1")
	put(t, m, "b", "works again", false)
	want(t, m, "b", "works again")
}

func TestMemCrashReleasesLocks(t *testing.T) {
	m := vfs.NewMem()
	l, err := m.Lock("lock")
	if err != nil {
		t.Fatal(err)
	}
	m.Crash()
	l2, err := m.Lock("lock")
	if err != nil {
		t.Fatalf("Lock after crash: %v", err)
	}
	l.Release() // the old lock's release must not free the new one
	if _, err := m.Lock("lock"); !errors.Is(err, vfs.ErrLocked) {
		t.Fatalf("Lock while held: %v, want ErrLocked", err)
	}
	if err := l2.Release(); err != nil {
		t.Fatal(err)
	}
	if l3, err := m.Lock("lock"); err != nil {
		t.Fatal(err)
	} else {
		l3.Release()
	}
}

func TestMemModTimeStrictlyIncreases(t *testing.T) {
	m := vfs.NewMem()
	fixed := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	m.SetClock(func() time.Time { return fixed })
	f, err := m.OpenFile("f", os.O_RDWR|os.O_CREATE, vfs.FilePerm)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var times []time.Time
	stat := func() {
		fi, err := m.Stat("f")
		if err != nil {
			t.Fatal(err)
		}
		times = append(times, fi.ModTime())
	}
	stat()
	for range 3 {
		f.Write([]byte("x"))
		stat()
	}
	f.Truncate(1)
	stat()
	put(t, m, "f", "y", false)
	stat()
	for i := 1; i < len(times); i++ {
		if !times[i].After(times[i-1]) {
			t.Fatalf("ModTime %d = %v, not after %v", i, times[i], times[i-1])
		}
	}
	if times[0].Before(fixed) {
		t.Fatalf("ModTime %v before the clock %v", times[0], fixed)
	}
}

func TestMemUnlinkedHandle(t *testing.T) {
	m := vfs.NewMem()
	put(t, m, "f", "data", false)
	f, err := m.OpenFile("f", os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := m.Remove("f"); err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(f); err != nil || string(got) != "data" {
		t.Fatalf("read of removed file = %q %v", got, err)
	}
	gone(t, m, "f")
	if ents, err := m.ReadDir("."); err != nil || len(ents) != 0 {
		t.Fatalf("root = %v %v", ents, err)
	}
}

// TestMemUmask: SetUmask changes what new files and folders get.
func TestMemUmask(t *testing.T) {
	m := vfs.NewMem()
	if vfs.Umask(m) != 0o022 {
		t.Fatalf("default umask %03o", vfs.Umask(m))
	}
	m.SetUmask(0o077)
	if vfs.Umask(vfs.NewFaulty(m)) != 0o077 {
		t.Fatal("Faulty does not give its inner FS's umask")
	}
	f, err := m.OpenFile("f", os.O_WRONLY|os.O_CREATE, 0o666)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if fi, _ := m.Stat("f"); fi.Mode().Perm() != 0o600 {
		t.Fatalf("new file under umask 077: %v", fi.Mode())
	}
}

// TestMemSyncFS: SyncFS makes every file's data durable, as a Sync of
// each would, and leaves folder entries as they were: a file created
// since its folder's last sync is still lost in a crash.
func TestMemSyncFS(t *testing.T) {
	m := vfs.NewMem()
	if err := m.MkdirAll("d", vfs.DirPerm); err != nil {
		t.Fatal(err)
	}
	m.SyncDir(".")
	for _, name := range []string{"d/a", "d/b"} {
		put(t, m, name, name, false)
	}
	m.SyncDir("d")
	put(t, m, "d/c", "c", false)
	h, err := vfs.SyncFS(m, "d")
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	syncs := m.Syncs()
	if err := h.Sync(); err != nil {
		t.Fatal(err)
	}
	if m.Syncs() != syncs+1 {
		t.Fatalf("SyncFS counted %d syncs", m.Syncs()-syncs)
	}
	m.Crash()
	for _, name := range []string{"d/a", "d/b"} {
		if b, err := vfs.ReadFile(m, name); err != nil || string(b) != name {
			t.Fatalf("%s after the crash: %q %v", name, b, err)
		}
	}
	if _, err := m.Stat("d/c"); !vfs.IsNotExist(err) {
		t.Fatalf("d/c, whose entry was never synced, survived: %v", err)
	}
	if err := h.Sync(); !errors.Is(err, vfs.ErrCrashed) {
		t.Fatalf("Sync of a handle from before the crash: %v", err)
	}
}

// TestDiskSyncFS: the disk has SyncFS where the system does (Linux 5.8
// and later, whose syncfs reports write-back errors), and says
// unsupported elsewhere.
func TestDiskSyncFS(t *testing.T) {
	d, err := vfs.OpenDisk(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	h, err := vfs.SyncFS(d, ".")
	if err == nil {
		err = h.Sync()
		h.Close()
	}
	if err != nil && !errors.Is(err, errors.ErrUnsupported) || runtime.GOOS != "linux" && err == nil {
		t.Fatalf("SyncFS on %s: %v", runtime.GOOS, err)
	}
	if _, err := vfs.SyncFS(d, "missing"); err == nil {
		t.Fatal("SyncFS of a missing folder")
	}
}

// TestMemKillKeepsWritesAndCrashMovesBooted: Kill fails old handles and
// releases locks but loses nothing unsynced; Crash loses it, and Booted
// moves past every modification time before it.
func TestMemKillKeepsWritesAndCrashMovesBooted(t *testing.T) {
	m := vfs.NewMem()
	if b, ok := m.Booted(); !ok || !b.IsZero() {
		t.Fatalf("Booted before any crash: %v %v", b, ok)
	}
	f, err := m.OpenFile("a", os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("unsynced"))
	l, err := m.Lock("lock")
	if err != nil {
		t.Fatal(err)
	}
	m.Kill()
	if _, err := f.Write([]byte("x")); !errors.Is(err, vfs.ErrCrashed) {
		t.Fatalf("a handle from before Kill wrote: %v", err)
	}
	l.Release()
	if _, err := m.Lock("lock"); err != nil {
		t.Fatalf("the lock is still held after Kill: %v", err)
	}
	if b, err := vfs.ReadFile(m, "a"); err != nil || string(b) != "unsynced" {
		t.Fatalf("after Kill: %q, %v", b, err)
	}
	fi, _ := m.Stat("a")
	m.Crash()
	if b, _ := m.Booted(); !b.After(fi.ModTime()) {
		t.Fatalf("Booted %v is not after a write before the crash (%v)", b, fi.ModTime())
	}
	if _, err := m.Stat("a"); !vfs.IsNotExist(err) {
		t.Fatalf("an unsynced file survived the crash: %v", err)
	}
}
