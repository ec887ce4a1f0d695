package engine

import (
	"context"
	"io/fs"
	"path"
	"strings"

	"cairn/internal/vfs"
)

// Where the disk went (cairn storage stats, /storage): one walk of the state
// folder puts every file and folder in exactly one part, so the parts add up
// to what du says of the whole folder. Bytes are apparent sizes, as
// `du -sb` counts them (folders included); Disk is allocated blocks, as
// `du -s -B1` counts them. A file with several names counts once.

// Part names, in the order the bar draws them.
const (
	PartSessions = "sessions" // journals, records, locks, index.json, workspace.json, owners/
	PartChanges  = "changes"  // <id>.changes.jsonl, drops.jsonl, calls.lock: the change records
	PartObjects  = "objects"  // content-addressed payloads and pre-images
	PartOutputs  = "outputs"  // retained tool outputs
	PartArchives = "archives" // archives/ folders
	PartTrash    = "trash"    // trash/ folders: forgotten sessions waiting to be deleted
	PartOther    = "other"    // FORMAT, config, history, the usage ledger, credentials, folders
)

// PartNames is every part, in bar order.
func PartNames() []string {
	return []string{PartSessions, PartChanges, PartObjects, PartOutputs, PartArchives, PartTrash, PartOther}
}

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
// then frees, when nothing changes in between (prune_plan.go works it out
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
	err := walkState(ctx, s.fsys, func(name, part string, fi fs.FileInfo, z Size) error {
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

const objectsFolder = "objects"

// walkState visits every file and folder of the state folder (the folder
// itself included, as du counts it) with the part it belongs to and what
// it takes. Links are not followed. A file with several names is visited
// once, at the first.
func walkState(ctx context.Context, fsys vfs.FS, visit func(name, part string, fi fs.FileInfo, z Size) error) error {
	seen := map[[2]uint64]bool{}
	var walk func(name string) error
	walk = func(name string) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		fi, err := fsys.Lstat(name)
		if err != nil {
			if vfs.IsNotExist(err) && name != "." {
				return nil // gone since it was listed
			}
			return err
		}
		z := sizeOf(fi)
		if _, dev, ino, ok := diskUsage(fi); ok {
			if !fi.IsDir() && seen[[2]uint64{dev, ino}] {
				return nil
			}
			seen[[2]uint64{dev, ino}] = true
		}
		if err := visit(name, partOf(name, fi.IsDir()), fi, z); err != nil {
			return err
		}
		if !fi.IsDir() {
			return nil
		}
		ents, err := fsys.ReadDir(name)
		if err != nil {
			if vfs.IsNotExist(err) {
				return nil
			}
			return err
		}
		for _, e := range ents {
			if err := walk(path.Join(name, e.Name())); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(".")
}

// roundBlock is a file's allocation on a filesystem that gives none (a
// test's): its size rounded up to 4 KiB blocks.
func roundBlock(n int64) int64 { return (n + 4095) / 4096 * 4096 }

// partOf says which part of the state folder the file or folder name
// (relative to it) belongs to.
func partOf(name string, dir bool) string {
	el := strings.Split(name, "/")
	if name == "." {
		return PartOther
	}
	switch el[0] {
	case "trash":
		return PartTrash
	case "archives":
		return PartArchives
	case workspacesDir:
	default:
		return PartOther
	}
	if len(el) < 3 {
		return PartOther // workspaces/ and a workspace's own folder
	}
	switch el[2] {
	case objectsFolder:
		return PartObjects
	case outputsFolder:
		return PartOutputs
	case "trash":
		return PartTrash
	case "archives":
		return PartArchives
	case "drops.jsonl", "calls.lock":
		return PartChanges
	case "sessions":
		if len(el) == 4 && strings.HasSuffix(el[3], ".changes.jsonl") {
			return PartChanges
		}
		return PartSessions
	case "workspace.json", "index.json", "owners":
		return PartSessions
	}
	return PartOther
}
