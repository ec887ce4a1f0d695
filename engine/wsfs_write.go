package engine

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sync"

	"cairn/internal/vfs"
)

// Writing the user's files: each file is replaced atomically (a temp file
// in its own folder, written, fsynced, given its mode, renamed over the
// name), or removed. The folders whose entries changed are synced once
// each, by syncDirs, before the operation returns.

// dirSet collects the folders whose entries an operation changed.
type dirSet map[string]bool

func (d dirSet) add(name string) { d[path.Dir(name)] = true }

// sync syncs every folder of the set.
func (d dirSet) sync(fsys vfs.FS) error {
	var first error
	for dir := range d {
		if err := fsys.SyncDir(dir); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// fileDirs is the workspace folders whose entries a session's file tools
// changed and that are not synced yet: a tool's rename is made durable
// with its turn (Session.commit), as the turn's items are, not one folder
// sync per tool. A tool's change line is durable before its rename, so a
// rename lost in a crash leaves a change that was never made, which the
// next owner settles (Workspace.unmade).
type fileDirs struct {
	mu   sync.Mutex
	dirs dirSet
	gone sync.WaitGroup // removals of replaced files under way
}

// removeLater removes name, a replaced file left by staged.exchange, in the
// background; sync waits for it. One that a crash leaves is a temp file
// beside its name, as an interrupted write leaves.
func (f *fileDirs) removeLater(w *Workspace, name string) {
	f.gone.Go(func() {
		fsys, done, err := w.files()
		if err != nil {
			return
		}
		defer done()
		fsys.Remove(name)
	})
}

// add notes the folders of d for the next sync.
func (f *fileDirs) add(d dirSet) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.dirs == nil {
		f.dirs = dirSet{}
	}
	for dir := range d {
		f.dirs[dir] = true
	}
}

// sync syncs the noted folders of workspace w. A folder whose sync failed
// is not tried again: its error is the answer, never a later success.
func (f *fileDirs) sync(w *Workspace) error {
	f.gone.Wait()
	f.mu.Lock()
	d := f.dirs
	f.dirs = nil
	f.mu.Unlock()
	if len(d) == 0 {
		return nil
	}
	fsys, done, err := w.files()
	if err != nil {
		return err
	}
	defer done()
	if err := d.sync(fsys); err != nil {
		return fmt.Errorf("engine: sync workspace folder: %w", err)
	}
	return nil
}

// ensureParent creates the missing folders above name (0755, as a user's
// tools would) and makes their entries durable.
func ensureParent(fsys vfs.FS, name string) error {
	dir := path.Dir(name)
	if dir == "." {
		return nil
	}
	fi, err := fsys.Stat(dir)
	if err == nil {
		if !fi.IsDir() {
			return fmt.Errorf("%w: %s is not a folder", ErrBadInput, dir)
		}
		return nil
	}
	if !vfs.IsNotExist(err) {
		return err
	}
	// The top-most missing folder: its parent's entry changes.
	top := dir
	for p := path.Dir(top); p != "."; p = path.Dir(p) {
		if _, err := fsys.Stat(p); err == nil {
			break
		}
		top = p
	}
	if err := fsys.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for d := dir; ; d = path.Dir(d) {
		if err := fsys.SyncDir(path.Dir(d)); err != nil {
			return err
		}
		if d == top {
			return nil
		}
	}
}

// filePerm is the permission a file written over name gets: the current
// file's bits when it is a regular file (else 0644), with the executable
// bits set (exec) or cleared.
func filePerm(fsys vfs.FS, name string, exec bool) fs.FileMode {
	perm := fs.FileMode(0o644)
	if fi, err := fsys.Lstat(name); err == nil && fi.Mode().IsRegular() {
		perm = fi.Mode().Perm()
	}
	if exec {
		return perm | (perm&0o444)>>2
	}
	return perm &^ 0o111
}

// replaceFile atomically replaces name with what write writes, mode perm.
// The folder is added to dirs for the caller to sync. On error name is as
// it was and no temp file is left.
func replaceFile(fsys vfs.FS, name string, perm fs.FileMode, dirs dirSet, write func(io.Writer) error) error {
	st, err := stageFile(fsys, name, perm, write)
	if err != nil {
		return err
	}
	return st.replace(fsys, dirs)
}

// staged is a file's new content, durable in a temp file beside it and
// given its mode, not yet renamed over it: the first half of replaceFile,
// which a tool does while its snapshot is taken.
type staged struct {
	name, tmp string
}

// stageFile gives a temp file beside name mode perm, writes what write
// writes to it and fsyncs it, creating (and syncing) name's missing folders.
// On error no temp file is left.
func stageFile(fsys vfs.FS, name string, perm fs.FileMode, write func(io.Writer) error) (*staged, error) {
	if err := ensureParent(fsys, name); err != nil {
		return nil, err
	}
	f, err := fsys.CreateTemp(path.Dir(name), vfs.TempPrefix(path.Base(name))+"*")
	if err != nil {
		return nil, err
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			f.Close()
			fsys.Remove(tmp)
		}
	}()
	// The mode first, so the file's fsync makes it durable with the data.
	if err := fsys.Chmod(tmp, perm); err != nil {
		return nil, err
	}
	if err := write(f); err != nil {
		return nil, err
	}
	if err := f.Sync(); err != nil {
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	ok = true
	return &staged{name: name, tmp: tmp}, nil
}

// replace renames the temp file over the name and adds the folder to dirs.
// On error the temp file is removed and the name is as it was.
func (st *staged) replace(fsys vfs.FS, dirs dirSet) error {
	if err := fsys.Rename(st.tmp, st.name); err != nil {
		fsys.Remove(st.tmp)
		return err
	}
	dirs.add(st.name)
	return nil
}

// exchange puts the staged file in place of an existing file or link by
// swapping their names (vfs.Exchange), and returns the temp name, which
// now holds the old file, for the caller to remove apart: the cost of
// freeing the old file is not paid by the caller's path. Where names
// cannot be swapped, or name is missing or a folder, it renames as replace
// does and returns "".
func (st *staged) exchange(fsys vfs.FS, dirs dirSet) (string, error) {
	if fi, err := fsys.Lstat(st.name); err == nil && !fi.IsDir() {
		if err := vfs.Exchange(fsys, st.tmp, st.name); err == nil {
			dirs.add(st.name)
			return st.tmp, nil
		}
	}
	return "", st.replace(fsys, dirs)
}

// discard removes the temp file of a change that will not be made.
func (st *staged) discard(fsys vfs.FS) { fsys.Remove(st.tmp) }

// replaceLink atomically replaces name with a symbolic link to target.
func replaceLink(fsys vfs.FS, name, target string, dirs dirSet) error {
	if err := ensureParent(fsys, name); err != nil {
		return err
	}
	var tmp string
	for range 100 {
		tmp = path.Join(path.Dir(name), vfs.TempPrefix(path.Base(name))+randHex(6))
		err := fsys.Symlink(target, tmp)
		if err == nil {
			break
		}
		if !vfs.IsExist(err) {
			return err
		}
		tmp = ""
	}
	if tmp == "" {
		return fmt.Errorf("engine: no free temp name next to %s", name)
	}
	if err := fsys.Rename(tmp, name); err != nil {
		fsys.Remove(tmp)
		return err
	}
	dirs.add(name)
	return nil
}

// removeFile removes name (a file or a link, never a folder); a missing
// name is not an error.
func removeFile(fsys vfs.FS, name string, dirs dirSet) error {
	fi, err := fsys.Lstat(name)
	if vfs.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return fmt.Errorf("%s is a folder", name)
	}
	if err := fsys.Remove(name); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	dirs.add(name)
	return nil
}
