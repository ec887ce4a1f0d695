package engine

import (
	"context"
	"fmt"
	"path"
	"strings"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/fstate"
	"cairn/internal/timefmt"
	"cairn/internal/vfs"
	"cairn/journal"
	"cairn/objects"
)

// File revert puts back the files this session's records changed after a
// boundary, newest first, from the records in its changes journal (file
// tools' change lines, recorded calls' record lines; a fork holds its
// parent's). Package changes makes the plan (Timeline, Targets, Check,
// RevertPlan) and its Applier runs it; this file holds the locks, the
// refusals and the journal lines. Calls that ran at the same time are one
// step, their unit's overlap line (engine/internal/overlap).
//
// The boundary is a conversation revert's: a user prompt reverts its own
// turn's changes too, any other item keeps the changes made up to it
// (revertAfter). A compaction item counts from its original, the last item
// of the stretch it replaced. Only files a record names are touched.
//
// Before anything is written every file is checked; one conflict
// (changed, interleaved, unrecorded) refuses the whole revert, the
// conversation half included, with a *RevertConflictError. A revert is
// also refused, naming why, while a call of this session runs or another
// live session of the workspace runs one (the workspace call lock,
// calls_lock.go), while an earlier revert is unfinished, when a record it
// needs was dropped by the store budget, and when the boundary lies before
// the session's records start (or recording is off, then or now).
//
// The revert line (with what each file held) is synced before a file
// changes; each file is replaced atomically with the permission bits its
// record holds; the "reverted" line follows once the files are durable.
// A revert stopped in between is settled by the next owner
// (settleReverts): adopted with a notice when every file was put, else
// left pending and unfinished (unrevert puts back what it changed; new
// work keeps the files as they are).

// revertInline is how many bytes of what a revert keeps go inline in its
// lines (the rest is stored as objects, one fsync each), and revertPart
// the most of them one line holds.
const (
	revertInline = 16 << 20
	revertPart   = 4 << 20
)

// FileRevert says what a file revert did, or, previewed, would do.
type FileRevert struct {
	Applied bool `json:"applied"` // false: a preview
	Create  int  `json:"create"`
	Replace int  `json:"replace"`
	Delete  int  `json:"delete"`
	// UnrecordedCalls counts the calls after the boundary that ran without
	// a record: the revert cannot undo their changes, which stay.
	UnrecordedCalls int            `json:"unrecorded_calls"`
	Files           []RevertedFile `json:"files"`
	// Left names the files the revert could not write (they keep their
	// content, and the revert is unfinished: unrevert or new work ends it).
	Left []FileReason `json:"left,omitempty"`
	// Conflicts refuse the revert (RevertConflictError).
	Conflicts []RevertConflict `json:"conflicts,omitempty"`
	// contents reads, for a preview, what each file holds and would get.
	contents func(ctx context.Context, limit int64) ([]FileChange, error)
}

// Contents is, for a preview, each file of Files as it is now (Before)
// and as the revert would leave it (After), each side read up to limit
// bytes: what cairn diff shows of it. It is nil for a revert that ran.
func (f *FileRevert) Contents(ctx context.Context, limit int64) ([]FileChange, error) {
	if f.contents == nil {
		return nil, nil
	}
	return f.contents(ctx, limit)
}

// RevertedFile is one file of a file revert: what it does to it (create,
// replace, delete; for an unrevert, put back).
type RevertedFile struct {
	Path   string `json:"path"`
	Action string `json:"action"`
}

// RevertConflict is a path a file revert or unrevert refuses over: its
// kind (changed, interleaved, unrecorded), the path, and why.
type RevertConflict struct {
	Kind   string `json:"kind"`
	Path   string `json:"path"`
	Detail string `json:"detail"`
}

// RevertConflictError refuses a file revert or unrevert over conflicts;
// nothing was changed. It wraps ErrRefused.
type RevertConflictError struct {
	Action string // revert | unrevert
	Files  *FileRevert
}

func (e *RevertConflictError) Error() string { return refusedText(e.Why()) }

// Why is what the refusal says after the word.
func (e *RevertConflictError) Why() string {
	by := map[string][]string{}
	var kinds []string
	for _, c := range e.Files.Conflicts {
		if by[c.Kind] == nil {
			kinds = append(kinds, c.Kind)
		}
		by[c.Kind] = append(by[c.Kind], c.Path)
	}
	var parts []string
	for _, k := range kinds {
		parts = append(parts, k+": "+strings.Join(by[k], ", "))
	}
	return fmt.Sprintf("file %s conflicts (%s); nothing was changed", e.Action, strings.Join(parts, "; "))
}

