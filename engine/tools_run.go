package engine

import (
	"context"
	"fmt"
	"slices"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/fstate"
	"cairn/engine/internal/hookmark"
	"cairn/engine/internal/overlap"
	"cairn/engine/internal/snapshot"
	"cairn/engine/internal/tools"
	"cairn/internal/vfs"
)

// Running a file tool, in the steps drawn in package tools' doc: runTool
// takes the locks and gathers the call's input (newToolRun), and a
// tools.Run carries the call through its steps over the session, which
// sessionHost lends it.

// runTool runs a file tool on path, line first.
func (s *Session) runTool(ctx context.Context, tool, path string, opts []ToolOptions, plan tools.Plan) (*ToolAnswer, error) {
	s.busy.RLock()
	defer s.busy.RUnlock()
	if s.isClosed() {
		return nil, fmt.Errorf("engine: session %s is closed", s.ID())
	}
	r, rel, done, err := s.newToolRun(tool, path, opts)
	if err != nil {
		return nil, err
	}
	defer done()
	leave, err := s.enterCall(ctx, true, "nothing was changed")
	if err != nil {
		return nil, err
	}
	defer leave()

	if err := r.Capture(ctx, rel, plan); err != nil {
		return nil, err
	}
	unit := s.unitBeginOrSay(ctx, overlap.Scope{Paths: []string{rel}})
	s.files.Begin()
	defer s.files.End()
	return s.makeToolRun(ctx, r, unit)
}

// makeToolRun makes the change a tool run captured and staged, ends its
// unit, and leaves its folders' syncs and the replaced files' removal to
// the background. The caller holds the session's file syncs begun.
func (s *Session) makeToolRun(ctx context.Context, r *tools.Run, unit *inUnit) (*ToolAnswer, error) {
	ans, dirs, leftovers, err := r.Make(ctx)
	if err != nil {
		return nil, err
	}
	if ans.Snapshot != nil {
		s.unitEnded(unit, nil, nil, unitMarker(r), r.Rec.ID)
	}
	redo := r.Redoable()
	for i, l := range leftovers {
		if i < len(leftovers)-1 {
			s.files.Later(s.ws.files, fstate.DirSet{}, l, redo)
		} else {
			s.files.Later(s.ws.files, dirs, l, redo)
		}
	}
	if len(leftovers) == 0 {
		s.files.Later(s.ws.files, dirs, "", redo)
	}
	return ans, nil
}

// unitMarker is the marker of a tool's call, with its files' pre-images,
// when it joins a unit (overlap.go).
func unitMarker(r *tools.Run) *hookmark.Change {
	fs := make([]changes.FileChange, len(r.FCs))
	for i, f := range r.FCs {
		fs[i] = changes.FileChange{Path: f.Path, Before: f.Before}
	}
	return &hookmark.Change{V: 1, Tool: r.Tool, Call: r.Call, At: r.Rec.At, Files: fs}
}

// newToolRun checks a file tool's input and readies its run: the options,
// the path (never inside the state folder, returned relative to the
// workspace), the item it belongs to, the session's config and the
// workspace's files, which done gives back.
func (s *Session) newToolRun(tool, path string, opts []ToolOptions) (*tools.Run, string, func(), error) {
	opt, err := toolOptions(opts)
	if err != nil {
		return nil, "", nil, err
	}
	if err := tools.FileName(path); err != nil {
		return nil, "", nil, err
	}
	rel, err := s.ws.relPath(path)
	if err != nil {
		return nil, "", nil, err
	}
	call, err := s.callFor(opt.Call)
	if err != nil {
		return nil, "", nil, err
	}
	cfg, err := s.config()
	if err != nil {
		return nil, "", nil, err
	}
	fsys, done, err := s.ws.files()
	if err != nil {
		return nil, "", nil, err
	}
	if tools.FencedOff(fsys, rel) {
		done()
		return nil, "", nil, fmt.Errorf("%w: %s is inside cairn's state folder", ErrBadInput, path)
	}
	if err := s.ws.leadsOut(fsys, rel, path); err != nil {
		done()
		return nil, "", nil, err
	}
	if err := tools.CheckPath(fsys, cfg.Tools.WriteVCSFolders, rel, path); err != nil {
		done()
		return nil, "", nil, err
	}
	return s.toolRun(tool, call, cfg.Snapshots, fsys), rel, done, nil
}

