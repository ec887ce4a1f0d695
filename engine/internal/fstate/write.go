package fstate

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"

	"cairn/internal/vfs"
)

// Writing the user's files: each file is replaced atomically (a temp file
// in its own folder, written, fsynced, given its mode, renamed over the
// name), or removed. The folders whose entries changed are collected in a
// DirSet and synced once each before the operation returns.

// DirSet collects the folders whose entries an operation changed.
type DirSet map[string]bool

// Add adds the folder of name.
func (d DirSet) Add(name string) { d[path.Dir(name)] = true }

// Sync syncs every folder of the set.
func (d DirSet) Sync(fsys vfs.FS) error {
	var first error
	for dir := range d {
		if err := fsys.SyncDir(dir); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// EnsureParent creates the missing folders above name (0777 less the
// umask, as a user's tools would) and makes their entries durable.
func EnsureParent(fsys vfs.FS, name string) error {
	dir := path.Dir(name)
	if dir == "." {
		return nil
	}
	fi, err := fsys.Stat(dir)
	if err == nil {
		if !fi.IsDir() {
			return fmt.Errorf("%w: %s is not a folder", ErrNotFolder, dir)
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
	if err := fsys.MkdirAll(dir, 0o777); err != nil {
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

// FilePerm is the permission a file written over name gets: the current
// file's bits when it is a regular file, else what a new file gets (0666
// less the umask: the file's mode is set explicitly, which ignores it),
// with the executable bits set where it may be read (exec) or cleared.
func FilePerm(fsys vfs.FS, name string, exec bool) fs.FileMode {
	fi, err := fsys.Lstat(name)
	if err != nil {
		fi = nil
	}
	return FilePermOf(fsys, fi, exec)
}

// FilePermOf is FilePerm for a file already looked at: cur is its Lstat,
// nil when there is none.
func FilePermOf(fsys vfs.FS, cur fs.FileInfo, exec bool) fs.FileMode {
	var perm fs.FileMode
	if cur != nil && cur.Mode().IsRegular() {
		perm = cur.Mode().Perm()
	} else {
		perm = 0o666 &^ vfs.Umask(fsys) // read only when needed: a system call or a file read
	}
	if exec {
		return perm | (perm&0o444)>>2
	}
	return perm &^ 0o111
}

// ReplaceFile atomically replaces name with what write writes, mode perm.
// The folder is added to dirs for the caller to sync. On error name is as
// it was and no temp file is left.
func ReplaceFile(fsys vfs.FS, name string, perm fs.FileMode, dirs DirSet, write func(io.Writer) error) error {
	st, err := Stage(fsys, name, perm, write)
	if err != nil {
		return err
	}
	return st.Replace(fsys, dirs)
}

// Staged is a file's new content, durable in a temp file beside it and
// given its mode, not yet renamed over it: the first half of ReplaceFile,
// which a tool does while its snapshot is taken.
type Staged struct {
	name, tmp string
}

// Stage gives a temp file beside name mode perm, writes what write
// writes to it and fsyncs it, creating (and syncing) name's missing folders.
// On error no temp file is left.
func Stage(fsys vfs.FS, name string, perm fs.FileMode, write func(io.Writer) error) (*Staged, error) {
	// The folder is looked at only when the temp file cannot be made: it
	// nearly always exists.
	f, err := vfs.CreateTemp(fsys, path.Dir(name), path.Base(name))
	if err != nil {
		if perr := EnsureParent(fsys, name); perr != nil {
			return nil, perr
		}
		if f, err = vfs.CreateTemp(fsys, path.Dir(name), path.Base(name)); err != nil {
			return nil, err
		}
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			f.Close()
			fsys.Remove(tmp)
			vfs.ReleaseTemp(tmp)
		}
	}()
	// The mode first, so the file's fsync makes it durable with the data.
	if err := vfs.ChmodFile(fsys, f, tmp, perm); err != nil {
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
	return &Staged{name: name, tmp: tmp}, nil
}

// Replace renames the temp file over the name and adds the folder to dirs.
// On error the temp file is removed and the name is as it was.
func (st *Staged) Replace(fsys vfs.FS, dirs DirSet) error {
	defer vfs.ReleaseTemp(st.tmp)
	if err := fsys.Rename(st.tmp, st.name); err != nil {
		fsys.Remove(st.tmp)
		return err
	}
	dirs.Add(st.name)
	return nil
}

// Exchange puts the staged file in place of an existing file or link by
// swapping their names (vfs.Exchange), and returns the temp name, which
// now holds the old file, for the caller to remove apart and release
// (vfs.ReleaseTemp): the cost of freeing the old file is not paid by the
// caller's path. Where names cannot be swapped, or name is missing or a
// folder, it renames as Replace does and returns "".
func (st *Staged) Exchange(fsys vfs.FS, dirs DirSet) (string, error) {
	// Tried without looking first: a name that is missing fails the swap,
	// and one that is a folder is swapped back (vfs.Exchange); either way
	// the rename follows, as for an FS that cannot swap.
	err := vfs.Exchange(fsys, st.tmp, st.name)
	switch {
	case err == nil:
		dirs.Add(st.name)
		return st.tmp, nil
	case errors.Is(err, vfs.ErrSwapped):
		// The temp name holds a folder that took the name's place under
		// way: nothing is renamed or removed.
		vfs.ReleaseTemp(st.tmp)
		return "", fmt.Errorf("fstate: %s became a folder under way and could not be swapped back: the folder is now %s: %w", st.name, st.tmp, err)
	}
	return "", st.Replace(fsys, dirs)
}

// Discard removes the temp file of a change that will not be made.
func (st *Staged) Discard(fsys vfs.FS) {
	fsys.Remove(st.tmp)
	vfs.ReleaseTemp(st.tmp)
}

// ReplaceLink atomically replaces name with a symbolic link to target.
func ReplaceLink(fsys vfs.FS, name, target string, dirs DirSet) error {
	if err := EnsureParent(fsys, name); err != nil {
		return err
	}
	var tmp string
	for range 100 {
		tmp = vfs.TempName(path.Dir(name), path.Base(name))
		err := fsys.Symlink(target, tmp)
		if err == nil {
			break
		}
		vfs.ReleaseTemp(tmp)
		if !vfs.IsExist(err) {
			return err
		}
		tmp = ""
	}
	if tmp == "" {
		return fmt.Errorf("fstate: no free temp name next to %s", name)
	}
	defer vfs.ReleaseTemp(tmp)
	if err := fsys.Rename(tmp, name); err != nil {
		fsys.Remove(tmp)
		return err
	}
	dirs.Add(name)
	return nil
}

// Remove removes name (a file or a link, never a folder); a missing
// name is not an error.
func Remove(fsys vfs.FS, name string, dirs DirSet) error {
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
	dirs.Add(name)
	return nil
}
