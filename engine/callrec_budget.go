package engine

import (
	"context"
	"encoding/json"
	"os"
	"path"
	"slices"
	"strings"
	"time"

	"cairn/engine/internal/changes"
	"cairn/internal/vfs"
	"cairn/journal"
)

// The workspace's change store keeps near storage.snapshots.max_bytes_mb
// on its own: every new record trims the records of every session of the
// workspace back to it, oldest first, whichever session made them (seed
// "Recording"). A record's size is the bytes of the pre-images it stores.
// Records of this session are dropped by a drop line in its own changes
// journal; those of another session in the workspace's drops.jsonl (the
// other session's owner may be writing its own journal). Part of the
// format:
//
//	workspaces/<key>/drops.jsonl
//	{"v":1,"kind":"drop","session":ID,"ids":[SNAP...],"at":T,"why":"store_budget"}
//
// appended with O_APPEND, one write per line, by any process, and synced.
// A file revert refuses when a record it needs is dropped in either place.
// Dropping frees no space by itself: deleting the objects no line names any
// more is retention's prune.

const dropsFile = "drops.jsonl"

func dropsName(dir string) string { return path.Join(dir, dropsFile) }

// dropLine is a line of drops.jsonl.
type dropLine struct {
	V       int      `json:"v"`
	Kind    string   `json:"kind"`
	Session string   `json:"session"`
	IDs     []string `json:"ids"`
	At      Time     `json:"at"`
	Why     string   `json:"why"`
}

// liveRecord is a live record of some session of the workspace.
type liveRecord struct {
	session string
	changes.RecordSize
}

// trimStore drops the oldest records of the workspace while their bytes
// are over max_bytes_mb, never the record just made (keep), and returns
// the ids it dropped. Best effort: a failure is a notice, and the next
// record trims again.
func (s *Session) trimStore(ctx context.Context, cfg StorageConfig, keep string) []string {
	budget := int64(cfg.MaxBytesMB) << 20
	if s.calls.others == nil {
		s.calls.others = map[string]othersRecords{}
	}
	all, err := s.ws.liveRecords(ctx, s.st.id, s.snaps.recs.Live, s.calls.others)
	if err != nil {
		s.noticef("the change store could not be measured: %v", err)
		return nil
	}
	var total int64
	for _, r := range all {
		total += r.Bytes
	}
	if total <= budget {
		return nil
	}
	slices.SortStableFunc(all, func(a, b liveRecord) int { return a.At.Compare(b.At.Time) })
	drops := map[string][]string{} // by session
	var order []string
	var dropped []string
	for _, r := range all {
		if total <= budget {
			break
		}
		if r.ID == keep {
			continue
		}
		if drops[r.session] == nil {
			order = append(order, r.session)
		}
		drops[r.session] = append(drops[r.session], r.ID)
		dropped = append(dropped, r.ID)
		total -= r.Bytes
	}
	now := mkTime(s.ws.s.Now())
	for _, id := range order {
		ids := drops[id]
		if id == s.st.id {
			err = s.writeChanges(synced, changes.ListLine{V: 1, Kind: changes.KindDrop, IDs: ids, At: now, Why: changes.WhyStoreBudget})
			if err == nil {
				s.snaps.recs.Drop(ids)
			}
		} else {
			err = s.ws.appendDrop(dropLine{V: 1, Kind: changes.KindDrop, Session: id, IDs: ids, At: now, Why: changes.WhyStoreBudget})
		}
		if err != nil {
			s.noticef("records over storage.snapshots.max_bytes_mb could not be dropped: %v", err)
			dropped = slices.DeleteFunc(dropped, func(x string) bool { return slices.Contains(ids, x) })
		}
	}
	return dropped
}

// othersRecords is what a trim read of another session's changes journal:
// its live records, and the journal's size and time when read, so the
// next trim reads it again only once it changed.
type othersRecords struct {
	size int64
	mod  time.Time
	live []changes.RecordSize
}

// liveRecords is every live record of the workspace's sessions: own (the
// live records of session self, as its owner knows them) and the others'
// read from their journals (through seen, what earlier reads found), less
// those drops.jsonl names.
func (w *Workspace) liveRecords(ctx context.Context, self string, own []changes.RecordSize, seen map[string]othersRecords) ([]liveRecord, error) {
	fsys := w.s.fsys
	dropped, err := w.readDrops()
	if err != nil {
		return nil, err
	}
	var out []liveRecord
	add := func(session string, live []changes.RecordSize) {
		for _, r := range live {
			if !dropped[session][r.ID] {
				out = append(out, liveRecord{session, r})
			}
		}
	}
	add(self, own)
	ents, err := fsys.ReadDir(path.Join(w.dir, "sessions"))
	if err != nil && !vfs.IsNotExist(err) {
		return nil, err
	}
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".changes.jsonl")
		if !ok || id == self || !validSessionID(id) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		name := changesName(w.dir, id)
		fi, err := fsys.Lstat(name)
		if vfs.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if o, ok := seen[id]; ok && o.size == fi.Size() && o.mod.Equal(fi.ModTime()) {
			add(id, o.live)
			continue
		}
		var recs changes.Records
		if _, err := journal.Read(fsys, name, func(b []byte) error {
			if l, err := changes.Decode(b); err == nil {
				recs.Fold(l) // a bad line is fsck's to name
			}
			return nil
		}); err != nil && !vfs.IsNotExist(err) {
			return nil, err
		}
		seen[id] = othersRecords{size: fi.Size(), mod: fi.ModTime(), live: recs.Live}
		add(id, recs.Live)
	}
	return out, nil
}

// readDrops is the records drops.jsonl drops, by session.
func (w *Workspace) readDrops() (map[string]map[string]bool, error) {
	out := map[string]map[string]bool{}
	_, err := journal.Read(w.s.fsys, dropsName(w.dir), func(b []byte) error {
		var l dropLine
		if json.Unmarshal(b, &l) != nil || l.V != 1 || l.Kind != changes.KindDrop {
			return nil
		}
		if out[l.Session] == nil {
			out[l.Session] = map[string]bool{}
		}
		for _, id := range l.IDs {
			out[l.Session][id] = true
		}
		return nil
	})
	if err != nil && !vfs.IsNotExist(err) {
		return nil, err
	}
	return out, nil
}

// appendDrop appends one line to drops.jsonl, in one write, and syncs it
// (and the folder when the file is new).
func (w *Workspace) appendDrop(l dropLine) error {
	b, err := json.Marshal(l)
	if err != nil {
		return err
	}
	fsys := w.s.fsys
	name := dropsName(w.dir)
	_, serr := fsys.Lstat(name)
	f, err := fsys.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(append(b, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && vfs.IsNotExist(serr) {
		err = fsys.SyncDir(w.dir)
	}
	return err
}