// toolRun is a tools.Run of session s for one call of tool.
func (s *Session) toolRun(tool, call string, sc SnapshotsConfig, fsys vfs.FS) *tools.Run {
	return &tools.Run{Host: sessionHost{s, sc}, Stack: &s.snaps.Stack, Syncs: &s.files, FS: fsys, Objs: s.snapObjects(),
		Applier: &s.apply, Session: s.ID(), Tool: tool, Call: call, Limits: sc.Limits()}
}

// sessionHost is what the runs below the root need of the session: a
// tools.Run (under the snapshot settings sc, which its pre-images are
// captured with), a snapshot.Run and a revert.Run.
type sessionHost struct {
	s  *Session
	sc SnapshotsConfig
}

func (h sessionHost) AbsPath(rel string) string       { return h.s.ws.absPath(rel) }
func (h sessionHost) Now() Time                       { return mkTime(h.s.ws.s.Now()) }
func (h sessionHost) NewestItem() changes.ItemRef     { return h.s.newestItem() }
func (h sessionHost) Noticef(format string, a ...any) { h.s.noticef(format, a...) }
func (h sessionHost) NoteStaging(rel string)          { h.s.noteStaging(rel) }
func (h sessionHost) Write(mode durability, lines ...any) error {
	return h.s.writeChanges(mode, lines...)
}
func (h sessionHost) Abort(id string)                { h.s.abortChange(id) }
func (h sessionHost) WriteSynced(lines ...any) error { return h.s.writeChanges(synced, lines...) }
func (h sessionHost) Cancel(lines ...any) error      { return h.s.cancel(lines...) }
func (h sessionHost) Settled()                       { h.s.snaps.Settled() }
func (h sessionHost) Refold()                        { h.s.snaps.refold(h.s) }
func (h sessionHost) PreImages(ctx context.Context) *snapshot.PreImages {
	return h.s.newPreImages(ctx, h.sc, true).PreImages
}
func (h sessionHost) DenyRequired(ctx context.Context, tool string, denied []requiredFile, journal bool) {
	h.s.denyRequired(ctx, tool, denied, journal)
}

// abortChange cancels change id, whose line may be written but whose file
// was not changed, and refolds the stack from the journal: the truth,
// whether the line, its abort, both or neither reached it.
func (s *Session) abortChange(id string) {
	st := &s.snaps
	err := s.writeChanges(synced, changes.EventLine{V: 1, Kind: changes.KindAbort, ID: id, At: mkTime(s.ws.s.Now())})
	st.refold(s)
	if err == nil {
		return
	}
	// The abort is owed: it goes before the next line, and meanwhile the
	// stack is what that line will make of it (and what a reader, or the
	// next owner, settles it to).
	s.noticef("the cancelled change %s could not be recorded yet: %v", id, err)
	st.wr.Owe(id)
	st.dropOwed([]string{id})
}

// refold rebuilds the stack from the journal, after a write to it failed.
func (st *snapStack) refold(s *Session) {
	var fresh snapStack
	if err := foldChanges(s.ws.s.fsys, changesName(s.ws.dir, s.st.ID), &fresh); err != nil {
		s.noticef("the undo stack could not be read back: %v", err)
		return
	}
	st.Stack, st.unread = fresh.Stack, fresh.unread
	// Aborts still owed are in the stack as those lines will make it.
	st.dropOwed(st.wr.Owed())
}

// dropOwed takes out of the stack the pending changes owed aborts
// cancel, newest first, as Stack.Fold does with the abort lines, and puts
// back the undone branch each ended. Only the two newest changes can be
// pending (changes.Stack.Prev).
func (st *snapStack) dropOwed(owed []string) {
	for p := st.Pending(); p != nil && slices.Contains(owed, p.Rec.ID); p = st.Pending() {
		st.PopPending()
	}
}
