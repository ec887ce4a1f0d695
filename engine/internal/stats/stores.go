package stats

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path"
	"strings"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/layout"
	"cairn/engine/wskey"
	"cairn/internal/vfs"
	"cairn/journal"
)

// ChangeStore is one workspace's change store as cairn storage snapshots
// lists it: the workspace's objects and the change records of its sessions'
// changes journals (records-contract: objects/ plus the lines naming them).
type ChangeStore struct {
	Key string `json:"key"`
	// Path is the directory the workspace names; "" when its
	// workspace.json cannot say. PathGone: that directory no longer exists
	// (the listing then shows the key).
	Path     string `json:"path"`
	PathGone bool   `json:"path_gone"`
	// Size: objects/ and the changes journals (drops.jsonl too).
	Size    Size `json:"size"`
	Objects int  `json:"objects"`
	// Records: change lines of file tools and record lines of other
	// tools (exec), across the workspace's sessions.
	Records int `json:"records"`
	// Holding: sessions whose changes journal holds at least one record.
	Holding int `json:"holding"`
	// Sessions: every session of the workspace.
	Sessions int `json:"sessions"`
	// Open: call lines with no record or unrecorded line after them (a
	// call running now, or one a crash interrupted).
	Open int `json:"open"`
	// PendingReverts: sessions with a file revert an unrevert would undo.
	PendingReverts int `json:"pending_reverts"`
	// Orphaned: the store holds something and no session of the workspace
	// exists any more. It is listed, never hidden.
	Orphaned bool `json:"orphaned"`
}

// StoreOf measures the change store of workspace key, whose sessions are
// ids; pendingRevert says whether a session has a file revert an unrevert
// would undo.
func StoreOf(ctx context.Context, fsys vfs.FS, key string, ids []string, pendingRevert func(id string) bool) (ChangeStore, error) {
	dir := layout.WorkspaceDir(key)
	cs := ChangeStore{Key: key}
	if in, err := wskey.ReadInfo(fsys, dir); err == nil {
		cs.Path = in.Path
	} else if p, err := wskey.Decode(key); err == nil {
		cs.Path = p
	}
	if cs.Path != "" {
		if _, err := os.Lstat(cs.Path); os.IsNotExist(err) {
			cs.PathGone = true
		}
	} else {
		cs.PathGone = true
	}
	err := Walk(ctx, subFS{fsys, path.Join(dir, layout.Objects)}, func(name, _ string, fi fs.FileInfo, z Size) error {
		cs.Size.Add(z)
		if fi.Mode().IsRegular() && strings.Count(name, "/") == 1 && !vfs.IsTemp(path.Base(name)) {
			cs.Objects++
		}
		return nil
	})
	if err != nil && !vfs.IsNotExist(err) {
		return cs, err
	}
	if fi, err := fsys.Lstat(path.Join(dir, layout.DropsFile)); err == nil {
		cs.Size.Add(File(fi))
	}
	for _, id := range ids {
		cs.Sessions++
		if pendingRevert(id) {
			cs.PendingReverts++
		}
		name := layout.Changes(dir, id)
		fi, err := fsys.Lstat(name)
		if err != nil {
			continue
		}
		cs.Size.Add(File(fi))
		rs := ReadRecords(fsys, name)
		cs.Records += rs.Records
		cs.Open += rs.Open
		if rs.Records > 0 {
			cs.Holding++
		}
	}
	cs.Orphaned = cs.Sessions == 0 && (cs.Objects > 0 || cs.Records > 0)
	return cs, nil
}

// Records is what a changes journal says of its records.
type Records struct {
	Records, Open int
	// Start, Off: the newest of the start and off lines is start / off.
	Start, Off bool
	Dropped    int
}

// ReadRecords reads a changes journal's record lines (records-contract):
// change and record lines with files are records; a call line without a
// record or unrecorded line of its id is open.
func ReadRecords(fsys vfs.FS, name string) Records {
	var rs Records
	calls := map[string]bool{}
	journal.Read(fsys, name, func(b []byte) error {
		var l struct {
			Kind  string            `json:"kind"`
			ID    string            `json:"id"`
			IDs   []string          `json:"ids"`
			Files []json.RawMessage `json:"files"`
		}
		if json.Unmarshal(b, &l) != nil {
			return nil
		}
		switch l.Kind {
		case changes.KindChange:
			rs.Records++
		case changes.KindRecord:
			delete(calls, l.ID)
			if len(l.Files) > 0 {
				rs.Records++
			}
		case changes.KindCall:
			calls[l.ID] = true
		case changes.KindUnrecorded:
			delete(calls, l.ID)
		case changes.KindStart:
			rs.Start, rs.Off = true, false
		case changes.KindOff:
			rs.Off = true
		case changes.KindDrop:
			rs.Dropped += len(l.IDs)
		}
		return nil
	})
	rs.Open = len(calls)
	return rs
}

// subFS is fsys seen from its folder dir, for Walk.
type subFS struct {
	vfs.FS
	dir string
}

func (f subFS) Lstat(name string) (fs.FileInfo, error) { return f.FS.Lstat(path.Join(f.dir, name)) }
func (f subFS) ReadDir(name string) ([]fs.DirEntry, error) {
	return f.FS.ReadDir(path.Join(f.dir, name))
}
