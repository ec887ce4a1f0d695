package vfs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// Fenced is a Disk that refuses every name whose folder lies, on disk,
// inside one of its fenced folders, whatever names and links lead there:
// the workspace of someone who runs cairn in the folder that holds its
// state folder. An os.Root keeps names inside its own folder, but follows
// links that stay there, so a link to the state folder inside the
// workspace would otherwise reach it.
//
// Each call opens the folder of its name through the root, holds it open,
// checks by device and inode that neither it nor any folder above it is a
// fenced folder, and then works in the folder it holds, on the name's last
// element. A folder swapped for a link between the check and the work is
// not followed: the work is done in the folder that was checked. A fenced
// folder is known by its path, looked up at each check (where it is now),
// and by a handle on it (where this process keeps its state), so moving
// it does not lift the fence. OpenFile does not follow a link as the last
// element of a name, and refuses a file swapped while it was opened.
//
// A folder moved into a fenced folder by another process while a call
// works in it is beyond any check: the call works where the folder went.
type Fenced struct {
	d      *Disk
	fences []fence
}

type fence struct {
	path string
	pin  *Disk // may be nil
}

// Fence returns d fenced off from the folder at path and from pin (the same
// folder held open; nil when there is none). More fences can be added
// with Fence on the result. Closing the result closes d.
func (d *Disk) Fence(path string, pin *Disk) *Fenced {
	return (&Fenced{d: d}).Fence(path, pin)
}

// Fence adds a fence.
func (f *Fenced) Fence(path string, pin *Disk) *Fenced {
	f.fences = append(f.fences, fence{path, pin})
	return f
}

// Dir is the absolute path of the folder.
func (f *Fenced) Dir() string { return f.d.Dir() }

// Close releases the folder.
func (f *Fenced) Close() error { return f.d.Close() }

type devIno struct{ dev, ino uint64 }

func idOf(fi fs.FileInfo) (devIno, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return devIno{}, false
	}
	return devIno{uint64(st.Dev), uint64(st.Ino)}, true
}

// ids are the fenced folders' device and inode numbers, as of now.
func (f *Fenced) ids() map[devIno]bool {
	ids := map[devIno]bool{}
	for _, fc := range f.fences {
		if fi, err := os.Stat(fc.path); err == nil {
			if id, ok := idOf(fi); ok {
				ids[id] = true
			}
		}
		if fc.pin != nil {
			if fi, err := fc.pin.root.Stat("."); err == nil {
				if id, ok := idOf(fi); ok {
					ids[id] = true
				}
			}
		}
	}
	return ids
}

// folder opens folder dir through the root and checks it is outside the
// fences. done releases it.
func (f *Fenced) folder(op, dir string) (sub *Disk, done func(), err error) {
	dir = cleanDir(dir)
	r := f.d.root
	done = func() {}
	if dir != "." {
		if r, err = f.d.root.OpenRoot(dir); err != nil {
			return nil, nil, err
		}
		done = func() { r.Close() }
	}
	if err := f.check(r); err != nil {
		done()
		return nil, nil, &fs.PathError{Op: op, Path: dir, Err: err}
	}
	return &Disk{root: r, dir: filepath.Join(f.d.dir, filepath.FromSlash(dir))}, done, nil
}

// at opens the folder of name as folder does; base is name's last element.
func (f *Fenced) at(op, name string) (sub *Disk, base string, done func(), err error) {
	dir, base := path.Split(name)
	if base == "" || base == ".." {
		// A sub-root cannot climb out of itself: name is a folder.
		dir, base = name, "."
	}
	sub, done, err = f.folder(op, dir)
	if err != nil {
		return nil, "", nil, err
	}
	return sub, base, done, nil
}

// check returns ErrFenced when the folder r holds, or a folder above it,
// is fenced.
func (f *Fenced) check(r *os.Root) error {
	ids := f.ids()
	if len(ids) == 0 {
		return nil
	}
	dir, err := r.Open(".")
	if err != nil {
		return err
	}
	defer dir.Close()
	in, err := underAny(int(dir.Fd()), ids)
	if err != nil {
		return fmt.Errorf("vfs: cannot tell where the folder is: %w", err)
	}
	if in {
		return ErrFenced
	}
	return nil
}

