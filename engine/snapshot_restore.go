package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"cairn/internal/vfs"
	"cairn/objects"
)

// Undo, redo and restore-to. An undo keeps the files' current content as
// objects and writes its undo line (synced) before it touches a file, so
// whatever happens after, redo can put exactly that content back. Each file
// is replaced atomically or removed; the folders are synced before the
// answer. A file an undo cannot keep or restore (its pre-image was skipped,
// its current content is too large or unreadable, an object is missing) is
// left as it is and named in "skipped".

// Restore actions, as answers and the trail name them.
const (
	actionUndo    = "undo"
	actionRedo    = "redo"
	actionRestore = "restore"
)

// Undo restores the files of the newest applied snapshot and keeps their
// current content for Redo. Nothing to undo is ErrRefused.
func (s *Session) Undo(ctx context.Context) (*RestoreResult, error) {
	return s.restore(ctx, actionUndo, "")
}

// Redo puts back what the newest undo kept. Nothing to redo is ErrRefused,
// and so is a redo that would overwrite a file changed since the undo.
func (s *Session) Redo(ctx context.Context) (*RestoreResult, error) {
	return s.restore(ctx, actionRedo, "")
}

// RestoreTo undoes every applied snapshot down to and including id. An
// unknown or already undone id is ErrRefused.
func (s *Session) RestoreTo(ctx context.Context, id string) (*RestoreResult, error) {
	return s.restore(ctx, actionRestore, id)
}

func (s *Session) restore(ctx context.Context, action, id string) (*RestoreResult, error) {
	s.busy.RLock()
	defer s.busy.RUnlock()
	if s.isClosed() {
		return nil, fmt.Errorf("engine: session %s is closed", s.ID())
	}
	cfg, err := s.ws.s.Config()
	if err != nil {
		return nil, err
	}
	sc := cfg.Snapshots
	st := &s.snaps
	st.mu.Lock()
	defer st.mu.Unlock()
	refuse := func(format string, a ...any) (*RestoreResult, error) {
		s.auditRestore(ctx, action, "refused", nil)
		return nil, fmt.Errorf("%w: %s", ErrRefused, fmt.Sprintf(format, a...))
	}
	verb := action
	if verb == actionRestore {
		verb = actionUndo
	}
	if !sc.Enabled {
		return refuse("nothing to %s: snapshots are off (snapshots.enabled is false)", verb)
	}
	n := st.cursor()
	var targets []*snapEntry
	switch action {
	case actionUndo:
		if n == 0 {
			return refuse("nothing to undo")
		}
		targets = append(targets, st.list[n-1])
	case actionRedo:
		if n == len(st.list) {
			return refuse("nothing to redo")
		}
		targets = append(targets, st.list[n])
	default:
		i := st.find(id)
		if i < 0 {
			return refuse("no snapshot %q in this session", id)
		}
		if !st.list[i].applied {
			return refuse("snapshot %s is already undone", id)
		}
		for j := n - 1; j >= i; j-- {
			targets = append(targets, st.list[j])
		}
	}
	fsys, done, err := s.ws.files()
	if err != nil {
		return nil, err
	}
	defer done()
	if err := s.snapReady(); err != nil {
		return nil, err
	}
	objs := s.snapObjects()
	res := &RestoreResult{OK: true, Action: action, Steps: []RestoreStep{}}
	for _, e := range targets {
		var step RestoreStep
		if action == actionRedo {
			step, err = s.redoOne(ctx, fsys, objs, e, sc.MaxFileBytes)
		} else {
			kind := kindUndo
			if action == actionRestore {
				kind = kindRestore
			}
			step, err = s.undoOne(ctx, fsys, objs, e, kind, sc.MaxFileBytes)
		}
		if err != nil {
			outcome := "failed"
			if errors.Is(err, ErrRefused) {
				outcome = "refused"
			}
			s.auditRestore(ctx, action, outcome, res.Steps)
			return nil, err
		}
		res.Steps = append(res.Steps, step)
	}
	res.Cursor = st.cursor()
	s.auditRestore(ctx, action, "ok", res.Steps)
	return res, nil
}

