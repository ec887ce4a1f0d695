package engine

import (
	"context"
	"sort"
	"strings"

	"cairn/engine/internal/layout"
	"cairn/engine/internal/stats"
	"cairn/internal/vfs"
)

// Where the disk went (cairn storage stats, /storage): package stats walks
// the state folder once and puts every file and folder in exactly one
// part, so the parts add up to what du says of the whole folder.

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

// Size is what a set of files takes (stats.Size).
type Size = stats.Size

// StoragePart is one part of the state folder.
type StoragePart = stats.PartSize

// Reclaim is what a prune would free, by what it removes.
type Reclaim = stats.Reclaim

// StorageStats is the state folder's figures.
type StorageStats = stats.Report

// Stats walks the whole state folder once for the parts, and works out what
// a prune would remove (prunePlan); it writes nothing. A file that
// vanishes during the walk is skipped.
func (s *Store) Stats(ctx context.Context) (*StorageStats, error) {
	st, err := stats.Count(ctx, s.fsys, func(ws, id string) (int, bool) {
		r, err := readRecord(s.fsys, ws, id)
		if err != nil {
			return 0, false
		}
		return r.Counts.Items, true
	})
	if err != nil {
		return nil, err
	}
	st.Home = s.home
	items, _, err := s.prunePlan(ctx, s.now()) // a store it cannot tell about counts none of its objects, as prune removes none
	if err != nil {
		return nil, err
	}
	st.Reclaim = reclaim(items)
	return st, nil
}

const objectsFolder = layout.Objects

// ChangeStore is one workspace's objects and change records (stats.ChangeStore).
type ChangeStore = stats.ChangeStore

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
		dir := workspaceDir(e.Name())
		cs, err := stats.StoreOf(ctx, s.fsys, e.Name(), s.sessionsIn(dir), func(id string) bool {
			return pendingRevertAt(s.fsys, dir, id) // from the changes journal (revert_files.go)
		})
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

// RevertUnavailable says why file revert cannot work for session id, or ""
// when it can: the session was trimmed (its records released), recording
// is off, or it holds no records.
func (w *Workspace) RevertUnavailable(id string) string {
	if r, err := readRecord(w.s.fsys, w.dir, id); err == nil && r.Tier == "transcript" {
		return "the session was trimmed: its change records were released"
	}
	rs := stats.ReadRecords(w.s.fsys, changesName(w.dir, id))
	switch {
	case rs.Off:
		return "recording of file changes is off for this session"
	case rs.Records == 0:
		return "this session holds no change records"
	case rs.Dropped >= rs.Records:
		return "every change record of this session was dropped to keep its store within its budget"
	}
	return ""
}
