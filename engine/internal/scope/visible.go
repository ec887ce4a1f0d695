package scope

import (
	"context"
	"path"
	"slices"
	"strings"
)

// WalkVisible lists, of the paths (relative, as Scope.Paths) and what is
// under a folder among them, the entries a whole-workspace Walk covers:
// each is held to the .gitignore files of its folders and to the
// left-out rules, as Walk holds it. A path a Walk would not cover, or
// that does not exist, is absent. opts.Cache is not used: it answers
// which files a walk sees, for a caller that already holds their
// content.
func WalkVisible(ctx context.Context, root string, paths []string, opts Options) (*Tree, error) {
	opts.Cache, opts.Flush = nil, nil
	w, err := newWalker(ctx, root, opts)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, p := range paths {
		p = path.Clean(p)
		if p == "." || p == ".." || strings.HasPrefix(p, "../") || strings.HasPrefix(p, "/") || seen[p] || coveredBy(p, paths) {
			continue
		}
		seen[p] = true
		w.one(p, false)
	}
	t, err := w.finish()
	if err != nil {
		return nil, err
	}
	if ents := t.Entries(); len(ents) > 0 {
		t = newTree(slices.CompactFunc(ents, func(a, b Entry) bool { return a.Path == b.Path }), t.Files, t.Bytes)
	}
	return t, nil
}

// Changed reports whether the entry of one path differs from x to y, as
// Diff tells it (a folder never differs from a folder).
func Changed(x, y *Entry) bool { return compare(x, y) != 0 }
