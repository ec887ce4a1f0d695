package scope

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// maxLinks is how many symbolic links one name may pass, as Linux allows
// (MAXSYMLINKS); past it the name cannot be followed.
const maxLinks = 40

// Resolve gives a Paths scope the files its names reach, read from the
// filesystem now, before the line runs: each name as written (when it is
// inside root lexically), the name with every link on its way to its last
// part followed (the entry the line creates, replaces or removes), and the
// name with its last part followed too when that is a link (the file a
// write through it changes). So "rm lin/r.txt", where lin is a link to the
// folder real, records real/r.txt, and "mv a.txt lin/" records real whole.
// A part that does not exist yet ends the following: the rest is taken as
// written. Names that lead outside root are left out, as Parse leaves out
// those written outside it. A name that cannot be followed (a loop of
// links, a folder that cannot be read) sends the line to the whole
// workspace (Why "link"), as does a name that reaches root itself. Other
// kinds are returned as they are.
func Resolve(sc Scope, root string) Scope {
	if sc.Kind != Paths || len(sc.Names) == 0 {
		return sc
	}
	r := filepath.Clean(root)
	if x, err := filepath.EvalSymlinks(r); err == nil {
		r = x
	}
	paths := slices.Clone(sc.Paths)
	for _, n := range sc.Names {
		for _, last := range []bool{false, true} {
			p, err := followName(n, last)
			if err != nil {
				return whole("link")
			}
			rel, ok := relInside(r, p)
			if !ok {
				continue
			}
			if rel == "." {
				return whole("workspace root")
			}
			paths = append(paths, rel)
		}
	}
	slices.Sort(paths)
	return Scope{Kind: Paths, Paths: slices.Compact(paths), Names: sc.Names}
}

// relInside is p relative to root, slash-separated, when p is root or
// lies in it.
func relInside(root, p string) (string, bool) {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// followName is the absolute name with every symbolic link on its way
// followed, its last part too when last (or when the name ends in "/", "."
// or ".."), as the system would resolve it now. From the first part that
// does not exist (or is not a folder) on, the rest is taken as written.
func followName(name string, last bool) (string, error) {
	parts := strings.Split(name, "/")
	cur := "/"
	hops := 0
	for i := 0; i < len(parts); i++ {
		c := parts[i]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		if i == len(parts)-1 && !last {
			cur = next
			continue
		}
		fi, err := os.Lstat(next)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
				return filepath.Join(append([]string{next}, parts[i+1:]...)...), nil
			}
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if hops++; hops > maxLinks {
			return "", syscall.ELOOP
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			cur = "/"
		}
		parts = append(strings.Split(target, "/"), parts[i+1:]...)
		i = -1
	}
	return cur, nil
}