// auditRestore writes session.snapshot_restore to the trail. A session that
// was never written stays unwritten.
func (s *Session) auditRestore(ctx context.Context, action, outcome string, steps []RestoreStep) {
	if !s.Recorded() {
		return
	}
	var as []AuditStep
	for _, st := range steps {
		as = append(as, AuditStep{ID: st.ID, Restored: len(st.Restored), Removed: len(st.Removed), Skipped: len(st.Skipped)})
	}
	if err := s.Audit(ctx, AuditEvent{Event: "session.snapshot_restore", Outcome: outcome, Action: action, Steps: as}); err != nil {
		s.notice(fmt.Sprintf("the restore could not be audited: %v", err))
	}
}

func newStep(e *snapEntry) RestoreStep {
	return RestoreStep{ID: e.rec.ID, At: e.rec.At, Tool: e.rec.Tool, Restored: []string{}, Removed: []string{}, Skipped: []string{}}
}

// undoOne undoes snapshot e, the newest applied one.
func (s *Session) undoOne(ctx context.Context, fsys vfs.FS, objs *objects.Store, e *snapEntry, kind string, max int64) (RestoreStep, error) {
	step := newStep(e)
	files := e.rec.Files
	kept := make([]*fileRef, len(files))
	for k, f := range files {
		cur, _ := capture(ctx, fsys, storeSink(ctx, objs), f.Path, max)
		switch {
		case f.Before.skipped():
			kept[k] = &fileRef{Skipped: f.Before.Skipped, Size: f.Before.Size}
		case cur.skipped():
			kept[k] = cur
		case !restorable(objs, f.Before):
			kept[k] = &fileRef{Skipped: skipMissing}
		default:
			kept[k] = cur
		}
	}
	if err := ctx.Err(); err != nil {
		return step, err
	}
	line := undoRecord{V: 1, Kind: kind, ID: e.rec.ID, At: mkTime(s.ws.s.Now()), Files: make([]keptFile, len(files))}
	for k, f := range files {
		line.Files[k] = keptFile{Path: f.Path, Kept: kept[k]}
	}
	if err := s.appendChanges(line); err != nil {
		// The line may have reached the journal: cancel it with a redo.
		st := &s.snaps
		st.refold(s)
		if i := st.find(e.rec.ID); i >= 0 && !st.list[i].applied {
			s.appendChanges(redoRecord{V: 1, Kind: kindRedo, ID: e.rec.ID, At: mkTime(s.ws.s.Now())})
			st.refold(s)
		}
		return step, err
	}
	e.applied, e.kept = false, kept
	dirs := dirSet{}
	for k, f := range files {
		if kept[k].skipped() {
			step.Skipped = append(step.Skipped, s.ws.absPath(f.Path))
			continue
		}
		if !sameRef(kept[k], f.Before) {
			if err := putFile(ctx, fsys, objs, f.Path, f.Before, dirs); err != nil {
				s.notice(fmt.Sprintf("undo could not restore %s: %v", f.Path, err))
				step.Skipped = append(step.Skipped, s.ws.absPath(f.Path))
				continue
			}
		}
		if f.Before == nil {
			step.Removed = append(step.Removed, s.ws.absPath(f.Path))
		} else {
			step.Restored = append(step.Restored, s.ws.absPath(f.Path))
		}
	}
	if err := dirs.sync(fsys); err != nil {
		return step, fmt.Errorf("engine: undo %s: sync folders: %w", e.rec.ID, err)
	}
	return step, nil
}

