package wsident

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"cairn/internal/vfs"
)

var t0 = time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC)

func TestGenerations(t *testing.T) {
	fsys := vfs.NewMem()
	a := Stamp{Dev: 1, Ino: 10, BirthNS: 100}
	id, moved, err := Bind(fsys, "/srv/proj", a, false, t0)
	if err != nil || !moved || id.N != 1 || id.Why != WhyFirst || id.ID == "" || id.Path != "/srv/proj" {
		t.Fatalf("first bind: %+v moved=%v %v", id, moved, err)
	}
	again, moved, err := Bind(fsys, "/srv/proj", a, false, t0.Add(time.Hour))
	if err != nil || moved || again.ID != id.ID || again.N != 1 || !again.Since.Equal(t0) {
		t.Fatalf("same folder: %+v moved=%v %v", again, moved, err)
	}
	// The same folder seen without a birth time is still the same.
	if _, moved, _ := Bind(fsys, "/srv/proj", Stamp{Dev: 1, Ino: 10}, false, t0); moved {
		t.Fatal("an unknown birth time moved the generation")
	}
	// Made again with the inode reused: the birth time tells.
	b := Stamp{Dev: 1, Ino: 10, BirthNS: 200}
	id2, moved, err := Bind(fsys, "/srv/proj", b, false, t0.Add(2*time.Hour))
	if err != nil || !moved || id2.ID != id.ID || id2.N != 2 || id2.Why != WhyReplaced || len(id2.Previous) != 1 || id2.Previous[0].N != 1 {
		t.Fatalf("replaced: %+v moved=%v %v", id2, moved, err)
	}
	id3, moved, err := Bind(fsys, "/srv/proj", b, true, t0.Add(3*time.Hour))
	if err != nil || !moved || id3.N != 3 || id3.Why != WhyAsked || len(id3.Previous) != 2 {
		t.Fatalf("asked: %+v moved=%v %v", id3, moved, err)
	}
	read, ok, err := Read(fsys, "/srv/proj")
	if err != nil || !ok || read.N != 3 || read.ID != id.ID {
		t.Fatalf("read back: %+v %v %v", read, ok, err)
	}
	// Another path has an identity of its own.
	other, _, err := Bind(fsys, "/srv/proj2", a, false, t0)
	if err != nil || other.ID == id.ID || other.N != 1 {
		t.Fatalf("another path: %+v %v", other, err)
	}
	for range MaxPrevious + 5 {
		if _, _, err := Bind(fsys, "/srv/proj", b, true, t0); err != nil {
			t.Fatal(err)
		}
	}
	read, _, _ = Read(fsys, "/srv/proj")
	if len(read.Previous) != MaxPrevious || read.Previous[MaxPrevious-1].N != read.N-1 {
		t.Fatalf("previous kept %d, newest %d (current %d)", len(read.Previous), read.Previous[len(read.Previous)-1].N, read.N)
	}
	if _, _, err := Bind(fsys, "srv/rel", a, false, t0); err == nil {
		t.Fatal("a relative path was bound")
	}
}

// A real folder deleted and made again at the same path has another stamp.
func TestStampOfReplacedFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ws")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	a, err := StampOf(dir)
	if err != nil {
		t.Fatal(err)
	}
	if a.Dev == 0 || a.Ino == 0 {
		t.Fatalf("stamp %+v has no device or inode", a)
	}
	if again, _ := StampOf(dir); !a.Same(again) {
		t.Fatalf("one folder, two stamps: %+v %+v", a, again)
	}
	for i := range 5 {
		if err := os.Remove(dir); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		b, err := StampOf(dir)
		if err != nil {
			t.Fatal(err)
		}
		if a.Same(b) {
			t.Fatalf("round %d: the folder made again has the stamp of the old one: %+v", i, b)
		}
		a = b
	}
	if _, err := StampOf(filepath.Join(dir, "missing")); !errors.Is(err, syscall.ENOENT) {
		t.Fatalf("missing folder: %v", err)
	}
}

// A damaged file, or one naming another path, is refused and left alone.
func TestDamaged(t *testing.T) {
	for _, content := range []string{"{not json", `{"v":1,"path":"/other","identity":"x","generation":1}` + "\n"} {
		fsys := vfs.NewMem()
		if err := fsys.MkdirAll(Folder, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := vfs.WriteFileAtomic(fsys, Name("/srv/p"), []byte(content)); err != nil {
			t.Fatal(err)
		}
		if _, _, err := Bind(fsys, "/srv/p", Stamp{Dev: 1, Ino: 2}, false, t0); !errors.Is(err, ErrDamaged) {
			t.Fatalf("%q: %v, want ErrDamaged", content, err)
		}
		if b, _ := vfs.ReadFile(fsys, Name("/srv/p")); string(b) != content {
			t.Fatalf("the damaged file was changed to %q", b)
		}
	}
}

// A generation that was returned survives a power loss; one whose write
// failed at any step leaves the old file, and the next bind works.
func TestDurable(t *testing.T) {
	mem := vfs.NewMem()
	id, _, err := Bind(mem, "/srv/p", Stamp{Dev: 1, Ino: 2}, false, t0)
	if err != nil {
		t.Fatal(err)
	}
	mem.Crash()
	read, ok, err := Read(mem, "/srv/p")
	if err != nil || !ok || read.ID != id.ID || read.N != 1 {
		t.Fatalf("after a crash: %+v %v %v", read, ok, err)
	}

	failed := 0
	for op := vfs.Op(1); op.String() != "op?"; op++ {
		inner := vfs.NewMem()
		if _, _, err := Bind(inner, "/srv/p", Stamp{Dev: 1, Ino: 2}, false, t0); err != nil {
			t.Fatal(err)
		}
		before, _ := vfs.ReadFile(inner, Name("/srv/p"))
		f := vfs.NewFaulty(inner)
		f.Inject(vfs.Rule{Op: op, Count: 1})
		_, moved, err := Bind(f, "/srv/p", Stamp{Dev: 1, Ino: 3}, false, t0)
		if f.Calls(op) == 0 {
			continue // the bind makes no such call
		}
		failed++
		after, _ := vfs.ReadFile(inner, Name("/srv/p"))
		if err == nil {
			// The failed call was one a bind may pass over (a read
			// after the write, say); the file must then be the new one.
			if !moved || string(after) == string(before) {
				t.Fatalf("%v failed, bind said moved=%v with the file unchanged", op, moved)
			}
			continue
		}
		if string(after) != string(before) {
			t.Fatalf("%v failed: the file changed to %s", op, after)
		}
		inner.Crash()
		id, moved, err := Bind(inner, "/srv/p", Stamp{Dev: 1, Ino: 3}, false, t0)
		if err != nil || !moved || id.N != 2 {
			t.Fatalf("after the fault of %v: %+v %v %v", op, id, moved, err)
		}
	}
	if failed < 4 {
		t.Fatalf("only %d kinds of call failed in turn", failed)
	}
}

// Hosts starting at once for a replaced folder move its generation once.
func TestBindConcurrent(t *testing.T) {
	disk, err := vfs.OpenDisk(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Bind(disk, "/srv/p", Stamp{Dev: 1, Ino: 2}, false, t0); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	moves := 0
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id, moved, err := Bind(disk, "/srv/p", Stamp{Dev: 1, Ino: 3}, false, t0)
			if err != nil || id.N != 2 {
				t.Errorf("bind: %+v %v", id, err)
			}
			mu.Lock()
			if moved {
				moves++
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	if moves != 1 {
		t.Fatalf("the generation moved %d times, want once", moves)
	}
}
