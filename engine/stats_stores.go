package engine

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/stats"
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

// ChangeStores lists every workspace's change store, largest first (by
// bytes, then key). It writes nothing.
func (s *Store) ChangeStores(ctx context.Context) ([]ChangeStore, error) {
	ents, err := s.fsys.ReadDir(workspacesDir)
	if vfs.IsNotExist(err) {
		return []ChangeStore{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := []ChangeStore{}
	for _, e := range ents {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		cs, err := s.changeStore(ctx, e.Name())
		if err != nil {
			return nil, err
		}
		out = append(out, cs)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Size.Bytes != out[j].Size.Bytes {
			return out[i].Size.Bytes > out[j].Size.Bytes
		}
		return out[i].Key < out[j].Key
	})
	return out, nil
}

func (s *Store) changeStore(ctx context.Context, key string) (ChangeStore, error) {
	dir := workspaceDir(key)
	cs := ChangeStore{Key: key}
	if in, err := wskey.ReadInfo(s.fsys, dir); err == nil {
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
	err := stats.Walk(ctx, subFS{s.fsys, path.Join(dir, objectsFolder)}, func(name, _ string, fi fs.FileInfo, z stats.Size) error {
		cs.Size.add(Size(z))
		if fi.Mode().IsRegular() && strings.Count(name, "/") == 1 && !vfs.IsTemp(path.Base(name)) {
			cs.Objects++
		}
		return nil
	})
	if err != nil && !vfs.IsNotExist(err) {
		return cs, err
	}
	for _, name := range []string{path.Join(dir, "drops.jsonl")} {
		if fi, err := s.fsys.Lstat(name); err == nil {
			cs.Size.add(Size(stats.File(fi)))
		}
	}
	for _, id := range s.sessionsIn(dir) {
		cs.Sessions++
		if pendingRevertAt(s.fsys, dir, id) { // from the changes journal (revert_files.go)
			cs.PendingReverts++
		}
		name := changesName(dir, id)
		fi, err := s.fsys.Lstat(name)
		if err != nil {
			continue
		}
		cs.Size.add(Size(stats.File(fi)))
		rs := readRecords(s.fsys, name)
		cs.Records += rs.records
		cs.Open += rs.open
		if rs.records > 0 {
			cs.Holding++
		}
	}
	cs.Orphaned = cs.Sessions == 0 && (cs.Objects > 0 || cs.Records > 0)
	return cs, nil
}

// recordSummary is what a changes journal says of its records.
type recordSummary struct {
	records, open int
	start, off    bool // the newest of the start and off lines is start / off
	dropped       int
}

// readRecords reads a changes journal's record lines (records-contract):
// change and record lines with files are records; a call line without a
// record or unrecorded line of its id is open.
func readRecords(fsys vfs.FS, name string) recordSummary {
	var rs recordSummary
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
			rs.records++
		case changes.KindRecord:
			delete(calls, l.ID)
			if len(l.Files) > 0 {
				rs.records++
			}
		case changes.KindCall:
			calls[l.ID] = true
		case changes.KindUnrecorded:
			delete(calls, l.ID)
		case changes.KindStart:
			rs.start, rs.off = true, false
		case changes.KindOff:
			rs.off = true
		case changes.KindDrop:
			rs.dropped += len(l.IDs)
		}
		return nil
	})
	rs.open = len(calls)
	return rs
}

// RevertUnavailable says why file revert cannot work for session id, or ""
// when it can: the session was trimmed (its records released), recording
// is off, or it holds no records.
func (w *Workspace) RevertUnavailable(id string) string {
	if r, err := readRecord(w.s.fsys, w.dir, id); err == nil && r.Tier == "transcript" {
		return "the session was trimmed: its change records were released"
	}
	rs := readRecords(w.s.fsys, changesName(w.dir, id))
	switch {
	case rs.off:
		return "recording of file changes is off for this session"
	case rs.records == 0:
		return "this session holds no change records"
	case rs.dropped >= rs.records:
		return "every change record of this session was dropped to keep its store within its budget"
	}
	return ""
}

// subFS is fsys seen from its folder dir, for stats.Walk.
type subFS struct {
	vfs.FS
	dir string
}

func (f subFS) Lstat(name string) (fs.FileInfo, error) { return f.FS.Lstat(path.Join(f.dir, name)) }
func (f subFS) ReadDir(name string) ([]fs.DirEntry, error) {
	return f.FS.ReadDir(path.Join(f.dir, name))
}
