// Package ephroot makes, removes and sweeps the private temporary state
// folders of ephemeral stores (engine.OpenEphemeral).
//
// # Roots
//
// A root is a folder named Prefix plus a random part, made in a base
// folder ($XDG_RUNTIME_DIR, else the temp folder), mode 0700. Its owner, the
// process that made it, holds an exclusive flock on LockName inside it for
// its whole life, and removes the root when it ends (Root.Remove). A root
// whose owner died without removing it (kill -9, a power loss, a panic) is
// removed by the next Sweep of its base folder: a lock that can be taken
// proves the owner gone, since the system gives a flock back when its
// holder dies; a process id proves nothing (pids are used again).
//
// The lock file comes into the root already locked: it is made and locked
// under a temporary name, then renamed to LockName, so a Sweep never finds
// LockName unlocked while its owner lives. A root without LockName (one an
// older cairn made, or one whose owner died before renaming it in, which
// holds nothing else) is never removed by a Sweep: nothing proves its owner
// gone.
package ephroot

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"cairn/internal/vfs"
)

// Prefix starts the name of every root; LockName is its owner's lock file.
const (
	Prefix   = "cairn-ephemeral-"
	LockName = "owner.lock"
	lockNew  = ".owner.lock.new"
)

// Root is a root this process made and owns.
type Root struct {
	dir  string
	lock vfs.Lock
	disk *vfs.Disk
}

// Make makes a new root in base and takes its lock.
func Make(base string) (*Root, error) {
	dir, err := os.MkdirTemp(base, Prefix)
	if err != nil {
		return nil, err
	}
	r, err := own(dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return r, nil
}

// own takes the lock of the new root dir, through the root: made and
// locked under a temporary name, then renamed in.
func own(dir string) (*Root, error) {
	d, err := vfs.OpenDisk(dir)
	if err != nil {
		return nil, err
	}
	l, err := d.Lock(lockNew)
	if err != nil {
		d.Close()
		return nil, err
	}
	if err := d.Rename(lockNew, LockName); err != nil {
		l.Release()
		d.Close()
		return nil, err
	}
	return &Root{dir: dir, lock: l, disk: d}, nil
}

// Dir is the root's absolute path.
func (r *Root) Dir() string { return r.dir }

// Remove removes the root and everything in it, then gives its lock back.
// Removed or not, the lock is given back: a root that could not be
// removed is left to the next Sweep.
func (r *Root) Remove() error {
	err := os.RemoveAll(r.dir)
	if rerr := r.lock.Release(); err == nil {
		err = rerr
	}
	if cerr := r.disk.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("remove the temporary state folder %s: %w", r.dir, err)
	}
	return nil
}

// Stale names the roots in base whose owner is gone: they hold a LockName
// that can be locked. It changes nothing. A base that does not exist has
// none.
func Stale(base string) ([]string, error) {
	var out []string
	err := each(base, func(dir string, _ *os.File) error {
		out = append(out, dir)
		return nil
	})
	return out, err
}

// Sweep removes the roots in base whose owner is gone, each while holding
// its lock, and names them. A root it cannot remove is named in the error,
// and the others are removed all the same.
func Sweep(base string) ([]string, error) {
	var out []string
	err := each(base, func(dir string, _ *os.File) error {
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
		out = append(out, dir)
		return nil
	})
	return out, err
}

// each calls fn for every root of base whose lock it could take, while it
// holds that lock. Roots of another user, links, and roots without a
// LockName are passed over.
func each(base string, fn func(dir string, lock *os.File) error) error {
	ents, err := os.ReadDir(base)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), Prefix) || !e.IsDir() {
			continue
		}
		dir := filepath.Join(base, e.Name())
		lock, err := tryLock(dir)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", dir, err))
			continue
		}
		if lock == nil {
			continue
		}
		if err := fn(dir, lock); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", dir, err))
		}
		lock.Close()
	}
	return errors.Join(errs...)
}

// tryLock takes the lock of root dir without waiting: nil, nil when its
// owner holds it, when it has no lock file, or when it is not a folder of
// this user (a name planted in a shared temp folder is left alone).
func tryLock(dir string) (*os.File, error) {
	d, err := os.OpenFile(dir, os.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) || errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
			return nil, nil
		}
		return nil, err
	}
	defer d.Close()
	var st unix.Stat_t
	if err := unix.Fstat(int(d.Fd()), &st); err != nil {
		return nil, err
	}
	if int(st.Uid) != os.Getuid() {
		return nil, nil
	}
	fd, err := unix.Openat(int(d.Fd()), LockName, unix.O_RDWR|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), filepath.Join(dir, LockName))
	if err := vfs.Flock(f, unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, nil
		}
		return nil, err
	}
	return f, nil
}
