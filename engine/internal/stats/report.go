package stats

import (
	"context"
	"io/fs"
	"strings"

	"cairn/engine/internal/layout"
	"cairn/internal/vfs"
)

// PartSize is one part of the state folder.
type PartSize struct {
	Name string `json:"name"`
	Size
}

// Reclaim is what a prune would free, by what it removes: what the prune
// then frees, when nothing changes in between (package prune works it
// out for both).
type Reclaim struct {
	Size
	// Temps: temp files (".<name>.<pid>-<16 hex>.cairn-tmp") whose
	// process is gone.
	Temps Size `json:"temps"`
	// OrphanOutputs: outputs/<id> folders of sessions that no longer
	// exist, untouched for 7 days.
	OrphanOutputs Size `json:"orphan_outputs"`
	// OrphanFiles: records, journals, locks, owner hints and hook markers
	// of sessions that no longer exist, 7 days old.
	OrphanFiles Size `json:"orphan_files"`
	// UnreferencedObjects: objects older than 7 days that nothing of their
	// workspace names once the old trash is purged.
	UnreferencedObjects Size `json:"unreferenced_objects"`
	// OldTrash: the trash's entries (trash/<id>/, retention's forget)
	// forgotten at least 7 days ago by their forgotten.json, and entries
	// being purged (trash/.purge-<id>/).
	OldTrash Size `json:"old_trash"`
}

// Report is the state folder's figures.
type Report struct {
	Home       string     `json:"home"`
	Total      Size       `json:"total"`
	Parts      []PartSize `json:"parts"`
	Workspaces int        `json:"workspaces"`
	Sessions   int        `json:"sessions"`
	Items      int        `json:"items"`
	// Unrecorded is how many sessions have no readable record, so their
	// items are not in Items.
	Unrecorded int     `json:"unrecorded"`
	Reclaim    Reclaim `json:"reclaim"`
}

// Part returns the part named name.
func (st *Report) Part(name string) Size {
	for _, p := range st.Parts {
		if p.Name == name {
			return p.Size
		}
	}
	return Size{}
}

// Count walks the whole state folder once (Walk) for the parts, the
// workspaces and the sessions; items says how many items session id of
// workspace folder ws holds by its record, or false when it has none that
// reads. Reclaim is left for the caller.
func Count(ctx context.Context, fsys vfs.FS, items func(ws, id string) (int, bool)) (*Report, error) {
	st := &Report{}
	parts := map[string]*Size{}
	for _, n := range Parts() {
		parts[n] = &Size{}
	}
	err := Walk(ctx, fsys, func(name, part string, fi fs.FileInfo, z Size) error {
		parts[part].Add(z)
		st.Total.Add(z)
		el := strings.Split(name, "/")
		if el[0] == layout.Workspaces && len(el) == 2 {
			st.Workspaces++
		}
		if el[0] == layout.Workspaces && len(el) == 4 && el[2] == layout.Sessions && strings.HasSuffix(el[3], layout.ItemsSuffix) {
			st.Sessions++
			if n, ok := items(layout.WorkspaceDir(el[1]), strings.TrimSuffix(el[3], layout.ItemsSuffix)); ok {
				st.Items += n
			} else {
				st.Unrecorded++
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, n := range Parts() {
		st.Parts = append(st.Parts, PartSize{Name: n, Size: *parts[n]})
	}
	return st, nil
}
