package engine

import (
	"cairn/engine/internal/layout"
	"cairn/engine/internal/stats"
	"context"
	"io/fs"
	"path"
	"strings"
)

// Where the disk went (cairn storage stats, /storage): package stats walks
// the state folder once and puts every file and folder in exactly one
// part, so the parts add up to what du says of the whole folder. Bytes
// are apparent sizes, as `du -sb` counts them (folders included); Disk is
// allocated blocks, as `du -s -B1` counts them. A file with several names
// counts once.

// Part names, in the order the bar draws them.
const (
	PartSessions = stats.PartSessions // journals, records, locks, index.json, workspace.json, owners/
	PartChanges  = stats.PartChanges  // <id>.changes.jsonl, drops.jsonl, calls.lock: the change records
	PartObjects  = stats.PartObjects  // content-addressed payloads and pre-images
	PartOutputs  = stats.PartOutputs  // retained tool outputs
	PartArchives = stats.PartArchives // archives/ folders
	PartTrash    = stats.PartTrash    // trash/ folders: forgotten sessions waiting to be deleted
	PartOther    = stats.PartOther    // FORMAT, config, history, the usage ledger, credentials, folders
)

// PartNames is every part, in bar order.
func PartNames() []string { return stats.Parts() }

// Size is what a set of files takes: apparent bytes (du -sb), allocated
// bytes (du -s -B1), how many files (anything but a folder: a link too)
// and how many folders.
type Size struct {
	Bytes   int64 `json:"bytes"`
	Disk    int64 `json:"disk"`
	Files   int   `json:"files"`
	Folders int   `json:"folders"`
}

func (z *Size) add(o Size) {
	z.Bytes += o.Bytes
	z.Disk += o.Disk
	z.Files += o.Files
	z.Folders += o.Folders
}

// StoragePart is one part of the state folder.
type StoragePart struct {
	Name string `json:"name"`
	Size
}

// Reclaim is what a prune would free, by what it removes: what the prune
// then frees, when nothing changes in between (package prune works it out
// for both).
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

// StorageStats is the state folder's figures.
type StorageStats struct {
	Home       string        `json:"home"`
	Total      Size          `json:"total"`
	Parts      []StoragePart `json:"parts"`
	Workspaces int           `json:"workspaces"`
	Sessions   int           `json:"sessions"`
	Items      int           `json:"items"`
	// Unrecorded is how many sessions have no readable record, so their
	// items are not in Items.
	Unrecorded int     `json:"unrecorded"`
	Reclaim    Reclaim `json:"reclaim"`
}

// Part returns the part named name.
func (st *StorageStats) Part(name string) Size {
	for _, p := range st.Parts {
		if p.Name == name {
			return p.Size
		}
	}
	return Size{}
}

// Stats walks the whole state folder once for the parts, and works out what
// a prune would remove (prunePlan: names, stat data, records and the
// journals for the object names they hold); it writes nothing. A file
// that vanishes during the walk is skipped.
func (s *Store) Stats(ctx context.Context) (*StorageStats, error) {
	st := &StorageStats{Home: s.home}
	parts := map[string]*Size{}
	for _, n := range PartNames() {
		parts[n] = &Size{}
	}
	err := stats.Walk(ctx, s.fsys, func(name, part string, fi fs.FileInfo, sz stats.Size) error {
		z := Size(sz)
		parts[part].add(z)
		st.Total.add(z)
		el := strings.Split(name, "/")
		if el[0] == workspacesDir && len(el) == 2 {
			st.Workspaces++
		}
		if el[0] == workspacesDir && len(el) == 4 && el[2] == sessionsDir && strings.HasSuffix(el[3], ".items.jsonl") {
			st.Sessions++
			if r, err := readRecord(s.fsys, path.Join(el[0], el[1]), strings.TrimSuffix(el[3], ".items.jsonl")); err == nil {
				st.Items += r.Counts.Items
			} else {
				st.Unrecorded++
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	items, _, err := s.prunePlan(ctx, s.now()) // a store it cannot tell about counts none of its objects, as prune removes none
	if err != nil {
		return nil, err
	}
	st.Reclaim = reclaim(items)
	for _, n := range PartNames() {
		st.Parts = append(st.Parts, StoragePart{Name: n, Size: *parts[n]})
	}
	return st, nil
}

const objectsFolder = layout.Objects