// underAny reports whether the folder open as fd, or a folder above it up
// to "/", is one of ids: it walks "..", which no link can fake.
func underAny(fd int, ids map[devIno]bool) (bool, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return false, err
	}
	cur, own := fd, false
	defer func() {
		if own {
			unix.Close(cur)
		}
	}()
	for range 4096 {
		if ids[devIno{uint64(st.Dev), uint64(st.Ino)}] {
			return true, nil
		}
		up, err := unix.Openat(cur, "..", dirRefFlags|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return false, err
		}
		var ust unix.Stat_t
		if err := unix.Fstat(up, &ust); err != nil {
			unix.Close(up)
			return false, err
		}
		if own {
			unix.Close(cur)
		}
		cur, own = up, true
		if ust.Dev == st.Dev && ust.Ino == st.Ino {
			return false, nil // "/"
		}
		st = ust
	}
	return false, errors.New("too deep")
}

// Check returns an error wrapping ErrFenced when folder dir is in a fenced
// folder; an error from opening it (dir missing) as it is.
func (f *Fenced) Check(dir string) error {
	_, done, err := f.folder("check", dir)
	if err == nil {
		done()
	}
	return err
}

// rename sets the name an open file reports.
func rename(file File, name string) File {
	if df, ok := file.(*diskFile); ok {
		df.name = name
	}
	return file
}

// OpenFile opens name as Disk does. A link as the name's last element is
// followed by opening its target's name in turn, so the target's folder
// is checked too; a file that took the name's place while it was opened
// is refused.
func (f *Fenced) OpenFile(name string, flag int, perm fs.FileMode) (File, error) {
	return f.openFile(name, name, flag, perm, 0)
}

func (f *Fenced) openFile(name, orig string, flag int, perm fs.FileMode, links int) (File, error) {
	sub, base, done, err := f.at("open", name)
	if err != nil {
		return nil, err
	}
	defer done()
	lfi, lerr := sub.Lstat(base)
	switch {
	case lerr == nil && lfi.Mode()&fs.ModeSymlink != 0:
		if links >= maxLinks {
			return nil, &fs.PathError{Op: "open", Path: orig, Err: syscall.ELOOP}
		}
		target, err := sub.Readlink(base)
		if err != nil {
			return nil, err
		}
		return f.openFile(linkTarget(name, target), orig, flag, perm, links+1)
	case lerr != nil && flag&os.O_CREATE != 0:
		flag |= os.O_EXCL // a link made meanwhile is not followed
	}
	trunc := lerr == nil && flag&os.O_TRUNC != 0
	if trunc {
		flag &^= os.O_TRUNC // only once it is known to be the file checked
	}
	file, err := sub.OpenFile(base, flag, perm)
	if err != nil {
		return nil, err
	}
	if lerr == nil {
		fi, err := file.Stat()
		if err == nil && !os.SameFile(fi, lfi) {
			err = &fs.PathError{Op: "open", Path: orig, Err: errors.New("vfs: replaced while opened")}
		}
		if err == nil && trunc {
			err = file.Truncate(0)
		}
		if err != nil {
			file.Close()
			return nil, err
		}
	}
	return rename(file, orig), nil
}

// Stat follows a link as the last element of name as OpenFile does: by
// its target's name, from the link's folder, checked in turn.
func (f *Fenced) Stat(name string) (fs.FileInfo, error) {
	return f.stat(name, name, 0)
}

func (f *Fenced) stat(name, orig string, links int) (fs.FileInfo, error) {
	sub, base, done, err := f.at("stat", name)
	if err != nil {
		return nil, err
	}
	defer done()
	fi, err := sub.Lstat(base)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return fi, err
	}
	if links >= maxLinks {
		return nil, &fs.PathError{Op: "stat", Path: orig, Err: syscall.ELOOP}
	}
	target, err := sub.Readlink(base)
	if err != nil {
		return nil, err
	}
	return f.stat(linkTarget(name, target), orig, links+1)
}

// linkTarget is the name a link called name with target leads to. It is
// not cleaned: ".." is the root's to resolve.
func linkTarget(name, target string) string {
	if path.IsAbs(target) {
		return target
	}
	dir, _ := path.Split(name)
	return dir + target
}

