package scope

import "strings"

// watchSet is the folders a Watcher watches, by relative path ("" the
// root), indexed so that those at or under a path are found without
// looking at the others: a folder removed or moved away drops its watches
// and its subfolders', on every such event, and a scan of every watched
// folder there made each removal in a call (rm -r of many files) cost
// the number of folders in the tree.
type watchSet struct {
	on map[string]bool
	// kids holds, for a folder, those of its subfolders that are watched
	// or hold one that is, below them.
	kids map[string]map[string]bool
}

func newWatchSet() watchSet {
	return watchSet{on: map[string]bool{}, kids: map[string]map[string]bool{}}
}

// parentOf is the folder of relative path p ("" for a top-level name).
func parentOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

func (s watchSet) has(p string) bool { return s.on[p] }

// add marks p watched.
func (s watchSet) add(p string) {
	s.on[p] = true
	for p != "" {
		par := parentOf(p)
		k := s.kids[par]
		if k == nil {
			k = map[string]bool{}
			s.kids[par] = k
		}
		if k[p] {
			return // its parents lead to it already
		}
		k[p] = true
		p = par
	}
}

// remove marks p not watched.
func (s watchSet) remove(p string) {
	delete(s.on, p)
	for p != "" && !s.on[p] && len(s.kids[p]) == 0 {
		par := parentOf(p)
		delete(s.kids[par], p)
		if len(s.kids[par]) == 0 {
			delete(s.kids, par)
		}
		p = par
	}
}

// atOrUnder is the watched folders that are p or under it.
func (s watchSet) atOrUnder(p string) []string {
	var out []string
	var visit func(q string)
	visit = func(q string) {
		if s.on[q] {
			out = append(out, q)
		}
		for c := range s.kids[q] {
			visit(c)
		}
	}
	visit(p)
	return out
}