func (e *RevertConflictError) Unwrap() error { return ErrRefused }

// revertFiles runs (apply) or previews the file half of a revert to item
// at, and for mode both then moves the head.
func (s *Session) revertFiles(ctx context.Context, at string, mode RevertMode, apply bool) (*RevertResult, error) {
	s.busy.RLock()
	defer s.busy.RUnlock()
	if s.isClosed() {
		return nil, fmt.Errorf("engine: session %s is closed", s.ID())
	}
	if s.readOnly && apply {
		return nil, refusedf("session %s is open read-only: its files cannot be reverted", s.ID())
	}
	if err := s.refuseRunning("revert"); err != nil {
		return nil, err
	}
	// Seed "Disable change recording": file revert is unavailable while
	// recording is off (an unrevert still works).
	if cfg, err := s.config(); err == nil && (!cfg.Storage.RecordingEnabled || s.opts.NoSnapshots) {
		return nil, refusedf("cannot revert files: change recording is off (--no-snapshots or storage.snapshots.enabled); a conversation revert still works")
	}
	st := &s.snaps
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := s.payCancels(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	sel, err := revertItem(s.st, at)
	var after changes.Boundary
	if err == nil {
		after = revertAfter(s.st, sel)
	}
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	lock, err := s.lockCallsAlone("revert")
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	tl, err := s.ws.timeline(s.st.id)
	if err != nil {
		return nil, err
	}
	if err := revertRefusal(tl, sel); err != nil {
		return nil, err
	}
	cut := tl.Cut(after)
	// Each check that cannot read what it checks refuses: a revert never
	// goes ahead on "cannot tell".
	drops, err := s.ws.budgetDrops()
	if err != nil {
		return nil, err
	}
	if d := tl.DroppedAfter(cut, drops); len(d) > 0 {
		return nil, refusedf("cannot revert files: %d record(s) it needs were dropped to keep the workspace's store within its size budget (%s)",
			len(d), strings.Join(d[:min(3, len(d))], ", "))
	}
	foreign, err := s.ws.foreignChanges(s.st.id, tl)
	if err != nil {
		return nil, err
	}
	targets, conflicts := tl.Targets(cut, foreign)
	fsys, done, err := s.ws.files()
	if err != nil {
		return nil, err
	}
	defer done()
	objs := s.snapObjects()
	canPut := func(f *fstate.State) bool { return fstate.Restorable(objs, f) }
	cur, more, err := changes.Check(ctx, fsys, targets, canPut)
	if err != nil {
		return nil, fmt.Errorf("engine: revert: %w; nothing was changed", err)
	}
	fr := &FileRevert{Applied: apply, UnrecordedCalls: len(tl.CallsAfter(cut, after)), Files: []RevertedFile{}}
	plan := changes.RevertPlan(targets, cur)
	for i, f := range plan.Files {
		if f.Leave {
			continue
		}
		act := "replace"
		switch {
		case cur[i] == nil:
			act, fr.Create = "create", fr.Create+1
		case f.To == nil:
			act, fr.Delete = "delete", fr.Delete+1
		default:
			fr.Replace++
		}
		fr.Files = append(fr.Files, RevertedFile{Path: s.ws.absPath(f.Path), Action: act})
	}
	if conflicts = append(conflicts, more...); len(conflicts) > 0 {
		return nil, s.conflictError("revert", fr, conflicts)
	}
	if !apply {
		var rels []string
		var tos []*fstate.State
		for _, f := range plan.Files {
			if !f.Leave {
				rels, tos = append(rels, f.Path), append(tos, f.To)
			}
		}
		fr.contents = func(ctx context.Context, limit int64) ([]FileChange, error) {
			fsys, done, err := s.ws.files()
			if err != nil {
				return nil, err
			}
			defer done()
			out := make([]FileChange, len(rels))
			for i, rel := range rels {
				out[i] = FileChange{Path: s.ws.absPath(rel), Before: diskContent(ctx, fsys, rel, limit)}
				if out[i].After, err = readContent(ctx, objs, nil, rel, tos[i], limit); err != nil {
					return nil, err
				}
			}
			return out, nil
		}
		res := &RevertResult{Session: s.st.id, Preview: true, Files: fr}
		s.mu.Lock()
		res.From, res.Head = s.st.head, s.st.head
		if mode == RevertBoth {
			res.Head, _, _ = boundary(s.st, sel)
		}
		s.mu.Unlock()
		return res, nil
	}
	if err := s.runRevert(ctx, fsys, objs, sel.ID, targets, plan, fr); err != nil {
		return nil, err
	}
	if mode == RevertFiles || len(fr.Left) > 0 {
		s.mu.Lock()
		head := s.st.head
		s.mu.Unlock()
		return &RevertResult{Session: s.st.id, Head: head, From: head, Files: fr}, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	res, err := s.revertHeadLocked(ctx, sel)
	if err != nil {
		return nil, err
	}
	res.Files = fr
	return res, nil
}

// runRevert keeps what each file of plan holds and writes the revert
// line, puts the files back, and writes the "reverted" line.
func (s *Session) runRevert(ctx context.Context, fsys vfs.FS, objs *objects.Store, to string, targets []changes.Target, plan changes.Plan, fr *FileRevert) error {
	budget := revertInline
	sink := keptSink(ctx, objs, &budget)
	var files []changes.RevertFile
	var conflicts []changes.Conflict
	for i, f := range plan.Files {
		if f.Leave {
			continue
		}
		t := targets[i]
		kept, err := fstate.Capture(ctx, fsys, sink, f.Path, fstate.SizeLimit(1, t.Expect))
		if kept.IsSkipped() && (kept.Skipped == fstate.SkipStore || kept.Skipped == fstate.SkipUnreadable) {
			return fmt.Errorf("engine: revert: keep what %s holds, for unrevert: %w; nothing was changed", f.Path, err)
		}
		if !fstate.Same(kept, t.Expect) && !(kept == nil && t.Expect == nil) {
			conflicts = append(conflicts, changes.Conflict{Kind: changes.ConflictChanged, Path: f.Path, Detail: "it changed while the revert was checking"})
			continue
		}
		files = append(files, changes.RevertFile{Path: f.Path, Kept: kept, Put: changes.HashOnly(f.To)})
	}
	if len(conflicts) > 0 {
		return s.conflictError("revert", fr, conflicts)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(files) == 0 {
		return nil // every file holds what it would get: nothing to write, nothing to unrevert
	}
	now := mkTime(s.ws.s.Now())
	id := changes.NewSnapID(now.Time)
	lines := changes.RevertLines(id, now, to, s.newestItem(), files, revertPart)
	out := make([]any, len(lines))
	for i := range lines {
		out[i] = lines[i]
	}
	if err := s.writeChanges(synced, out...); err != nil {
		// Not durable, maybe not all written: a revert whose parts are
		// not all read never started, and none of its files changed.
		return fmt.Errorf("engine: revert: write its line: %w; nothing was changed", err)
	}
	left, syncErr := s.applyRevert(ctx, fsys, objs, plan, fr)
	if syncErr != nil {
		// Not known durable: the next owner settles the revert from the
		// files (settleReverts); until then it is unfinished.
		return fmt.Errorf("engine: revert: sync folders: %w", syncErr)
	}
	if err := s.writeChanges(synced, changes.DoneLine{V: 1, Kind: changes.KindReverted, ID: id, At: mkTime(s.ws.s.Now()), Left: left}); err != nil {
		return fmt.Errorf("engine: revert: the files are reverted, but its end could not be recorded (the next open settles it): %w", err)
	}
	return nil
}

// keptSink keeps what a file holds for unrevert: inline while budget
// lasts (the revert line's one fsync makes it durable), else as an
// object.
func keptSink(ctx context.Context, objs *objects.Store, budget *int) fstate.Sink {
	store := fstate.StoreSink(ctx, objs)
	if store == nil {
		return nil
	}
	return func(b []byte, mode string) (*fstate.State, error) {
		if len(b) <= fstate.MaxInline && len(b) <= *budget {
			*budget -= len(b)
			f, _ := fstate.HashSink(b, mode)
			if len(b) > 0 {
				f.Data = b
			}
			return f, nil
		}
		return store(b, mode)
	}
}

// conflictError is the refusal over conflicts, with fr naming them.
func (s *Session) conflictError(action string, fr *FileRevert, cs []changes.Conflict) error {
	fr.Conflicts = nil
	for _, c := range cs {
		fr.Conflicts = append(fr.Conflicts, RevertConflict{Kind: c.Kind, Path: s.ws.absPath(c.Path), Detail: c.Detail})
	}
	fr.Applied = false
	return &RevertConflictError{Action: action, Files: fr}
}

// revertItem is the item a file revert to at goes to: the item, or for a
// compaction item its original, the last item of the stretch it replaced
// (refused when it cannot be found).
func revertItem(st *state, at string) (*Item, error) {
	it := st.items[at]
	if it == nil {
		return nil, noItem(at, st.id)
	}
	for n := 0; it.Type == Compaction; n++ {
		if len(it.Replaces) != 2 || st.items[it.Replaces[1]] == nil || n > len(st.order) {
			return nil, refusedf("cannot revert files to %s: it is a compaction whose original cannot be found", at)
		}
		it = st.items[it.Replaces[1]]
	}
	return it, nil
}

// revertAfter is the boundary rule of a file revert to sel. A record
// belongs after it when the item it names ("call") was written after sel
// (sel a user prompt: from sel on, so its own turn is reverted too). Any
// other line, and a record naming no item the session holds (none, or one
// a fork holds from its parent's later turns), is placed by its "item",
// the newest item when it was written: after when that was sel or one
// written after it, before when the conversation had no item yet. Only a
// line whose "item" does not say (written before it was recorded) or
// names an item the session does not hold is placed by its time: times
// are kept to the millisecond, so a line and an item of the same
// millisecond tie, and their order is then a guess.
func revertAfter(st *state, sel *Item) changes.Boundary {
	idx := make(map[string]int, len(st.order))
	for i, id := range st.order {
		idx[id] = i
	}
	si, prompt := idx[sel.ID], sel.Type == User
	place := func(item changes.ItemRef, at timefmt.Time) bool {
		if item.Known && item.ID == "" {
			return false // before every item
		}
		if i, ok := idx[item.ID]; ok && item.Known {
			return i >= si
		}
		return at.After(sel.At.Time) || (prompt && at.Equal(sel.At.Time))
	}
	return changes.Boundary{
		Record: func(call string, item changes.ItemRef, at timefmt.Time) bool {
			if i, ok := idx[call]; ok && call != "" {
				return i > si || (prompt && i == si)
			}
			return place(item, at)
		},
		Event: place,
	}
}

// newestItem is the item written last (none: the conversation has no item
// yet): where a line lies among the items, the "item" of every line that
// changes files or may (changes.ItemRef).
func (s *Session) newestItem() changes.ItemRef {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.newestItem()
}

// newestItem is the item written last as a line's "item". The caller
// holds s.mu.
func (st *state) newestItem() changes.ItemRef {
	if n := len(st.order); n > 0 {
		return changes.NewestItem(st.order[n-1])
	}
	return changes.NewestItem("")
}

// revertRefusal refuses a file revert to sel that tl cannot serve: an
// earlier revert unfinished, recording off, or a boundary before the
// session's records start.
func revertRefusal(tl *changes.Timeline, sel *Item) error {
	if r := tl.Newest(); r != nil && r.Unfinished() {
		return refusedf("cannot revert files: an earlier file revert (%s) did not finish; unrevert puts back what it changed, or new work keeps the files as they are", r.ID)
	}
	if !tl.Off.IsZero() && !tl.Off.Before(tl.Start.Time) {
		return refusedf("cannot revert files: recording was off for this session since %s; a file revert cannot reach back past the point where recording comes back on", timefmt.Format(tl.Off.Time))
	}
	if !tl.Start.IsZero() && sel.At.Before(tl.Start.Time) {
		why := "recording was off, or the session moved"
		switch tl.StartWhy {
		case "enabled":
			why = "recording was off before then"
		case "moved":
			why = "the session moved to this directory then"
		case "trimmed":
			why = "the session was trimmed then, which dropped its earlier change records"
		}
		return refusedf("cannot revert files to %s: the session's records start at %s, after it (%s)", sel.ID, timefmt.Format(tl.Start.Time), why)
	}
	return nil
}

// timeline folds session id's changes journal for file revert; lines it
// cannot fold are skipped (fsck names them).
func (w *Workspace) timeline(id string) (*changes.Timeline, error) {
	return timelineAt(w.s.fsys, w.dir, id)
}

// timelineAt folds the changes journal of session id in workspace folder
// dir.
func timelineAt(fsys vfs.FS, dir, id string) (*changes.Timeline, error) {
	tl := &changes.Timeline{}
	_, err := journal.Read(fsys, changesName(dir, id), func(b []byte) error {
		if l, err := changes.Decode(b); err == nil {
			tl.Fold(l)
		}
		return nil
	})
	if err != nil && !vfs.IsNotExist(err) {
		return nil, fmt.Errorf("engine: read %s: %w", changesName(dir, id), err)
	}
	return tl, nil
}

// pendingRevertAt is PendingRevert for session id of workspace folder dir
// (false when its journal cannot be read).
func pendingRevertAt(fsys vfs.FS, dir, id string) bool {
	tl, err := timelineAt(fsys, dir, id)
	return err == nil && (tl.Pending() || tl.Undoing != nil)
}

// PendingRevert reports whether session id has a file revert an unrevert
// would undo (or one not settled since it stopped): retention keeps such a
// session and its records. It reads the session's changes journal only.
func (w *Workspace) PendingRevert(ctx context.Context, id string) (bool, error) {
	if !validSessionID(id) {
		return false, fmt.Errorf("%w: %q is not a session id", ErrBadInput, id)
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	tl, err := w.timeline(id)
	if err != nil {
		return false, err
	}
	return tl.Pending() || tl.Undoing != nil, nil
}

// budgetDrops is the records the store budget dropped, as the workspace's
// drops journal names them (any session's: a fork holds its parent's). A
// journal that cannot be read refuses the revert: which records it needs
// were dropped cannot be told.
func (w *Workspace) budgetDrops() (map[string]bool, error) {
	out := map[string]bool{}
	_, err := journal.Read(w.s.fsys, dropsName(w.dir), func(b []byte) error {
		tl := changes.Timeline{}
		if l, err := changes.Decode(b); err == nil && tl.Fold(l) == nil {
			for id := range tl.Dropped {
				out[id] = true
			}
		}
		return nil
	})
	if err != nil && !vfs.IsNotExist(err) {
		return nil, cannotCheck("whether the records it needs were dropped", dropsName(w.dir), err)
	}
	return out, nil
}

// cannotCheck refuses a file revert whose check of what (a file of the
// state folder, name) could not be made: it cannot tell, so it does not
// go ahead.
func cannotCheck(what, name string, err error) error {
	return refusedf("cannot revert files: cannot check %s (%s: %w); nothing was changed", what, name, err)
}

// foreignChanges is what the other sessions of the workspace changed, for
// the interleaving check: each of their steps that this session's journal
// does not hold too (a fork and its parent share lines). A sessions folder
// or another session's changes journal that cannot be read refuses the
// revert: whether another session changed the files cannot be told.
func (w *Workspace) foreignChanges(self string, mine *changes.Timeline) (changes.Foreign, error) {
	key := func(st *changes.Step) string { return st.Kind + " " + st.ID + " " + timefmt.Format(st.At.Time) }
	own := map[string]bool{}
	for _, st := range mine.Steps {
		own[key(st)] = true
	}
	at := map[string][]timefmt.Time{}
	sessions := path.Join(w.dir, "sessions")
	ents, err := w.s.fsys.ReadDir(sessions)
	if err != nil {
		return nil, cannotCheck("whether another session changed the same files", sessions, err)
	}
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".changes.jsonl")
		if !ok || id == self || !validSessionID(id) {
			continue
		}
		tl, err := w.timeline(id)
		if err != nil {
			return nil, cannotCheck("whether another session changed the same files", changesName(w.dir, id), err)
		}
		for _, st := range tl.Steps {
			if own[key(st)] {
				continue
			}
			for _, m := range st.Moves {
				at[m.Path] = append(at[m.Path], st.At)
			}
		}
	}
	return func(p string, lo, hi timefmt.Time) bool {
		for _, t := range at[p] {
			if !t.Before(lo.Time) && !t.After(hi.Time) {
				return true
			}
		}
		return false
	}, nil
}

// applyRevert writes the files of a file revert or unrevert whose line is
// written, noting in fr each file it could not write; left is their paths,
// for its end line, and syncErr why its folders are not known durable.
func (s *Session) applyRevert(ctx context.Context, fsys vfs.FS, objs *objects.Store, plan changes.Plan, fr *FileRevert) (left []string, syncErr error) {
	s.snaps.Settled() // what the fold makes of the line written
	res := s.apply.Apply(ctx, fsys, objs, plan)
	for i, err := range res.Errs {
		if err != nil {
			left = append(left, plan.Files[i].Path)
			fr.Left = append(fr.Left, FileReason{Path: s.ws.absPath(plan.Files[i].Path), Reason: "it could not be written: " + err.Error()})
		}
	}
	return left, res.Sync
}
