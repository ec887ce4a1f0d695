package stats

import (
	"context"
	"io/fs"
	"path"
	"strings"

	"cairn/engine/internal/layout"
	"cairn/internal/vfs"
)

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

// Parts is every part, in bar order.
func Parts() []string {
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

// Add adds o to z.
func (z *Size) Add(o Size) {
	z.Bytes += o.Bytes
	z.Disk += o.Disk
	z.Files += o.Files
	z.Folders += o.Folders
}

// Of is what one file or folder takes by itself.
func Of(fi fs.FileInfo) Size {
	z := Size{Bytes: fi.Size()}
	if fi.IsDir() {
		z.Folders = 1
	} else {
		z.Files = 1
	}
	if disk, _, _, ok := diskUsage(fi); ok {
		z.Disk = disk
	} else {
		z.Disk = roundBlock(fi.Size())
	}
	return z
}

// File is what a file takes, counted as one file whatever it is.
func File(fi fs.FileInfo) Size {
	z := Size{Bytes: fi.Size(), Files: 1, Disk: roundBlock(fi.Size())}
	if disk, _, _, ok := diskUsage(fi); ok {
		z.Disk = disk
	}
	return z
}

// Tree is what name takes with all it holds, as Walk counts it.
func Tree(ctx context.Context, fsys vfs.FS, name string) Size {
	var z Size
	fi, err := fsys.Lstat(name)
	if err != nil {
		return z
	}
	z.Add(Of(fi))
	if fi.IsDir() {
		WalkNames(ctx, fsys, name, func(n string, _ bool) bool {
			if fi, err := fsys.Lstat(n); err == nil {
				z.Add(Of(fi))
			}
			return true
		})
	}
	return z
}

// WalkNames visits every file and folder under root (not root itself),
// with whether it is a folder; a folder is entered when visit says so.
// Links are not followed. A folder that cannot be listed is passed over:
// what it holds is not visited.
func WalkNames(ctx context.Context, fsys vfs.FS, root string, visit func(name string, dir bool) bool) error {
	ents, _ := fsys.ReadDir(root)
	for _, e := range ents {
		if err := ctx.Err(); err != nil {
			return err
		}
		name := path.Join(root, e.Name())
		if visit(name, e.IsDir()) && e.IsDir() {
			if err := WalkNames(ctx, fsys, name, visit); err != nil {
				return err
			}
		}
	}
	return nil
}

// Walk visits every file and folder of fsys (its root included, as du
// counts it) with the part it belongs to and what it takes. Links are not
// followed. A file with several names is visited once, at the first.
func Walk(ctx context.Context, fsys vfs.FS, visit func(name, part string, fi fs.FileInfo, z Size) error) error {
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
		z := Of(fi)
		if _, dev, ino, ok := diskUsage(fi); ok {
			if !fi.IsDir() && seen[[2]uint64{dev, ino}] {
				return nil
			}
			seen[[2]uint64{dev, ino}] = true
		}
		if err := visit(name, PartOf(name, fi.IsDir()), fi, z); err != nil {
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

// PartOf says which part of the state folder the file or folder name
// (relative to it) belongs to.
func PartOf(name string, dir bool) string {
	el := strings.Split(name, "/")
	if name == "." {
		return PartOther
	}
	switch el[0] {
	case layout.Trash:
		return PartTrash
	case "archives":
		return PartArchives
	case layout.Workspaces:
	default:
		return PartOther
	}
	if len(el) < 3 {
		return PartOther // workspaces/ and a workspace's own folder
	}
	switch el[2] {
	case layout.Objects:
		return PartObjects
	case layout.Outputs:
		return PartOutputs
	case layout.Trash:
		return PartTrash
	case "archives":
		return PartArchives
	case layout.DropsFile, layout.CallsLock:
		return PartChanges
	case layout.Sessions:
		if len(el) == 4 && strings.HasSuffix(el[3], layout.ChangesSuffix) {
			return PartChanges
		}
		return PartSessions
	case layout.InfoFile, layout.IndexFile, layout.Owners:
		return PartSessions
	}
	return PartOther
}
