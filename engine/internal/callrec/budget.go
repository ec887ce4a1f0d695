package callrec

import (
	"context"
	"encoding/json"
	"os"
	"path"
	"slices"
	"strings"
	"time"

	"cairn/engine/internal/changes"
	"cairn/internal/timefmt"
	"cairn/internal/vfs"
	"cairn/journal"
)

// The workspace's change store keeps near storage.snapshots.max_bytes_mb
// on its own: every new record trims the records of every session of the
// workspace back to it, oldest first, whichever session made them (seed
// "Recording"). A record's size is the bytes of the pre-images it stores.
// Records of the recording session are dropped by a drop line in its own
// changes journal; those of another session in the workspace's
// drops.jsonl (the other session's owner may be writing its own journal).
// Part of the format:
//
//	workspaces/<key>/drops.jsonl
//	{"v":1,"kind":"drop","session":ID,"ids":[SNAP...],"at":T,"why":"store_budget"}
//
// appended with O_APPEND, one write per line, by any process, and synced.
// A file revert refuses when a record it needs is dropped in either place.
// Dropping frees no space by itself: deleting the objects no line names any
// more is retention's prune.

// DropsFile is the name of a workspace folder's drops file.
const DropsFile = "drops.jsonl"

// DropsName is workspace folder dir's drops.jsonl.
func DropsName(dir string) string { return path.Join(dir, DropsFile) }

// DropLine is a line of drops.jsonl.
type DropLine struct {
	V       int          `json:"v"`
	Kind    string       `json:"kind"`
	Session string       `json:"session"`
	IDs     []string     `json:"ids"`
	At      timefmt.Time `json:"at"`
	Why     string       `json:"why"`
}

// Live is a live record of some session of the workspace.
type Live struct {
	Session string
	changes.RecordSize
}

// Others is what a trim read of another session's changes journal: its
// live records, and the journal's size and time when read, so the next
// trim reads it again only once it changed.
type Others struct {
	size int64
	mod  time.Time
	live []changes.RecordSize
}

// Trim is which records to drop to bring all within budget bytes, oldest
// first, never keep (the record just made): the ids by session, the
// sessions in the order they first lose one, and every id dropped.
func Trim(all []Live, budget int64, keep string) (drops map[string][]string, order, dropped []string) {
	var total int64
	for _, r := range all {
		total += r.Bytes
	}
	if total <= budget {
		return nil, nil, nil
	}
	slices.SortStableFunc(all, func(a, b Live) int { return a.At.Compare(b.At.Time) })
	drops = map[string][]string{}
	for _, r := range all {
		if total <= budget {
			break
		}
		if r.ID == keep {
			continue
		}
		if drops[r.Session] == nil {
			order = append(order, r.Session)
		}
		drops[r.Session] = append(drops[r.Session], r.ID)
		dropped = append(dropped, r.ID)
		total -= r.Bytes
	}
	return drops, order, dropped
}

// Sessions is where the workspace's sessions' changes journals are:
// Dir, holding one <id>.changes.jsonl per session; Valid says which names
// are session ids.
type Sessions struct {
	FS    vfs.FS
	Dir   string // the workspace folder
	Valid func(id string) bool
}

func (ss Sessions) changesName(id string) string {
	return path.Join(ss.Dir, "sessions", id+".changes.jsonl")
}

// LiveRecords is every live record of the workspace's sessions: own (the
// live records of session self, as its owner knows them) and the others'
// read from their journals (through seen, what earlier reads found), less
// those drops.jsonl names.
func (ss Sessions) LiveRecords(ctx context.Context, self string, own []changes.RecordSize, seen map[string]Others) ([]Live, error) {
	fsys := ss.FS
	dropped, err := ReadDrops(fsys, ss.Dir)
	if err != nil {
		return nil, err
	}
	var out []Live
	add := func(session string, live []changes.RecordSize) {
		for _, r := range live {
			if !dropped[session][r.ID] {
				out = append(out, Live{session, r})
			}
		}
	}
	add(self, own)
	ents, err := fsys.ReadDir(path.Join(ss.Dir, "sessions"))
	if err != nil && !vfs.IsNotExist(err) {
		return nil, err
	}
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".changes.jsonl")
		if !ok || id == self || !ss.Valid(id) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		name := ss.changesName(id)
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
		seen[id] = Others{size: fi.Size(), mod: fi.ModTime(), live: recs.Live}
		add(id, recs.Live)
	}
	return out, nil
}

// ReadDrops is the records the drops.jsonl of workspace folder dir drops,
// by session.
func ReadDrops(fsys vfs.FS, dir string) (map[string]map[string]bool, error) {
	out := map[string]map[string]bool{}
	_, err := journal.Read(fsys, DropsName(dir), func(b []byte) error {
		var l DropLine
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

// AppendDrop appends one line to the drops.jsonl of workspace folder dir,
// in one write, and syncs it (and the folder when the file is new).
func AppendDrop(fsys vfs.FS, dir string, l DropLine) error {
	b, err := json.Marshal(l)
	if err != nil {
		return err
	}
	name := DropsName(dir)
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
		err = fsys.SyncDir(dir)
	}
	return err
}

// Drop drops the records Trim chose (drops by session, in order): those of
// session self by own (a drop line in its own journal), the others' by a
// line of drops.jsonl. It returns the ids dropped of dropped, less those
// whose line could not be written (notice is told why).
func (ss Sessions) Drop(self string, drops map[string][]string, order, dropped []string, at timefmt.Time, own func(ids []string) error, notice func(string, ...any)) []string {
	for _, id := range order {
		ids := drops[id]
		var err error
		if id == self {
			err = own(ids)
		} else {
			err = AppendDrop(ss.FS, ss.Dir, DropLine{V: 1, Kind: changes.KindDrop, Session: id, IDs: ids, At: at, Why: changes.WhyStoreBudget})
		}
		if err != nil {
			notice("records over storage.snapshots.max_bytes_mb could not be dropped: %v", err)
			dropped = slices.DeleteFunc(dropped, func(x string) bool { return slices.Contains(ids, x) })
		}
	}
	return dropped
}

// Changed is the paths of files a record names, and those of them whose
// content before was not stored.
func Changed(files []changes.FileChange) (paths, skipped []string) {
	paths, skipped = []string{}, []string{}
	for _, f := range files {
		paths = append(paths, f.Path)
		if f.Before.IsSkipped() {
			skipped = append(skipped, f.Path)
		}
	}
	return paths, skipped
}

// Interrupted is the unrecorded lines, why "interrupted", that close the
// call lines a stopped owner left open.
func Interrupted(open []changes.CallLine, at timefmt.Time) []any {
	var lines []any
	for _, c := range open {
		lines = append(lines, changes.UnrecordedLine{V: 1, Kind: changes.KindUnrecorded, ID: c.ID, At: at,
			Tool: c.Tool, Call: c.Call, Item: c.Item, Why: changes.WhyInterrupted})
	}
	return lines
}
