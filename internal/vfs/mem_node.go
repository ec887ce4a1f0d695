package vfs

import (
	"errors"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"syscall"
	"time"
)

// errEscapes is what Mem returns for a name or a link that leads outside the
// FS; its message is the one os.Root gives.
var errEscapes = errors.New("path escapes from parent")

// maxLinks bounds the symbolic links followed while resolving one name:
// the bound of os.Root, which Disk resolves names with (8, the least
// SYMLOOP_MAX POSIX allows), so that Mem refuses with ELOOP the names the
// disk refuses, and Fenced follows no more links than the Disk it wraps.
const maxLinks = 8

// memNode is a file, folder or symbolic link of a Mem. A node has no name:
// folders map names to nodes, so a node renamed but not yet synced can be
// reachable under its old name after a crash.
type memNode struct {
	mode  fs.FileMode // type bits and permissions
	mtime time.Time

	// Regular file: data now, and as of the last File.Sync.
	data    []byte
	durable []byte

	// Folder: entries now, as of the last SyncDir, and the changes since
	// then, in order (CrashPartial replays a random subset).
	entries  map[string]*memNode
	dEntries map[string]*memNode
	pending  []dirChange

	// Symbolic link.
	target string
}

// dirChange is one unsynced change of a folder's entries: set names to
// nodes, nil to remove. A rename inside one folder is one change, so it
// survives a partial crash whole.
type dirChange struct {
	names []string
	nodes []*memNode
}

func (n *memNode) isDir() bool  { return n.mode&fs.ModeDir != 0 }
func (n *memNode) isLink() bool { return n.mode&fs.ModeSymlink != 0 }

func newDir(perm fs.FileMode, now time.Time) *memNode {
	return &memNode{
		mode:     fs.ModeDir | perm&fs.ModePerm,
		mtime:    now,
		entries:  map[string]*memNode{},
		dEntries: map[string]*memNode{},
	}
}

// change applies a change to the folder's entries and records it as
// pending until the next SyncDir.
func (n *memNode) change(c dirChange, now time.Time) {
	c.apply(n.entries)
	n.pending = append(n.pending, c)
	n.mtime = now
}

// syncEntries makes the folder's entries durable.
func (n *memNode) syncEntries() {
	n.dEntries = maps.Clone(n.entries)
	n.pending = nil
}

func (c dirChange) apply(entries map[string]*memNode) {
	for i, name := range c.names {
		if c.nodes[i] == nil {
			delete(entries, name)
		} else {
			entries[name] = c.nodes[i]
		}
	}
}

func (n *memNode) info(name string) *memInfo {
	fi := &memInfo{name: name, mode: n.mode, mtime: n.mtime}
	switch {
	case n.isLink():
		fi.size = int64(len(n.target))
	case !n.isDir():
		fi.size = int64(len(n.data))
	}
	return fi
}

// memInfo is the fs.FileInfo of a Mem node.
type memInfo struct {
	name  string
	size  int64
	mode  fs.FileMode
	mtime time.Time
}

func (fi *memInfo) Name() string       { return fi.name }
func (fi *memInfo) Size() int64        { return fi.size }
func (fi *memInfo) Mode() fs.FileMode  { return fi.mode }
func (fi *memInfo) ModTime() time.Time { return fi.mtime }
func (fi *memInfo) IsDir() bool        { return fi.mode.IsDir() }
func (fi *memInfo) Sys() any           { return nil }

// found is the result of resolving a name: the folder holding the last
// component and its name there, and the node (nil when there is none yet).
// When the name resolves to a folder reached without a last component
// ("." or "a/.."), dir is nil and node is that folder.
type found struct {
	dir  *memNode
	base string
	node *memNode
}

// walk resolves name like os.Root does: symbolic links are followed in every
// component but the last, and in the last too when followLast is set; ".."
// goes back up the folders actually walked; anything that would leave the
// root is refused. Callers hold m.mu.
func (m *Mem) walk(op, name string, followLast bool) (found, error) {
	perr := func(err error) (found, error) { return found{}, &fs.PathError{Op: op, Path: name, Err: err} }
	if name == "" {
		return perr(syscall.EINVAL) // os.Root: "empty path", not a missing file
	}
	if path.IsAbs(name) {
		return perr(errEscapes)
	}
	// A trailing "/" or "/." names the folder a link leads to.
	mustDir := strings.HasSuffix(name, "/") || strings.HasSuffix(name, "/.")
	followLast = followLast || mustDir
	comps := splitName(name)
	stack := []*memNode{m.root}
	links := 0
	for len(comps) > 0 {
		c := comps[0]
		comps = comps[1:]
		cur := stack[len(stack)-1]
		if c == ".." {
			if len(stack) == 1 {
				return perr(errEscapes)
			}
			stack = stack[:len(stack)-1]
			continue
		}
		child := cur.entries[c]
		if len(comps) == 0 && (child == nil || !child.isLink() || !followLast) {
			if child != nil && !child.isDir() && !child.isLink() && mustDir {
				return perr(syscall.ENOTDIR)
			}
			return found{dir: cur, base: c, node: child}, nil
		}
		if child == nil {
			return perr(syscall.ENOENT)
		}
		if child.isLink() {
			if links++; links > maxLinks {
				return perr(syscall.ELOOP)
			}
			if path.IsAbs(child.target) {
				return perr(errEscapes)
			}
			comps = append(splitName(child.target), comps...)
			continue
		}
		if !child.isDir() {
			return perr(syscall.ENOTDIR)
		}
		stack = append(stack, child)
	}
	return found{node: stack[len(stack)-1]}, nil
}

// splitName splits a slash-separated name into its components, dropping
// empty ones and ".".
func splitName(name string) []string {
	parts := strings.Split(name, "/")
	return slices.DeleteFunc(parts, func(s string) bool { return s == "" || s == "." })
}
