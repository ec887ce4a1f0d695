package hookmark

import (
	"encoding/json"

	"cairn/engine/internal/callrec"
	"cairn/engine/internal/changes"
	"cairn/engine/internal/overlap"
)

// KindExec is an exec marker's "kind" ("" is a file edit's).
const KindExec = "exec"

// Marker is exec marker p, at name, as package overlap reads it.
func (p *Exec) Marker(name string) *overlap.Marker {
	sc := overlap.Scope{Paths: p.Paths}
	if p.Scope == callrec.Workspace {
		sc = overlap.Scope{Workspace: true}
	}
	return &overlap.Marker{Name: name, Mark: &p.Mark, Scope: sc, Exec: true, TreeSum: p.Tree.SHA256, Value: p,
		Member: changes.OverlapMember{ID: p.ID, Call: p.Call, Item: p.Item}}
}

// Marker is file-edit marker p, at name, as package overlap reads it.
func (p *Change) Marker(name string) *overlap.Marker {
	return &overlap.Marker{Name: name, Mark: &p.Mark, Scope: EditScope(p.Files), Files: p.Files, Value: p,
		Member: changes.OverlapMember{Call: p.Call, Item: p.Item}}
}

// EditScope is the scope of a file edit of files: their paths.
func EditScope(files []changes.FileChange) overlap.Scope {
	ps := make([]string, len(files))
	for i, f := range files {
		ps[i] = f.Path
	}
	return overlap.Scope{Paths: ps}
}

// Decode reads a pending marker's bytes as package overlap reads a
// marker (overlap.Markers.Decode), nil when they do not read as either
// kind.
func Decode(b []byte) *overlap.Marker {
	var kind struct {
		Kind string `json:"kind"`
	}
	if json.Unmarshal(b, &kind) != nil {
		return nil
	}
	if kind.Kind == KindExec {
		var p Exec
		if json.Unmarshal(b, &p) != nil || p.V != 1 || !changes.ValidSnapID(p.ID) || (p.Scope != callrec.Paths && p.Scope != callrec.Workspace) {
			return nil
		}
		return p.Marker("")
	}
	var p Change
	if json.Unmarshal(b, &p) != nil || p.V != 1 || len(p.Files) == 0 {
		return nil
	}
	return p.Marker("")
}
