package fsck

import (
	"encoding/json"
	"path"
	"strings"

	"cairn/engine/internal/audit"
	"cairn/engine/internal/changes"
	"cairn/engine/internal/fstate"
	"cairn/engine/internal/hookrec"
	"cairn/engine/internal/layout"
	"cairn/internal/vfs"
)

// hooks checks the hooks' pending markers of workspace folder dir
// (hooks/<session>/<call>.json, and a shell command marker's <call>.tree):
// a folder of no session (left by a forget of an older build, or a
// delete) is noted, prune removes it once a week old; a marker that cannot
// be read, or a walk without its marker, is noted too (the post-tool hook
// records nothing for it, and the session's next hook removes it after a
// day); a file that is no marker is bad. The objects a file edit's marker
// names must exist (named collects them).
func (c *Checker) hooks(dir string, named map[string][]string) {
	bad, note := c.Bad, c.Note
	root := path.Join(dir, layout.Hooks)
	ents, _ := c.FS.ReadDir(root)
	for _, e := range ents {
		folder := path.Join(root, e.Name())
		if msg, ok := DotNote(e.Name()); ok {
			note(folder, "%s", msg)
			continue
		}
		id := e.Name()
		if !e.IsDir() || !layout.ValidSessionID(id) {
			bad(folder, "unexpected file in the hooks folder")
			continue
		}
		if _, err := c.FS.Lstat(layout.Items(dir, id)); err != nil {
			note(folder, "pending hook markers of no session (%s holds no items journal): removed by a prune once a week old", id)
			continue
		}
		files, _ := c.FS.ReadDir(folder)
		have := map[string]bool{}
		for _, f := range files {
			have[f.Name()] = true
		}
		for _, f := range files {
			name := path.Join(folder, f.Name())
			if msg, ok := DotNote(f.Name()); ok {
				note(name, "%s", msg)
				continue
			}
			switch {
			case (f.Name() == c.Transcript || f.Name() == hookrec.IndexFile) && f.Type().IsRegular():
				// How far the hooks read the agent's transcript, and the
				// prompt hook's index: caches.
			case !f.Type().IsRegular():
				bad(name, "unexpected file among the hook markers")
			case strings.HasSuffix(f.Name(), ".tree"):
				if !have[strings.TrimSuffix(f.Name(), ".tree")+".json"] {
					note(name, "a shell command's walk without its marker (a pre-tool hook cut short): removed by the session's next hook after a day")
				}
			case strings.HasSuffix(f.Name(), ".json"):
				if why := c.marker(name, named); why != "" {
					note(name, "pending hook marker that cannot be read (%s): its post-tool hook records nothing; removed by the session's next hook after a day", why)
				}
			default:
				bad(name, "unexpected file among the hook markers")
			}
		}
	}
}

// marker reads marker name: why it cannot be used, or "". A file edit's
// pre-images are named in named.
func (c *Checker) marker(name string, named map[string][]string) string {
	b, err := vfs.ReadFile(c.FS, name)
	if err != nil {
		return err.Error()
	}
	var m struct {
		V     int                  `json:"v"`
		Kind  string               `json:"kind"`
		Tool  string               `json:"tool"`
		ID    string               `json:"id"`
		Files []changes.FileChange `json:"files"`
	}
	switch {
	case json.Unmarshal(b, &m) != nil || m.V != 1 || !audit.ValidLabel(m.Tool):
		return "not a marker"
	case m.Kind == c.ExecKind:
		if !changes.ValidSnapID(m.ID) {
			return "bad record id"
		}
		tree := strings.TrimSuffix(name, ".json") + ".tree" // the walk beside a shell command's marker
		if _, err := c.FS.Lstat(tree); err != nil {
			return "its walk " + path.Base(tree) + " is missing"
		}
	case m.Kind != "":
		return "unknown kind " + m.Kind
	case len(m.Files) == 0:
		return "names no file"
	}
	for _, f := range m.Files {
		if !fstate.ValidRel(f.Path) || (f.Before != nil && !f.Before.Valid(fstate.FormBefore)) {
			return "bad file " + f.Path
		}
		if f.Before != nil && f.Before.OID != "" && named != nil {
			named[f.Before.OID] = append(named[f.Before.OID], name)
		}
	}
	return ""
}
