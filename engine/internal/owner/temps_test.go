package owner

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"testing"

	"cairn/engine/internal/layout"
	"cairn/internal/vfs"
)

// countingFS is a Mem that lists names as the real disk does (NamesReader)
// and counts what each open of a workspace costs: a ReadDir of the
// sessions folder is an Lstat of every entry on the real disk.
type countingFS struct {
	*vfs.Mem
	readDirs, lstats int
}

func (c *countingFS) ReadDir(name string) ([]fs.DirEntry, error) {
	c.readDirs++
	return c.Mem.ReadDir(name)
}

func (c *countingFS) ReadDirNames(dir string) ([]string, error) {
	return vfs.ReadDirNames(c.Mem, dir)
}

func (c *countingFS) Lstat(name string) (fs.FileInfo, error) {
	c.lstats++
	return c.Mem.Lstat(name)
}

func write(t *testing.T, fsys vfs.FS, name string) {
	t.Helper()
	f, err := fsys.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestRemoveUnmadeLooksAtFewNames: the collection runs at every session
// open, so its cost must not grow with the sessions a workspace holds:
// the folder is listed by name, and only the names its rules pick are
// looked at. What it collects is unchanged: an unmade session's temp
// files and lock go, a live session's temp file stays.
func TestRemoveUnmadeLooksAtFewNames(t *testing.T) {
	c := &countingFS{Mem: vfs.NewMem()}
	ws := "state/ws"
	if err := c.MkdirAll(layout.SessionsDir(ws), 0o700); err != nil {
		t.Fatal(err)
	}
	id := func(i int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", i) }
	for i := range 500 {
		write(t, c, layout.Items(ws, id(i)))
		write(t, c, layout.Lock(ws, id(i)))
	}
	liveTemp := vfs.TempName(layout.SessionsDir(ws), id(7)+layout.ItemsSuffix)
	write(t, c, liveTemp)
	unmade := id(900)
	unmadeTemp := vfs.TempName(layout.SessionsDir(ws), unmade+layout.ItemsSuffix)
	write(t, c, unmadeTemp)
	write(t, c, layout.Lock(ws, unmade))
	c.readDirs, c.lstats = 0, 0

	RemoveUnmade(c, ws)

	if c.readDirs != 0 || c.lstats > 4 {
		t.Errorf("an open over 500 sessions made %d ReadDir and %d Lstat, want 0 and a few", c.readDirs, c.lstats)
	}
	for _, gone := range []string{unmadeTemp, layout.Lock(ws, unmade)} {
		if _, err := c.Mem.Lstat(gone); !vfs.IsNotExist(err) {
			t.Errorf("%s of an unmade session left: %v", path.Base(gone), err)
		}
	}
	for _, kept := range []string{liveTemp, layout.Items(ws, id(7)), layout.Lock(ws, id(7))} {
		if _, err := c.Mem.Lstat(kept); err != nil {
			t.Errorf("%s of a live session: %v", path.Base(kept), err)
		}
	}
}
