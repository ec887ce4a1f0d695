package engine

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sync"
	"syscall"

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

// fileSyncs makes a session's file-tool changes durable in the
// background: after a tool puts its file in place, a goroutine removes the
// replaced file (staged.exchange) and syncs the folder, in order with the
// syncs started before it. The next line of the changes journal waits for
// them (appendChanges), so only the newest change can be lost in a crash,
// and its line, durable before the file changed, names it: the next owner
// finds its file still as before and cancels it (Workspace.unmade). The
// end of a turn waits for them too, and reports a failure.
type fileSyncs struct {
	mu   sync.Mutex
	last chan struct{} // closed when the newest background sync is over
	err  error         // the first failure not yet reported
}

// later starts the background sync of dirs of workspace w, after removing
// leftover (a replaced file; "" for none). A leftover a crash keeps is a
// temp file beside its name, as an interrupted write leaves.
func (f *fileSyncs) later(w *Workspace, dirs dirSet, leftover string) {
	f.mu.Lock()
	prev := f.last
	done := make(chan struct{})
	f.last = done
	f.mu.Unlock()
	go func() {
		defer close(done)
		if prev != nil {
			<-prev
		}
		if err := syncWorkspace(w, dirs, leftover); err != nil {
			f.mu.Lock()
			if f.err == nil {
				f.err = err
			}
			f.mu.Unlock()
		}
	}()
}

// syncWorkspace removes leftover and syncs dirs. A folder gone since (the
// user removed it) has nothing left to make durable.
func syncWorkspace(w *Workspace, dirs dirSet, leftover string) error {
	if leftover != "" {
		defer vfs.ReleaseTemp(leftover) // removed or not, this process is done with it
	}
	fsys, done, err := w.files()
	if err != nil {
		return err
	}
	defer done()
	if leftover != "" {
		if err := fsys.Remove(leftover); err != nil && !vfs.IsNotExist(err) {
			return fmt.Errorf("engine: remove the replaced file %s: %w", leftover, err)
		}
	}
	for dir := range dirs {
		if err := fsys.SyncDir(dir); err != nil && !vfs.IsNotExist(err) && !errors.Is(err, syscall.ENOTDIR) {
			return fmt.Errorf("engine: sync workspace folder %s: %w", dir, err)
		}
	}
	return nil
}

// wait waits for the background syncs started so far.
func (f *fileSyncs) wait() {
	f.mu.Lock()
	last := f.last
	f.mu.Unlock()
	if last != nil {
		<-last
	}
}

// failed waits for the background syncs and returns the first failure not
// yet reported, leaving it to sync to report.
func (f *fileSyncs) failed() error {
	f.wait()
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// sync waits for the background syncs and returns the first failure since
// the last call: a failed folder sync is reported once, never retried as
// if it had worked.
func (f *fileSyncs) sync() error {
	f.wait()
	f.mu.Lock()
	defer f.mu.Unlock()
	err := f.err
	f.err = nil
	return err
}

// ensureParent creates the missing folders above name (0777 less the
// umask, as a user's tools would) and makes their entries durable.
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

// filePerm is the permission a file written over name gets: the current
// file's bits when it is a regular file, else what a new file gets (0666
// less the umask: the file's mode is set explicitly, which ignores it),
// with the executable bits set where it may be read (exec) or cleared.
func filePerm(fsys vfs.FS, name string, exec bool) fs.FileMode {
	var perm fs.FileMode
	if fi, err := fsys.Lstat(name); err == nil && fi.Mode().IsRegular() {
		perm = fi.Mode().Perm()
	} else {
		perm = 0o666 &^ vfs.Umask(fsys) // read only when needed: a system call or a file read
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
	f, err := vfs.CreateTemp(fsys, path.Dir(name), path.Base(name))
	if err != nil {
		return nil, err
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
	defer vfs.ReleaseTemp(st.tmp)
	if err := fsys.Rename(st.tmp, st.name); err != nil {
		fsys.Remove(st.tmp)
		return err
	}
	dirs.add(st.name)
	return nil
}

// exchange puts the staged file in place of an existing file or link by
// swapping their names (vfs.Exchange), and returns the temp name, which
// now holds the old file, for the caller to remove apart and release
// (vfs.ReleaseTemp): the cost of freeing the old file is not paid by the
// caller's path. Where names cannot be swapped, or name is missing or a
// folder, it renames as replace does and returns "".
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
func (st *staged) discard(fsys vfs.FS) {
	fsys.Remove(st.tmp)
	vfs.ReleaseTemp(st.tmp)
}

// replaceLink atomically replaces name with a symbolic link to target.
func replaceLink(fsys vfs.FS, name, target string, dirs dirSet) error {
	if err := ensureParent(fsys, name); err != nil {
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
		return fmt.Errorf("engine: no free temp name next to %s", name)
	}
	defer vfs.ReleaseTemp(tmp)
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
