package fstate

import (
	"io/fs"
	"path"
	"sync"

	"cairn/internal/vfs"
)

// Records name files by their path, and no link on that path is followed:
// a walk does not enter a link, and a file tool does not write below one.
// So a file below a folder that has become a link (replaced by the user,
// or by the call a revert crosses) is not the file a record names, and it
// must neither be read as that file nor written through the link.

// Links finds the folders of paths that are symbolic links, remembering
// what it looked up; its zero value is ready to use, and it is safe for
// concurrent use. Use one per plan: what it remembers is true when it
// looked.
type Links struct {
	mu   sync.Mutex
	seen map[string]bool // folder -> it is a link
}

// Above is the top-most folder above workspace file rel that is a
// symbolic link, or "" when none is (or one cannot be read: the read of
// the file itself then says why).
func (l *Links) Above(fsys vfs.FS, rel string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen == nil {
		l.seen = map[string]bool{}
	}
	dir := path.Dir(rel)
	if dir == "." {
		return ""
	}
	for i := 0; i <= len(dir); i++ {
		if i < len(dir) && dir[i] != '/' {
			continue
		}
		d := dir[:i]
		link, ok := l.seen[d]
		if !ok {
			fi, err := fsys.Lstat(d)
			if err != nil {
				return "" // missing (or not a folder) from here on: no link below
			}
			link = fi.Mode()&fs.ModeSymlink != 0
			l.seen[d] = link
		}
		if link {
			return d
		}
	}
	return ""
}
