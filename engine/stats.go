package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"path"
	"strings"

	"cairn/internal/vfs"
	"cairn/journal"
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
// bytes (du -s -B1), and how many files and folders.
type Size struct {
	Bytes int64 `json:"bytes"`
	Disk  int64 `json:"disk"`
	Files int   `json:"files"`
}

func (z *Size) add(o Size) { z.Bytes += o.Bytes; z.Disk += o.Disk; z.Files += o.Files }

// StoragePart is one part of the state folder.
type StoragePart struct {
	Name string `json:"name"`
	Size
}

// Reclaim is what a prune would free, by what it counts. The figure is an
// estimate made from names and times alone: a prune decides again when it
// runs.
type Reclaim struct {
	Size
	// Temps: temp files (".<name>.<pid>-<16 hex>.cairn-tmp") whose
	// process is gone.
	Temps Size `json:"temps"`
	// OrphanOutputs: outputs/<id> folders of sessions that no longer
	// exist, untouched for 7 days.
	OrphanOutputs Size `json:"orphan_outputs"`
	// UnreferencedObjects: objects older than 7 days that no journal line
	// or record of their workspace names.
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

// Stats walks the whole state folder once. It reads names, stat data,
// records and the journals (for the object names they hold); it writes
// nothing. A file that vanishes during the walk is skipped.
func (s *Store) Stats(ctx context.Context) (*StorageStats, error) {
	st := &StorageStats{Home: s.home}
	parts := map[string]*Size{}
	for _, n := range PartNames() {
		parts[n] = &Size{}
	}
	// What a prune would take: older than its grace (trashGrace), so a
	// writer storing one right now is never raced.
	old := s.now().Add(-trashGrace)
	type wsObjs struct {
		named map[string]bool
		objs  []objFile
	}
	stores := map[string]*wsObjs{}   // workspace folder -> its objects and the names its lines hold
	orphanOut := map[string]bool{}   // outputs/<id> folders without a session
	trash := map[string]*trashStat{} // trash/<entry> -> what it takes and names
	err := walkState(ctx, s.fsys, func(name, part string, fi fs.FileInfo, z Size) error {
		parts[part].add(z)
		st.Total.add(z)
		base := path.Base(name)
		if fi.Mode().IsRegular() && vfs.TempLeftover(base) {
			st.Reclaim.Temps.add(z)
			return nil
		}
		el := strings.Split(name, "/")
		if el[0] == workspacesDir && len(el) >= 2 {
			ws := path.Join(el[0], el[1])
			o := stores[ws]
			if o == nil {
				o = &wsObjs{named: map[string]bool{}}
				stores[ws] = o
			}
			if len(el) == 2 {
				st.Workspaces++
			}
			switch {
			case len(el) == 4 && el[2] == sessionsDir && strings.HasSuffix(base, ".items.jsonl"):
				st.Sessions++
				id := strings.TrimSuffix(base, ".items.jsonl")
				if r, err := readRecord(s.fsys, ws, id); err == nil {
					st.Items += r.Counts.Items
				} else {
					st.Unrecorded++
				}
			case len(el) == 5 && el[2] == objectsFolder && fi.Mode().IsRegular():
				o.objs = append(o.objs, objFile{oid: el[3] + strings.TrimSuffix(base, ".zst"), old: fi.ModTime().Before(old), z: z})
			case len(el) == 4 && el[2] == outputsFolder && fi.IsDir():
				if _, err := s.fsys.Stat(itemsName(ws, base)); vfs.IsNotExist(err) {
					if newest, err := newestMtime(s.fsys, name); err == nil && newest.Before(old) {
						orphanOut[name] = true
					}
				}
			}
			if len(el) >= 4 && el[2] == outputsFolder && orphanOut[path.Join(el[:4]...)] {
				st.Reclaim.OrphanOutputs.add(z)
			}
			if part != PartObjects && part != PartOutputs && fi.Mode().IsRegular() &&
				(strings.HasSuffix(base, ".jsonl") || strings.HasSuffix(base, ".json")) {
				namedObjects(s.fsys, name, o.named)
			}
		}
		if el[0] == trashDir && len(el) >= 2 {
			e := trash[el[1]]
			if e == nil {
				e = &trashStat{named: map[string]bool{}}
				trash[el[1]] = e
			}
			e.z.add(z)
			if fi.Mode().IsRegular() && strings.HasSuffix(base, ".jsonl") {
				namedObjects(s.fsys, name, e.named)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// A forgotten session's journals still name its objects (prune counts
	// them as references); an entry is purged 7 days after its forget.
	for name, e := range trash {
		var note struct {
			Workspace string `json:"workspace"`
			At        Time   `json:"at"`
		}
		b, err := vfs.ReadFile(s.fsys, path.Join(trashEntry(name), trashNote))
		if err == nil && json.Unmarshal(b, &note) == nil {
			if o := stores[path.Join(workspacesDir, note.Workspace)]; o != nil {
				for oid := range e.named {
					o.named[oid] = true
				}
				walkRefs(s.fsys, trashEntry(name), o.named) // its hook walks
			}
		}
		if strings.HasPrefix(name, purgePrefix) || err == nil && note.At.Before(old) {
			st.Reclaim.OldTrash.add(e.z)
		}
	}
	for ws, o := range stores {
		walkRefs(s.fsys, ws, o.named)
		if o.named["?"] {
			continue // prune removes nothing from this store
		}
		for _, f := range o.objs {
			if f.old && !o.named[f.oid] {
				st.Reclaim.UnreferencedObjects.add(f.z)
			}
		}
	}
	for _, z := range []Size{st.Reclaim.Temps, st.Reclaim.OrphanOutputs, st.Reclaim.UnreferencedObjects, st.Reclaim.OldTrash} {
		st.Reclaim.add(z)
	}
	for _, n := range PartNames() {
		st.Parts = append(st.Parts, StoragePart{Name: n, Size: *parts[n]})
	}
	return st, nil
}

type trashStat struct {
	z     Size
	named map[string]bool
}

type objFile struct {
	oid string
	old bool
	z   Size
}

const objectsFolder = "objects"

// namedObjects adds the objects file name names to named, and says why it
// could not read it (Stats counts such a file as naming nothing: fsck
// names it). A journal is read a line at a time, never whole.
func namedObjects(fsys vfs.FS, name string, named map[string]bool) error {
	add := func(b []byte) error {
		if bytes.Contains(b, []byte(`"oid"`)) {
			for _, m := range oidRef.FindAllSubmatch(b, -1) {
				named[string(m[1])] = true
			}
		}
		return nil
	}
	if strings.HasSuffix(name, ".jsonl") {
		_, err := journal.Read(fsys, name, add)
		return err
	}
	b, err := vfs.ReadFile(fsys, name)
	if err == nil {
		add(b)
	}
	return err
}

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
		z := Size{Bytes: fi.Size(), Files: 1}
		if disk, dev, ino, ok := diskUsage(fi); ok {
			if !fi.IsDir() && seen[[2]uint64{dev, ino}] {
				return nil
			}
			seen[[2]uint64{dev, ino}] = true
			z.Disk = disk
		} else {
			z.Disk = roundBlock(fi.Size())
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
