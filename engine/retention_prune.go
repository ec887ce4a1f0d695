package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path"
	"strings"
	"time"

	"cairn/internal/lazyre"
	"cairn/internal/vfs"
	"cairn/objects"
)

// Prune removes what nothing needs any more, each kind only once it is at
// least TrashDays days old, so that a writer at work is never raced:
//
//   - forgotten sessions the trash has held that long (purgeTrash);
//   - orphaned artifacts: output folders, journals, records, locks,
//     owner hints and hook markers of sessions that do not exist (no
//     items journal);
//   - objects of a workspace store that no file of the workspace's
//     sessions names (any journal line, item, draft or record, and the
//     journals of the workspace's sessions in the trash), no
//     workspace-level journal (drops.jsonl), and no walk relies on (the
//     stat cache, the walks and pending markers kept between an agent's
//     hooks, those of its sessions in the trash too: walk_refs.go).
//
// Every step is idempotent: a prune cut short is finished by the next.
// The usage ledger (usage.jsonl) is never touched.

// PruneReport says what a prune removed.
type PruneReport struct {
	Trash       int   `json:"trash"`        // forgotten sessions purged
	Orphans     int   `json:"orphans"`      // orphaned files and folders removed
	Objects     int   `json:"objects"`      // unreferenced objects removed
	ObjectBytes int64 `json:"object_bytes"` // their stored size
}

// PruneOptions tune a prune.
type PruneOptions struct {
	// Progress, when set, is told how many workspaces are done of how many.
	Progress func(done, total int)
}

// oidRef finds the objects a line or file names: every "oid" field, at any
// depth, compact or indented (a session record is written indented). Prune
// and the storage stats' estimate of what it frees both use it, so the two
// agree on what is referenced.
var oidRef = lazyre.New(`"oid":\s*"([0-9a-f]{64})"`)

// Prune runs the prune; see above.
func (s *Store) Prune(ctx context.Context, opt PruneOptions) (PruneReport, error) {
	var rep PruneReport
	if err := s.settleTrash(ctx); err != nil {
		return rep, err
	}
	now := s.now()
	n, err := s.purgeTrash(ctx, now)
	rep.Trash = n
	if err != nil {
		return rep, err
	}
	wss, _, err := s.Workspaces()
	if err != nil {
		return rep, err
	}
	trash, err := s.trashByWorkspace()
	if err != nil {
		return rep, err
	}
	for i, w := range wss {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		removed, err := w.CleanOrphanOutputs(ctx, now, trashGrace)
		rep.Orphans += len(removed)
		if err != nil {
			return rep, err
		}
		rep.Orphans += w.pruneOrphanFiles(now)
		objs, bytes, err := w.pruneObjects(ctx, now, trash[w.key])
		rep.Objects += objs
		rep.ObjectBytes += bytes
		if err != nil {
			return rep, err
		}
		if opt.Progress != nil {
			opt.Progress(i+1, len(wss))
		}
	}
	return rep, nil
}

// trashByWorkspace maps workspace keys to the trash entries of their
// sessions.
func (s *Store) trashByWorkspace() (map[string][]string, error) {
	ents, err := s.fsys.ReadDir(trashDir)
	if vfs.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, e := range ents {
		if in, err := s.readTrash(e.Name()); err == nil {
			out[in.Workspace] = append(out[in.Workspace], trashEntry(e.Name()))
		}
	}
	return out, nil
}

// pruneOrphanFiles removes the files of the sessions folder and the owner
// hints whose session does not exist, once they are old. A lock file goes
// only while this process can take it.
func (w *Workspace) pruneOrphanFiles(now time.Time) int {
	fsys := w.s.fsys
	n := 0
	old := func(name string) bool {
		fi, err := fsys.Lstat(name)
		return err == nil && fi.Mode().IsRegular() && now.Sub(fi.ModTime()) >= trashGrace
	}
	exists := func(id string) bool {
		_, err := fsys.Lstat(itemsName(w.dir, id))
		return !vfs.IsNotExist(err)
	}
	ents, _ := fsys.ReadDir(path.Join(w.dir, sessionsDir))
	for _, e := range ents {
		name := e.Name()
		id, _, ok := strings.Cut(name, ".")
		if !ok || !validSessionID(id) || exists(id) {
			continue
		}
		p := path.Join(w.dir, sessionsDir, name)
		if !old(p) {
			continue
		}
		if strings.HasSuffix(name, ".lock") {
			l, err := fsys.Lock(p)
			if err != nil {
				continue
			}
			if exists(id) {
				l.Release()
				continue
			}
			l.Release()
		}
		if fsys.Remove(p) == nil {
			n++
		}
	}
	// Hook markers of no session (a forget of an older build left them).
	hooks, _ := fsys.ReadDir(path.Join(w.dir, hooksFolder))
	for _, e := range hooks {
		if !e.IsDir() || !validSessionID(e.Name()) || exists(e.Name()) {
			continue
		}
		dir := hooksDir(w.dir, e.Name())
		files, _ := fsys.ReadDir(dir)
		for _, f := range files {
			if p := path.Join(dir, f.Name()); old(p) && fsys.Remove(p) == nil {
				n++
			}
		}
		fsys.Remove(dir) // once empty
	}
	hints, _ := fsys.ReadDir(path.Join(w.dir, "owners"))
	for _, e := range hints {
		p := path.Join(w.dir, "owners", e.Name())
		if validSessionID(e.Name()) && !exists(e.Name()) && old(p) && fsys.Remove(p) == nil {
			n++
		}
	}
	if n > 0 {
		fsys.SyncDir(path.Join(w.dir, sessionsDir))
	}
	return n
}

