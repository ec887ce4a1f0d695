package prune

import (
	"path"
	"strings"

	"cairn/engine/internal/layout"
	"cairn/engine/internal/objref"
	"cairn/engine/internal/scope"
	"cairn/internal/vfs"
	"cairn/objects"
)

// WalkRefs adds to refs the objects that a workspace's walks rely on being
// stored without naming them in any journal (wsDir is the workspace
// folder, or a trash entry, which holds hooks/ and no stat cache): the
// hashes of its stat cache (a later record takes the content before of an
// unchanged file from it, unread, so the object must still be there when
// the file then changes), those of the walks its agents' pre-tool hooks
// keep for their post-tool hooks (hooks/<id>/<call>.tree), and the
// pre-images a pending change's marker names (hooks/<id>/<call>.json)
// until its post-tool hook records the change. A file that cannot be
// read, or a folder that cannot be listed, adds "?": the caller removes
// nothing then. A file that is there but does not decode names nothing, as
// no walk uses it either.
func WalkRefs(fsys vfs.FS, wsDir string, refs map[string]bool) {
	add := func(id objects.ID) {
		if id != (objects.ID{}) {
			refs[id.String()] = true
		}
	}
	b, err := vfs.ReadFile(fsys, layout.StatCache(wsDir))
	switch {
	case vfs.IsNotExist(err):
	case err != nil:
		refs["?"] = true
	default:
		if c, err := scope.DecodeCache(b); err == nil {
			c.Hashes(add)
		}
	}
	root := path.Join(wsDir, layout.Hooks)
	unreadable := func(err error) bool {
		if err != nil && !vfs.IsNotExist(err) {
			refs["?"] = true
			return true
		}
		return false
	}
	sessions, err := fsys.ReadDir(root)
	if unreadable(err) {
		return
	}
	for _, d := range sessions {
		if !d.IsDir() {
			continue
		}
		files, err := fsys.ReadDir(path.Join(root, d.Name()))
		if unreadable(err) {
			return
		}
		for _, f := range files {
			name := path.Join(root, d.Name(), f.Name())
			if f.Type().IsRegular() && strings.HasSuffix(f.Name(), ".json") {
				// A pending change's marker: its pre-images, by oid.
				if unreadable(objref.File(fsys, name, refs)) {
					return
				}
				continue
			}
			if !f.Type().IsRegular() || !strings.HasSuffix(f.Name(), ".tree") {
				continue
			}
			b, err := vfs.ReadFile(fsys, name)
			if err != nil {
				if unreadable(err) {
					return
				}
				continue
			}
			if t, err := scope.DecodeTree(b); err == nil {
				for e := range t.All() {
					add(e.Hash)
				}
			}
		}
	}
}
