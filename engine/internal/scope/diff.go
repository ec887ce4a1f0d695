package scope

import (
	"slices"
	"strings"
)

// Op is what happened to a path between two walks.
type Op int

const (
	Created Op = iota + 1
	Modified
	Deleted
	// ModeChanged: only the executable bit changed.
	ModeChanged
)

// Change is one path that differs between two walks. Before is nil for a
// created path, After for a deleted one; both point at entries of the
// trees (or copies of them), not to be changed.
type Change struct {
	Path          string
	Op            Op
	Before, After *Entry
}

// Diff lists the paths that differ from before to after, sorted by path.
// A regular file is Modified when its content hash (or its Skipped state,
// or its size when skipped) differs, a link when its target does, any
// entry when its type does (file to link, file to folder); ModeChanged
// when only the executable bit does. A folder appears only when created or
// deleted: its own stat data changes with its entries, listed themselves.
// Nothing under a folder either walk could not read (Tree.Unread) appears:
// what it held is unknown on that side, not created or deleted.
func Diff(before, after *Tree) []Change {
	if before == after {
		return nil
	}
	out := diff(before, after)
	if len(before.Unread) == 0 && len(after.Unread) == 0 {
		return out
	}
	return slices.DeleteFunc(out, func(c Change) bool { return inUnread(c.Path, before.Unread) || inUnread(c.Path, after.Unread) })
}

// inUnread reports whether path p lies under one of the folders dirs.
func inUnread(p string, dirs []string) bool {
	for _, d := range dirs {
		if strings.HasPrefix(p, d) && len(p) > len(d) && p[len(d)] == '/' {
			return true
		}
	}
	return false
}

// diff is Diff before the unread folders are taken out.
func diff(before, after *Tree) []Change {
	if after.base == before {
		// A rescan of before: only its changed paths can differ.
		var out []Change
		for _, p := range after.changed {
			out = diffEntries(out, one(before, p), one(after, p))
			out = diffEntries(out, before.subtree(p), after.subtree(p))
		}
		slices.SortFunc(out, func(x, y Change) int { return strings.Compare(x.Path, y.Path) })
		return out
	}
	return diffEntries(nil, before.Entries(), after.Entries())
}

// one is the entry of path p in t, as a slice of zero or one.
func one(t *Tree, p string) []Entry {
	c, i := t.search(p)
	if c < len(t.chunks) && i < len(t.chunks[c]) && t.chunks[c][i].Path == p {
		return t.chunks[c][i : i+1]
	}
	return nil
}

// diffEntries appends the changes from sorted b to sorted a.
func diffEntries(out []Change, b, a []Entry) []Change {
	i, j := 0, 0
	for i < len(b) || j < len(a) {
		var c int
		switch {
		case i == len(b):
			c = 1
		case j == len(a):
			c = -1
		default:
			c = strings.Compare(b[i].Path, a[j].Path)
		}
		switch {
		case c < 0:
			out = append(out, Change{Path: b[i].Path, Op: Deleted, Before: &b[i]})
			i++
		case c > 0:
			out = append(out, Change{Path: a[j].Path, Op: Created, After: &a[j]})
			j++
		default:
			if op := compare(&b[i], &a[j]); op != 0 {
				out = append(out, Change{Path: a[j].Path, Op: op, Before: &b[i], After: &a[j]})
			}
			i++
			j++
		}
	}
	return out
}

// compare is what changed from x to y, the same path (0: nothing).
func compare(x, y *Entry) Op {
	if x.Mode.Type() != y.Mode.Type() {
		return Modified
	}
	switch {
	case x.IsDir():
		return 0
	case x.Mode.Type() != 0: // a link
		if x.Link != y.Link {
			return Modified
		}
		return 0
	}
	if x.Skipped != y.Skipped || x.Hash != y.Hash || x.Skipped != "" && (x.Size != y.Size || x.MtimeNS != y.MtimeNS || x.CtimeNS != y.CtimeNS) {
		return Modified
	}
	if x.Exec() != y.Exec() {
		return ModeChanged
	}
	return 0
}
