package scope

import (
	"context"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"cairn/objects"
)

// A walk of named paths only (WalkPaths), and the checks the walk makes
// of one folder: its .gitignore, a nested repository, the state folder.

// WalkPaths lists the named paths (relative, as Scope.Paths) and, for a
// folder, everything under it: what a record of literal paths covers. A
// named path is covered even when .gitignore ignores it, and so is what is
// under a named folder; the left-out rules (nested repositories, special
// files, other filesystems, the state folder, the top-level names) still
// apply. A path that does not exist, or whose parent is not a folder, is
// absent from the Tree; a path under a link is absent too (never followed).
func WalkPaths(ctx context.Context, root string, paths []string, opts Options) (*Tree, error) {
	w, err := newWalker(ctx, root, opts)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, p := range paths {
		p = path.Clean(p)
		if p == "." || p == ".." || strings.HasPrefix(p, "../") || strings.HasPrefix(p, "/") || seen[p] {
			continue
		}
		seen[p] = true
		if coveredBy(p, paths) {
			continue // under another named folder
		}
		w.one(p, true)
	}
	t, err := w.finish()
	if err != nil {
		return nil, err
	}
	if ents := t.Entries(); len(ents) > 0 {
		linked, unread := t.HardLinked, t.Unread
		t = newTree(slices.CompactFunc(ents, func(a, b Entry) bool { return a.Path == b.Path }), t.Files, t.Bytes)
		t.HardLinked, t.Unread = linked, unread
	}
	if opts.Cache != nil {
		opts.Cache.learn(w.gen, w.stamp, w.read, -1, func(yield func(string) bool) {
			for _, p := range opts.Cache.pathsUnder(paths) {
				if !yield(p) {
					return
				}
			}
		})
	}
	return t, nil
}

// under reports whether p is one of paths or under one of them.
func under(p string, paths []string) bool {
	for _, q := range paths {
		q = path.Clean(q)
		if p == q || strings.HasPrefix(p, q+"/") {
			return true
		}
	}
	return false
}

// coveredBy reports whether p is strictly under another of paths.
func coveredBy(p string, paths []string) bool {
	for _, q := range paths {
		q = path.Clean(q)
		if q != "." && strings.HasPrefix(p, q+"/") {
			return true
		}
	}
	return false
}

// one covers the single path rel, and what is under it when a folder. Its
// parent folders must be real folders (not links) on the root's
// filesystem, not left out, not nested repositories. named: rel is a path
// a call names, covered with what is under it even when .gitignore ignores
// it; else (Rescan) rel and its parents are held to the .gitignore files
// of its parents, as a full walk would.
func (w *walker) one(rel string, named bool) {
	parts := strings.Split(rel, "/")
	dirfd, err := w.rd.Openat(unix.AT_FDCWD, w.root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC)
	if err != nil {
		w.fail(&fs.PathError{Op: "open", Path: w.root, Err: err})
		return
	}
	defer func() { w.rd.Close(dirfd) }()
	var stack []*ignoreFile
	if !named {
		if stack, err = w.loadIgnore(dirfd, "", stack); err != nil {
			w.fail(err)
			return
		}
	}
	for i, name := range parts {
		crel := strings.Join(parts[:i+1], "/")
		st, err := w.rd.Fstatat(dirfd, cstr(name), unix.AT_SYMLINK_NOFOLLOW)
		if err != nil {
			if err == unix.ENOENT || err == unix.ENOTDIR {
				return
			}
			w.fail(&fs.PathError{Op: "lstat", Path: w.abs(crel), Err: err})
			return
		}
		if w.leftOut(crel, name, &st) {
			return
		}
		isDir := st.Mode&unix.S_IFMT == unix.S_IFDIR
		if !named && ignored(stack, crel, isDir) {
			return
		}
		if isDir {
			git, err := w.hasGit(dirfd, name)
			if err != nil {
				w.fail(&fs.PathError{Op: "lstat", Path: w.abs(crel + "/.git"), Err: err})
				return
			}
			if git {
				return // a nested repository, or inside one
			}
		}
		if i < len(parts)-1 {
			if !isDir {
				return
			}
			nfd, err := w.rd.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC)
			if err != nil {
				if gone(err) || denied(err) {
					w.denied(crel)
				} else {
					w.fail(&fs.PathError{Op: "open", Path: w.abs(crel), Err: err})
				}
				return // gone, replaced or unreadable: nothing under it is covered
			}
			w.rd.Close(dirfd)
			dirfd = nfd
			if !named {
				if stack, err = w.loadIgnore(dirfd, crel, stack); err != nil {
					w.fail(err)
					return
				}
			}
			continue
		}
		e := entryOf(crel, &st)
		var files int
		var bytes int64
		switch {
		case isDir:
		case e.Mode&fs.ModeSymlink != 0:
			target, err := w.readlinkAt(dirfd, name)
			if err != nil {
				if err != unix.ENOENT && err != unix.EINVAL {
					w.fail(&fs.PathError{Op: "readlink", Path: w.abs(crel), Err: err})
				}
				return // gone or replaced
			}
			e.Link, e.Hash = target, objects.Sum([]byte(target))
			files, bytes = 1, e.Size
		default:
			files = 1
			if st.Nlink > 1 {
				w.linked.Store(true)
			}
			if w.opts.MaxFileBytes > 0 && e.Size > w.opts.MaxFileBytes {
				e.Skipped = "max_file_bytes"
			} else {
				bytes = e.Size
				if _, err := w.hash(dirfd, name, &e, &st, nil); err != nil {
					if err == errGone {
						return
					}
					w.fail(err)
					return
				}
			}
		}
		if !w.add([]Entry{e}, files, bytes, crel) {
			return
		}
		if isDir {
			w.dir(crel, st, stack, named)
		}
	}
}