func (f *Fenced) Lstat(name string) (fs.FileInfo, error) {
	sub, base, done, err := f.at("lstat", name)
	if err != nil {
		return nil, err
	}
	defer done()
	return sub.Lstat(base)
}

func (f *Fenced) ReadDir(name string) ([]fs.DirEntry, error) {
	sub, done, err := f.folder("readdir", name)
	if err != nil {
		return nil, err
	}
	defer done()
	return sub.ReadDir(".")
}

// ReadDirNames is ReadDir's names alone (NamesReader).
func (f *Fenced) ReadDirNames(name string) ([]string, error) {
	sub, done, err := f.folder("readdir", name)
	if err != nil {
		return nil, err
	}
	defer done()
	return sub.ReadDirNames(".")
}

// MkdirAll makes each missing folder in a parent that was checked. The
// name is not cleaned: ".." is the root's to resolve, as Disk does.
func (f *Fenced) MkdirAll(name string, perm fs.FileMode) error {
	name = cleanDir(name)
	for i := 0; i <= len(name); i++ {
		if i < len(name) && name[i] != '/' || i == 0 {
			continue
		}
		if err := f.mkdir(name[:i], perm); err != nil {
			return err
		}
	}
	return nil
}

// mkdir makes folder name unless it is there.
func (f *Fenced) mkdir(name string, perm fs.FileMode) error {
	sub, base, done, err := f.at("mkdir", name)
	if err != nil {
		return err
	}
	defer done()
	if fi, err := f.Stat(name); err == nil {
		if fi.IsDir() {
			return nil
		}
		return &fs.PathError{Op: "mkdir", Path: name, Err: syscall.ENOTDIR}
	}
	if err := sub.root.Mkdir(base, perm); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return nil
}

func (f *Fenced) Remove(name string) error {
	sub, base, done, err := f.at("remove", name)
	if err != nil {
		return err
	}
	defer done()
	return sub.Remove(base)
}

// Rename renames within the one folder it checked; across folders it
// checks both and renames through the root.
func (f *Fenced) Rename(oldname, newname string) error {
	odir, obase := path.Split(oldname)
	ndir, nbase := path.Split(newname)
	sub, done, err := f.folder("rename", odir)
	if err != nil {
		return err
	}
	defer done()
	if cleanDir(odir) == cleanDir(ndir) {
		return sub.Rename(obase, nbase)
	}
	if err := f.Check(ndir); err != nil {
		return err
	}
	return f.d.Rename(oldname, newname)
}

// Exchange swaps two names of one folder, in the folder it checked.
func (f *Fenced) Exchange(a, b string) error {
	adir, abase := path.Split(a)
	bdir, bbase := path.Split(b)
	if cleanDir(adir) != cleanDir(bdir) {
		return &os.LinkError{Op: "exchange", Old: a, New: b, Err: syscall.EINVAL}
	}
	sub, done, err := f.folder("exchange", adir)
	if err != nil {
		return err
	}
	defer done()
	return sub.Exchange(abase, bbase)
}

func (f *Fenced) SyncDir(name string) error {
	sub, done, err := f.folder("syncdir", name)
	if err != nil {
		return err
	}
	defer done()
	return sub.SyncDir(".")
}

func (f *Fenced) Symlink(oldname, newname string) error {
	sub, base, done, err := f.at("symlink", newname)
	if err != nil {
		return err
	}
	defer done()
	return sub.Symlink(oldname, base)
}

func (f *Fenced) Readlink(name string) (string, error) {
	sub, base, done, err := f.at("readlink", name)
	if err != nil {
		return "", err
	}
	defer done()
	return sub.Readlink(base)
}

func (f *Fenced) Chmod(name string, mode fs.FileMode) error {
	sub, base, done, err := f.at("chmod", name)
	if err != nil {
		return err
	}
	defer done()
	return sub.Chmod(base, mode)
}

func (f *Fenced) Lock(name string) (Lock, error) {
	sub, base, done, err := f.at("lock", name)
	if err != nil {
		return nil, err
	}
	defer done()
	l, err := sub.Lock(base)
	if err != nil {
		return nil, err
	}
	rename(l.File(), name)
	return l, nil
}

var (
	_ FS        = (*Fenced)(nil)
	_ Exchanger = (*Fenced)(nil)
)
