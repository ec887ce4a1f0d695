package prune

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path"
	"strings"

	"cairn/engine/internal/layout"
	"cairn/engine/internal/objref"
	"cairn/internal/vfs"
)

// Refs gathers the objects named by the files of workspace folder ws and
// of the trash entries kept, or says why it cannot tell. drops are ws's
// dropped records by session (its drops.jsonl).
func Refs(fsys vfs.FS, ws string, drops map[string]map[string]bool, kept []string) (map[string]bool, error) {
	var unread error
	cannotTell := func(name string, err error) {
		if unread == nil {
			unread = fmt.Errorf("%s: %w", name, err)
		}
	}
	refs := map[string]bool{}
	scan := func(dir string) {
		ents, err := fsys.ReadDir(dir)
		if err != nil && !vfs.IsNotExist(err) {
			cannotTell(dir, err)
		}
		for _, e := range ents {
			name := e.Name()
			if !e.Type().IsRegular() || (!strings.HasSuffix(name, ".jsonl") && !strings.HasSuffix(name, ".json")) {
				continue
			}
			b, err := vfs.ReadFile(fsys, path.Join(dir, name))
			if err != nil {
				cannotTell(path.Join(dir, name), err)
				continue
			}
			if id, ok := strings.CutSuffix(name, layout.ChangesSuffix); ok {
				LiveRefs(b, drops[id], refs)
				continue
			}
			for _, m := range objref.Ref.FindAllSubmatch(b, -1) {
				refs[string(m[1])] = true
			}
		}
	}
	// Sub-agent transcripts (tasks/<session>/) name payload objects too.
	scanTasks := func(dir string) {
		ents, err := fsys.ReadDir(dir)
		if err != nil && !vfs.IsNotExist(err) {
			cannotTell(dir, err)
		}
		for _, e := range ents {
			if e.IsDir() {
				scan(path.Join(dir, e.Name()))
			}
		}
	}
	scan(ws)
	scan(layout.SessionsDir(ws))
	scanTasks(path.Join(ws, layout.Tasks))
	WalkRefs(fsys, ws, refs)
	for _, t := range kept {
		scan(layout.SessionsDir(t))
		scanTasks(path.Join(t, layout.Tasks))
		WalkRefs(fsys, t, refs) // its hook walks, which a restore brings back
	}
	if refs["?"] && unread == nil {
		unread = errors.New("a walk's file or folder cannot be read")
	}
	if unread != nil {
		return nil, fmt.Errorf("cannot tell which objects are still named (%w)", unread)
	}
	return refs, nil
}

// LiveRefs adds to refs the objects a changes journal's lines name, less
// those of its records that are dropped: by a drop line of the journal
// itself (the undo stack's limits, the store's budget) or by the
// workspace's drops.jsonl (dropped). A dropped record is dead for undo
// and for file revert alike, so its objects are the store's to free: this
// is how prune brings each change store down to its budget.
func LiveRefs(b []byte, dropped map[string]bool, refs map[string]bool) {
	lines := bytes.Split(b, []byte("\n"))
	dead := maps.Clone(dropped)
	if dead == nil {
		dead = map[string]bool{}
	}
	for _, l := range lines {
		if !bytes.Contains(l, []byte(`"kind":"drop"`)) {
			continue
		}
		var d struct {
			Kind string   `json:"kind"`
			IDs  []string `json:"ids"`
		}
		if json.Unmarshal(l, &d) == nil && d.Kind == "drop" {
			for _, id := range d.IDs {
				dead[id] = true
			}
		}
	}
	for _, l := range lines {
		ms := objref.Ref.FindAllSubmatch(l, -1)
		if len(ms) == 0 {
			continue
		}
		var c struct {
			Kind string `json:"kind"`
			ID   string `json:"id"`
		}
		if json.Unmarshal(l, &c) == nil && (c.Kind == "change" || c.Kind == "record") && dead[c.ID] {
			continue
		}
		for _, m := range ms {
			refs[string(m[1])] = true
		}
	}
}