// loadIgnore is stack with the .gitignore of folder dirfd (rel) on top,
// when it has one that is a regular file. A .gitignore gone is none; any
// other error (an unreadable one too) fails the walk, which would
// otherwise cover what the file ignores: a record would take the files
// the rules leave out for files made or removed.
func (w *walker) loadIgnore(dirfd int, rel string, stack []*ignoreFile) ([]*ignoreFile, error) {
	gitignoreC := gitignoreNUL[:len(gitignoreNUL)-1]
	st, err := w.rd.Fstatat(dirfd, gitignoreC, unix.AT_SYMLINK_NOFOLLOW)
	if err == nil && st.Mode&unix.S_IFMT == unix.S_IFREG {
		var data []byte
		if data, err = w.readAt(dirfd, gitignoreC, st.Size); err == nil {
			return append(slices.Clip(stack), parseIgnore(rel, data)), nil
		}
	}
	if err == nil || gone(err) {
		return stack, nil
	}
	return nil, &fs.PathError{Op: "read", Path: w.abs(join(rel, ".gitignore")), Err: err}
}

// gone reports whether err says a name is no longer there (or no longer
// what it was: ELOOP, a link now, opened without following).
func gone(err error) bool { return err == unix.ENOENT || err == unix.ENOTDIR || err == unix.ELOOP }

// denied reports whether err says the walk may not read a name.
func denied(err error) bool { return err == unix.EACCES || err == unix.EPERM }

// gitignoreNUL is ".gitignore" and a NUL byte: gitignoreC slices it, a
// name followed in memory by a NUL (Reader.Fstatat) that costs no copy.
const gitignoreNUL = ".gitignore\x00"

// hasGit reports whether folder name of folder dirfd holds a .git.
func (w *walker) hasGit(dirfd int, name string) (bool, error) {
	_, err := w.rd.Fstatat(dirfd, cstr(name+"/.git"), unix.AT_SYMLINK_NOFOLLOW)
	if err == nil || gone(err) || denied(err) {
		return err == nil, nil
	}
	return false, err
}

// HoldsState reports whether the workspace root holds the state folder
// stateDir, is it, or lies in it: such a workspace is not recorded (the
// caller says so once, "state_folder"), and its files are fenced off from
// the state folder. Both paths are canonical (absolute, links resolved:
// the engine's Canonical), so a link to either folder counts as the
// folder; the comparison is by path alone and touches no disk.
func HoldsState(root, stateDir string) bool {
	return within(stateDir, root) || within(root, stateDir)
}

// within reports whether path p is dir or lies in it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
}
