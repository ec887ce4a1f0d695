package overlap

import (
	"io/fs"
	"slices"
	"sort"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/fstate"
	"cairn/engine/internal/scope"
)

// Member is one call of a unit as its end needs it: its scope and what
// it held when it began.
type Member struct {
	Scope Scope
	// Walk is a recorded call's walk of its scope when it began; nil for
	// a file tool's call, whose Files hold its pre-images ("before").
	Walk  *scope.Tree
	Files []changes.FileChange
	// Seen is, for a call that is not workspace-wide, the files it held
	// when it began that a whole-workspace walk covered then
	// (scope.WalkVisible): a workspace-wide call that began before it and
	// does not hold one of them saw it absent.
	Seen []string
}

// After is the unit's files now, at its end: a walk of the whole
// workspace (nil when no member is workspace-wide) and a walk of every
// path the other members name (nil when none does).
type After struct {
	Workspace, Paths *scope.Tree
}

// Change is one file of a unit's net change. Link is the target of a
// link its Before names by the hash of the target, which a walk does
// not store: the caller stores it.
type Change struct {
	changes.FileChange
	Link string
}

// Net is the unit's net change: each file any member covers, from what it
// held when the first member (in the order given, the order they began)
// that covers it began, to what it holds now, the files that hold the
// same left out.
//
// A workspace-wide member covers a file its walk holds, and one a
// whole-workspace walk covers (the walk after, another workspace-wide
// member's walk, a later member's Seen) that its walk does not hold:
// absent when it began. Another member covers the files at or under the
// paths it names. What a file holds now is read from the walk of named
// paths when a member names it, else from the workspace's.
func Net(members []Member, after After) []Change {
	visible := map[string]bool{}
	var named []string
	cands := map[string]bool{}
	addTree := func(t *scope.Tree, ws bool) {
		if t == nil {
			return
		}
		for e := range t.All() {
			cands[e.Path] = true
			if ws {
				visible[e.Path] = true
			}
		}
	}
	for _, m := range members {
		addTree(m.Walk, m.Scope.Workspace)
		for _, f := range m.Files {
			cands[f.Path] = true
		}
		for _, p := range m.Seen {
			visible[p] = true
		}
		if !m.Scope.Workspace {
			named = append(named, m.Scope.Paths...)
		}
	}
	addTree(after.Workspace, true)
	addTree(after.Paths, false)
	paths := make([]string, 0, len(cands))
	for p := range cands {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var out []Change
	for _, p := range paths {
		var now *scope.Entry
		if covers(named, p) {
			now = lookup(after.Paths, p)
		} else {
			now = lookup(after.Workspace, p)
		}
		was, pre := before(members, visible, p)
		if c, ok := change(p, was, pre, now); ok {
			out = append(out, c)
		}
	}
	return out
}

// before is what file p held when the first member covering it began: a
// walk's entry (nil: absent), or a file tool's pre-image.
func before(members []Member, visible map[string]bool, p string) (*scope.Entry, *fstate.State) {
	for _, m := range members {
		switch {
		case m.Scope.Workspace:
			if e := lookup(m.Walk, p); e != nil {
				return e, nil
			}
			if visible[p] {
				return nil, nil
			}
		case !covers(m.Scope.Paths, p):
		case m.Walk != nil:
			return lookup(m.Walk, p), nil
		default:
			if i := slices.IndexFunc(m.Files, func(f changes.FileChange) bool { return f.Path == p }); i >= 0 {
				return nil, m.Files[i].Before
			}
			return nil, nil
		}
	}
	return nil, nil
}

// change is the net change of p from was (a walk's entry) or pre (a file
// tool's pre-image) to now, if it changed.
func change(p string, was *scope.Entry, pre *fstate.State, now *scope.Entry) (Change, bool) {
	after := EntryState(now, false)
	c := Change{FileChange: changes.FileChange{Path: p, After: after}}
	if pre != nil {
		c.Before = pre
		return c, !fstate.Same(pre, after)
	}
	c.Before = EntryState(was, true)
	switch {
	case c.Before == nil && after == nil:
		return c, false // absent, or a folder: its files say what changed
	case c.Before != nil && after != nil && !scope.Changed(was, now):
		return c, false
	}
	if was != nil && was.Mode&fs.ModeSymlink != 0 {
		c.Link = was.Link
	}
	return c, true
}

func lookup(t *scope.Tree, p string) *scope.Entry {
	if t == nil {
		return nil
	}
	return t.Lookup(p)
}

// EntryState is the state of a walked entry: stored (its content as the
// object the walk stored, or the target of a link by its hash) or by its
// hash; nil for none or a folder.
func EntryState(e *scope.Entry, stored bool) *fstate.State {
	if e == nil || e.IsDir() {
		return nil
	}
	if e.Skipped != "" {
		return &fstate.State{Skipped: e.Skipped, Size: e.Size}
	}
	f := &fstate.State{Size: e.Size}
	if e.Mode&fs.ModeSymlink != 0 {
		f.Mode, f.Size = fstate.ModeLink, int64(len(e.Link))
	} else {
		f.Mode, f.Perm = fstate.PermMode(e.Mode.Perm()), fstate.PermString(e.Mode.Perm())
	}
	if stored {
		f.OID = e.Hash.String()
	} else {
		f.SHA256 = e.Hash.String()
	}
	return f
}