// pruneObjects removes the objects of w's store that nothing names and
// that are old. The references are gathered after the walk, so an object
// stored during the walk and named by a line written before the gathering
// is kept; one stored earlier than TrashDays ago and stored again now (its
// content deduplicated for a new line) was touched by that Put, and is
// looked at once more just before it would go.
func (w *Workspace) pruneObjects(ctx context.Context, now time.Time, trash []string) (int, int64, error) {
	fsys := w.s.fsys
	store := w.objects()
	var old []objects.Info
	err := store.Walk(ctx, func(in objects.Info) error {
		fi, err := fsys.Stat(store.Path(in.ID, in.Compressed))
		if err == nil && now.Sub(fi.ModTime()) >= trashGrace {
			old = append(old, in)
		}
		return nil
	})
	if err != nil && ctx.Err() != nil {
		return 0, 0, err
	}
	if len(old) == 0 {
		return 0, 0, nil
	}
	// What cannot be read may name an object: then no object goes, and
	// the prune says why (cannot tell means keep).
	var unread error
	cannotTell := func(name string, err error) {
		if unread == nil {
			unread = fmt.Errorf("%s: %w", name, err)
		}
	}
	drops, err := w.readDrops()
	if err != nil {
		return 0, 0, fmt.Errorf("engine: prune the objects of %s: cannot tell which records were dropped (%w); none was removed", w.path, err)
	}
	refs := map[string]bool{}
	scan := func(dir string) {
		ents, err := fsys.ReadDir(dir)
		if err != nil && !vfs.IsNotExist(err) {
			refs["?"] = true
			cannotTell(dir, err)
		}
		for _, e := range ents {
			name := e.Name()
			if !e.Type().IsRegular() || (!strings.HasSuffix(name, ".jsonl") && !strings.HasSuffix(name, ".json")) {
				continue
			}
			b, err := vfs.ReadFile(fsys, path.Join(dir, name))
			if err != nil {
				refs["?"] = true // cannot tell what it names: remove nothing
				cannotTell(path.Join(dir, name), err)
				continue
			}
			if id, ok := strings.CutSuffix(name, ".changes.jsonl"); ok {
				liveRefs(b, drops[id], refs)
				continue
			}
			for _, m := range oidRef.FindAllSubmatch(b, -1) {
				refs[string(m[1])] = true
			}
		}
	}
	scan(w.dir)
	scan(path.Join(w.dir, sessionsDir))
	// Sub-agent transcripts (tasks/<session>/) name payload objects too.
	scanTasks := func(dir string) {
		ents, err := fsys.ReadDir(dir)
		if err != nil && !vfs.IsNotExist(err) {
			refs["?"] = true
			cannotTell(dir, err)
		}
		for _, e := range ents {
			if e.IsDir() {
				scan(path.Join(dir, e.Name()))
			}
		}
	}
	scanTasks(tasksDir(w.dir))
	walkRefs(fsys, w.dir, refs)
	for _, t := range trash {
		scan(path.Join(t, sessionsDir))
		scanTasks(path.Join(t, tasksFolder))
		walkRefs(fsys, t, refs) // its hook walks, which a restore brings back
	}
	if refs["?"] {
		if unread == nil {
			unread = errors.New("a walk's file or folder cannot be read")
		}
		return 0, 0, fmt.Errorf("engine: prune the objects of %s: cannot tell which objects are still named (%w); none was removed", w.path, unread)
	}
	n, freed := 0, int64(0)
	for _, in := range old {
		if err := ctx.Err(); err != nil {
			return n, freed, err
		}
		if refs[in.ID.String()] {
			continue
		}
		// Stored again since the walk above (a Put of the same content
		// touches it): a line is about to name it.
		if fi, err := fsys.Stat(store.Path(in.ID, in.Compressed)); err != nil || now.Sub(fi.ModTime()) < trashGrace {
			continue
		}
		if err := store.Remove(in.ID); err == nil {
			n++
			freed += in.Stored
		}
	}
	return n, freed, nil
}

// liveRefs adds to refs the objects a changes journal's lines name, less
// those of its records that are dropped: by a drop line of the journal
// itself (the undo stack's limits, the store's budget) or by the
// workspace's drops.jsonl (dropped). A dropped record is dead for undo
// and for file revert alike, so its objects are the store's to free: this
// is how prune brings each change store down to its budget.
func liveRefs(b []byte, dropped map[string]bool, refs map[string]bool) {
	lines := bytes.Split(b, []byte("\n"))
	dead := maps.Clone(dropped)
	if dead == nil {
		dead = map[string]bool{}
	}
	for _, l := range lines {
		if !bytes.Contains(l, []byte(`"kind":"drop"`)) {
			continue
		}
		var d struct {
			Kind string   `json:"kind"`
			IDs  []string `json:"ids"`
		}
		if json.Unmarshal(l, &d) == nil && d.Kind == "drop" {
			for _, id := range d.IDs {
				dead[id] = true
			}
		}
	}
	for _, l := range lines {
		ms := oidRef.FindAllSubmatch(l, -1)
		if len(ms) == 0 {
			continue
		}
		var c struct {
			Kind string `json:"kind"`
			ID   string `json:"id"`
		}
		if json.Unmarshal(l, &c) == nil && (c.Kind == "change" || c.Kind == "record") && dead[c.ID] {
			continue
		}
		for _, m := range ms {
			refs[string(m[1])] = true
		}
	}
}
