package migrate

import (
	"encoding/json"
	"path"
	"strings"

	"cairn/engine/internal/layout"
	"cairn/internal/timefmt"
	"cairn/internal/vfs"
)

// KindMoved is the kind of the items journal's last line after a move.
const KindMoved = "moved"

// Plan is moves/<id>.json. Part of the format.
type Plan struct {
	V        int          `json:"v"`
	Kind     string       `json:"kind"`
	Session  string       `json:"session"`
	From     string       `json:"from"`
	To       string       `json:"to"`
	FromPath string       `json:"from_path"`
	ToPath   string       `json:"to_path"`
	At       timefmt.Time `json:"at"`
}

// Src and Dst are the plan's workspace folders.
func (p Plan) Src() string { return layout.WorkspaceDir(p.From) }
func (p Plan) Dst() string { return layout.WorkspaceDir(p.To) }

// PlanName is the plan file of session id.
func PlanName(id string) string { return path.Join(layout.Moves, id+".json") }

// EnsureDir makes moves/ durably.
func EnsureDir(fsys vfs.FS) error {
	return vfs.MkdirAllDurable(fsys, layout.Moves, vfs.DirPerm)
}

// WritePlan writes p's plan file durably: step 1.
func WritePlan(fsys vfs.FS, p Plan) error {
	b, err := json.Marshal(p)
	if err != nil {
		return err
	}
	return vfs.WriteFileAtomic(fsys, PlanName(p.Session), append(b, '\n'))
}

// ReadPlan reads the plan of session id; ok is false when it is not one a
// move wrote (torn, of another session, naming a folder no move names).
func ReadPlan(fsys vfs.FS, id string) (p Plan, ok bool, err error) {
	b, err := vfs.ReadFile(fsys, PlanName(id))
	if err != nil {
		return Plan{}, false, err
	}
	p, ok = ParsePlan(b, id)
	return p, ok, nil
}

// ParsePlan parses plan file b of session id; ok is false when it is not
// one a move wrote.
func ParsePlan(b []byte, id string) (p Plan, ok bool) {
	if json.Unmarshal(b, &p) != nil || p.Kind != "move" || p.Session != id ||
		!layout.ValidKey(p.From) || !layout.ValidKey(p.To) {
		return p, false
	}
	return p, true
}

// Plans lists the plans a crash left behind, sweeping the temp files of
// plans whose write a crash cut short; a name that is not a session's plan
// is left out (fsck names it). No moves/ folder lists nothing.
func Plans(fsys vfs.FS) ([]Plan, error) {
	ents, err := fsys.ReadDir(layout.Moves)
	if err != nil {
		if vfs.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	if len(ents) == 0 {
		return nil, nil
	}
	vfs.SweepTemps(fsys, layout.Moves)
	var out []Plan
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !layout.ValidSessionID(id) {
			continue
		}
		if p, ok, err := ReadPlan(fsys, id); err == nil && ok {
			out = append(out, p)
		}
	}
	return out, nil
}

// DropPlan removes the plan of session id once its move is done or undone.
func DropPlan(fsys vfs.FS, id string) error {
	if err := fsys.Remove(PlanName(id)); err != nil && !vfs.IsNotExist(err) {
		return err
	}
	return fsys.SyncDir(layout.Moves)
}
