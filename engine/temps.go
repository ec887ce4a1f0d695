package engine

import (
	"errors"
	"os"
	"path"
	"strings"
	"syscall"

	"cairn/internal/vfs"
	"cairn/objects"
)

// Temp files are what an interrupted atomic write leaves: dot files beside
// the file they were to replace. Opening a session collects the ones that
// can only be leftovers: those of the session itself (its owner now holds
// the lock), those of its tool outputs, the index's (a lister that loses its
// temp file only fails to save a cache), and the object store's whose writer
// is no longer running.
func (w *Workspace) removeTemps(id string) {
	fsys := w.s.fsys
	sweep := func(dir string, stale func(name string) bool) {
		ents, err := fsys.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range ents {
			if e.Type().IsRegular() && vfs.IsTemp(e.Name()) && stale(e.Name()) {
				fsys.Remove(path.Join(dir, e.Name()))
			}
		}
	}
	sweep(path.Join(w.dir, "sessions"), func(n string) bool { return strings.HasPrefix(n, "."+id+".") })
	sweep(path.Join(w.dir, "outputs", id), func(string) bool { return true })
	sweep(w.dir, func(n string) bool { return strings.HasPrefix(n, ".index.json") })
	sweep(path.Join(w.dir, "objects"), func(n string) bool {
		pid, ok := objects.TempOwner(n)
		return ok && pid != os.Getpid() && !processAlive(pid)
	})
}

// processAlive reports whether a process with this pid exists.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
