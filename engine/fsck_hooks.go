package engine

import (
	"encoding/json"
	"path"
	"strings"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/fstate"
	"cairn/internal/vfs"
)

// fsckHooks checks the hooks' pending markers of workspace folder dir
// (hooks/<session>/<call>.json, and an exec marker's <call>.tree; hook.go,
// hook_exec.go): a folder of no session (left by a forget of an older
// build, or a delete) is noted, prune removes it once a week old; a marker
// that cannot be read, or a walk without its marker, is noted too (the
// post-tool hook records nothing for it, and the session's next hook
// removes it after a day); a file that is no marker is bad. The objects a
// file edit's marker names must exist (named collects them).
func (s *Store) fsckHooks(dir string, bad, note reporter, named map[string][]string) {
	fsys := s.fsys
	root := path.Join(dir, hooksFolder)
	ents, _ := fsys.ReadDir(root)
	for _, e := range ents {
		folder := path.Join(root, e.Name())
		if msg, ok := dotNote(e.Name()); ok {
			note(folder, "%s", msg)
			continue
		}
		id := e.Name()
		if !e.IsDir() || !validSessionID(id) {
			bad(folder, "unexpected file in the hooks folder")
			continue
		}
		if _, err := fsys.Lstat(itemsName(dir, id)); err != nil {
			note(folder, "pending hook markers of no session (%s holds no items journal): removed by a prune once a week old", id)
			continue
		}
		files, _ := fsys.ReadDir(folder)
		have := map[string]bool{}
		for _, f := range files {
			have[f.Name()] = true
		}
		for _, f := range files {
			name := path.Join(folder, f.Name())
			if msg, ok := dotNote(f.Name()); ok {
				note(name, "%s", msg)
				continue
			}
			switch {
			case f.Name() == transcriptMark && f.Type().IsRegular():
				// How far the hooks read the agent's transcript: a cache.
			case !f.Type().IsRegular():
				bad(name, "unexpected file among the hook markers")
			case strings.HasSuffix(f.Name(), ".tree"):
				if !have[strings.TrimSuffix(f.Name(), ".tree")+".json"] {
					note(name, "a shell command's walk without its marker (a pre-tool hook cut short): removed by the session's next hook after a day")
				}
			case strings.HasSuffix(f.Name(), ".json"):
				if why := s.fsckMarker(name, named); why != "" {
					note(name, "pending hook marker that cannot be read (%s): its post-tool hook records nothing; removed by the session's next hook after a day", why)
				}
			default:
				bad(name, "unexpected file among the hook markers")
			}
		}
	}
}

// fsckMarker reads marker name: why it cannot be used, or "". A file
// edit's pre-images are named in named.
func (s *Store) fsckMarker(name string, named map[string][]string) string {
	b, err := vfs.ReadFile(s.fsys, name)
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
	case json.Unmarshal(b, &m) != nil || m.V != 1 || !labelRE.MatchString(m.Tool):
		return "not a marker"
	case m.Kind == markerExec:
		if !changes.ValidSnapID(m.ID) {
			return "bad record id"
		}
		if _, err := s.fsys.Lstat(execTreeName(name)); err != nil {
			return "its walk " + path.Base(execTreeName(name)) + " is missing"
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
