package overlap

import (
	"path"
	"strings"
)

// Scope is what a call may change: the whole workspace, or the named
// paths (workspace-relative, slash-separated; a folder stands for
// everything under it). A file tool's scope is its files.
type Scope struct {
	Workspace bool
	Paths     []string
}

// Intersects reports whether a and b may name one file: either is the
// whole workspace, or a path of one is a path of the other or under it.
// Literal paths are compared as written: a link is not followed.
func (a Scope) Intersects(b Scope) bool {
	if a.empty() || b.empty() {
		return false
	}
	if a.Workspace || b.Workspace {
		return true
	}
	for _, p := range a.Paths {
		for _, q := range b.Paths {
			if under(p, q) || under(q, p) {
				return true
			}
		}
	}
	return false
}

func (a Scope) empty() bool { return !a.Workspace && len(a.Paths) == 0 }

// covers reports whether p is one of the named paths or under one.
func covers(paths []string, p string) bool {
	for _, q := range paths {
		if under(p, q) {
			return true
		}
	}
	return false
}

// under reports whether p is q or under it.
func under(p, q string) bool {
	p, q = path.Clean(p), path.Clean(q)
	return p == q || q == "." || strings.HasPrefix(p, q+"/")
}