// redoOne puts back what the undo of e kept. A file that changed since the
// undo refuses the whole redo before anything is written.
func (s *Session) redoOne(ctx context.Context, fsys vfs.FS, objs *objects.Store, e *snapEntry, max int64) (RestoreStep, error) {
	step := newStep(e)
	files := e.rec.Files
	if len(e.kept) != len(files) {
		return step, fmt.Errorf("engine: snapshot %s has no undo to redo", e.rec.ID)
	}
	var changed []string
	skip := make([]bool, len(files))
	for k, f := range files {
		kept := e.kept[k]
		if kept.skipped() {
			skip[k] = true
			continue
		}
		if !restorable(objs, kept) {
			skip[k] = true
			continue
		}
		cur, _ := capture(ctx, fsys, hashSink, f.Path, sizeLimit(max, kept, f.Before))
		if cur.skipped() || (!sameRef(cur, f.Before) && !sameRef(cur, kept)) {
			changed = append(changed, f.Path)
		}
	}
	if err := ctx.Err(); err != nil {
		return step, err
	}
	if len(changed) > 0 {
		return step, fmt.Errorf("%w: redo would overwrite %s, changed since the undo", ErrRefused, strings.Join(changed, ", "))
	}
	if err := s.appendChanges(redoRecord{V: 1, Kind: kindRedo, ID: e.rec.ID, At: mkTime(s.ws.s.Now())}); err != nil {
		// The line may have reached the journal: cancel it with an undo
		// keeping what the last undo kept.
		st := &s.snaps
		st.refold(s)
		if i := st.find(e.rec.ID); i >= 0 && st.list[i].applied {
			line := undoRecord{V: 1, Kind: kindUndo, ID: e.rec.ID, At: mkTime(s.ws.s.Now()), Files: make([]keptFile, len(files))}
			for k, f := range files {
				line.Files[k] = keptFile{Path: f.Path, Kept: e.kept[k]}
			}
			s.appendChanges(line)
			st.refold(s)
		}
		return step, err
	}
	e.applied = true
	dirs := dirSet{}
	for k, f := range files {
		kept := e.kept[k]
		if skip[k] {
			step.Skipped = append(step.Skipped, s.ws.absPath(f.Path))
			continue
		}
		if err := putFile(ctx, fsys, objs, f.Path, kept, dirs); err != nil {
			s.notice(fmt.Sprintf("redo could not restore %s: %v", f.Path, err))
			step.Skipped = append(step.Skipped, s.ws.absPath(f.Path))
			continue
		}
		if kept == nil {
			step.Removed = append(step.Removed, s.ws.absPath(f.Path))
		} else {
			step.Restored = append(step.Restored, s.ws.absPath(f.Path))
		}
	}
	if err := dirs.sync(fsys); err != nil {
		return step, fmt.Errorf("engine: redo %s: sync folders: %w", e.rec.ID, err)
	}
	return step, nil
}

// restorable reports whether state f can be put back: absent, inline, or
// an object that exists.
func restorable(objs *objects.Store, f *fileRef) bool {
	if f == nil || f.inline() {
		return true
	}
	id, err := objects.ParseID(f.OID)
	if err != nil {
		return false
	}
	ok, err := objs.Has(id)
	return ok && err == nil
}

// maxLink is the longest link target restored.
const maxLink = 64 << 10

// putFile makes workspace file rel hold state f: removed when nil, else
// its content (inline, verified when the line was read, or the object's,
// verified as it is copied) with f's mode and permission bits.
func putFile(ctx context.Context, fsys vfs.FS, objs *objects.Store, rel string, f *fileRef, dirs dirSet) error {
	if f == nil {
		return removeFile(fsys, rel, dirs)
	}
	if f.inline() {
		if f.Mode == modeLink {
			return putLink(fsys, rel, string(f.Data), dirs)
		}
		return replaceFile(fsys, rel, restorePerm(fsys, rel, f), dirs, func(w io.Writer) error {
			_, err := w.Write(f.Data)
			return err
		})
	}
	id, err := objects.ParseID(f.OID)
	if err != nil {
		return err
	}
	if f.Mode == modeLink {
		b, err := objs.ReadAll(ctx, id, maxLink)
		if err != nil {
			return err
		}
		return putLink(fsys, rel, string(b), dirs)
	}
	return replaceFile(fsys, rel, restorePerm(fsys, rel, f), dirs, func(w io.Writer) error {
		rc, err := objs.Get(ctx, id)
		if err != nil {
			return err
		}
		defer rc.Close()
		n, err := io.Copy(w, rc)
		if err != nil {
			return err
		}
		if n != f.Size {
			return fmt.Errorf("object %s holds %d bytes, the record says %d", f.OID, n, f.Size)
		}
		return nil
	})
}

// restorePerm is the permission a file put back from state f gets: the
// bits f records, else (a line written before they were recorded) those
// filePerm gives.
func restorePerm(fsys vfs.FS, rel string, f *fileRef) fs.FileMode {
	if perm, ok := f.perm(); ok {
		return perm
	}
	return filePerm(fsys, rel, f.Mode == modeExec)
}

// putLink makes rel a symbolic link to target; a folder there is left.
func putLink(fsys vfs.FS, rel, target string, dirs dirSet) error {
	if fi, err := fsys.Lstat(rel); err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a folder", rel)
	}
	return replaceLink(fsys, rel, target, dirs)
}
