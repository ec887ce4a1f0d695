package engine

import (
	"context"
	"errors"
	"fmt"

	"cairn/engine/internal/callrec"
	"cairn/engine/internal/changes"
	"cairn/engine/internal/fstate"
	"cairn/engine/internal/hookmark"
)

// Change records of calls other than the file tools (seed "Recording"):
// before a call that may change files, the files it can change are
// captured and stored; a call line is synced; the call runs; the same
// scope is captured again and a record line keeps only what changed (the
// lines: engine/internal/changes/records.go). Every such call goes through
// recordCall, the one place that decides whether and how it is recorded.
//
// When a record cannot be made, the reason decides (seed "Recording"):
//   - the store refuses it (a limit, a full store, recording off, a
//     workspace holding the state folder): the call runs without a record,
//     an unrecorded line says why, and the reason is shown once per session;
//   - the store is busy or anything else fails: the call is blocked with
//     the reason, so no change runs without its record.

// ScopeNone is the scope of a line that only reads: nothing is recorded.
const ScopeNone = "none"

// Scopes of a call: what it may change.
const (
	scopePaths     = callrec.Paths     // the named paths (a folder: all of it)
	scopeWorkspace = callrec.Workspace // the whole workspace, walked
)

// callScope is what a call may change: Kind is one of the Scope*
// constants; Paths (workspace-relative) for scopePaths.
type callScope struct {
	Kind  string
	Paths []string
	// own: the user's own call (ExecOptions.Own), recorded nowhere but
	// holding the workspace call lock like any call that may change files.
	own bool
}

// CallRecord says how a call was recorded (callrec.Record).
type CallRecord = callrec.Record

// errRefusedRecord is a record the store refuses: the call runs without one.
type errRefusedRecord = callrec.Refused

// refusal is the store's refusal in err (a full disk), or nil.
func refusal(err error) *errRefusedRecord { return callrec.Refusal(err) }

// recordCall runs fn as a call of tool (belonging to item call) that may
// change what sc says, recording it. It holds the session's busy lock
// (shared) and the undo stack's lock while fn runs, so the session's file
// tools, undo and redo wait, and Close waits for it. fn gets the context
// to run with; its error is returned after the record is made (a call
// that ran is recorded whatever it returned). fn that fails before it
// changes anything returns a *notRun.
func (s *Session) recordCall(ctx context.Context, tool, call string, sc callScope, fn func(context.Context) error) (*CallRecord, error) {
	s.busy.RLock()
	defer s.busy.RUnlock()
	if s.isClosed() {
		return nil, fmt.Errorf("engine: session %s is closed", s.ID())
	}
	cfg, err := s.config()
	if err != nil {
		return nil, err
	}
	// The workspace call lock, shared, as a file tool takes it: a file
	// revert waits for no call and runs alone (calls_lock.go).
	leave, err := s.enterCall(ctx, sc.Kind != ScopeNone || sc.own, "nothing was run")
	if err != nil {
		return nil, err
	}
	defer leave()
	rc := &CallRecord{}
	if sc.Kind == ScopeNone {
		return rc, fn(ctx)
	}
	cl, cap, r, err := s.captureBefore(ctx, tool, call, sc, cfg.Storage)
	if err != nil {
		return nil, err
	}
	rc.ID, rc.Scope = cl.ID, cl.Scope
	if r != nil {
		return rc, s.runUnrecorded(ctx, cl, rc, r, fn)
	}
	marks := s.recordMarks(true)
	if err := s.writeChanges(synced, append(marks, cl)...); err != nil {
		if r := refusal(err); r != nil {
			return rc, s.runUnrecorded(ctx, cl, rc, r, fn)
		}
		return nil, fmt.Errorf("engine: the %s call cannot be recorded (%w); nothing was run", tool, err)
	}
	s.wroteMarks(marks)
	s.snaps.recs.Open = append(s.snaps.recs.Open, cl)
	// An agent's call pending meanwhile whose scope meets this one's
	// (overlap.go): this call joins its unit once it ended.
	unit := s.unitBeginOrSay(ctx, sc.overlap())

	runErr := fn(ctx)

	// The call ran (or may have): its record is made whatever it returned,
	// even when ctx was cancelled.
	var nr *notRun
	s.recordAfter(context.WithoutCancel(ctx), cl, cap, rc, !errors.As(runErr, &nr), nil, changes.ItemRef{})
	if rc.Recorded {
		p := &hookmark.Exec{V: 1, Kind: hookmark.KindExec, Tool: tool, Call: cl.Call, ID: cl.ID, At: cl.At, Scope: cl.Scope, Paths: cl.Paths}
		s.unitEnded(unit, p, cap.tree, nil, cl.ID)
	}
	return rc, runErr
}

// captureBefore readies the record of a call of tool that may change what
// sc says (not ScopeNone), under enterCall: its call line (not written)
// and the scope captured, every file it covers stored. A record the store
// refuses (recording off, a workspace holding the state folder, a limit,
// a full store) is r: the call runs without one. Any other failure is
// err: the call must not run.
func (s *Session) captureBefore(ctx context.Context, tool, call string, sc callScope, cfg StorageConfig) (cl changes.CallLine, cap *callCapture, r *errRefusedRecord, err error) {
	if err := s.snapReady(ctx); err != nil {
		return cl, nil, nil, fmt.Errorf("%w; nothing was run", err)
	}
	now := mkTime(s.ws.s.Now())
	cl = changes.CallLine{V: 1, Kind: changes.KindCall, ID: changes.NewSnapID(now.Time), At: now, Tool: tool, Call: call, Item: s.newestItem(), Scope: sc.Kind}
	if sc.Kind == scopePaths {
		cl.Paths = sc.Paths
	}
	cap = &callCapture{s: s, sc: sc, cfg: cfg, objs: s.snapObjects()}
	switch {
	case !cfg.RecordingEnabled || s.opts.NoSnapshots:
		return cl, cap, &errRefusedRecord{Why: changes.WhyDisabled}, nil
	case s.ws.holdsState():
		return cl, cap, &errRefusedRecord{Why: changes.WhyStateFolder}, nil
	}
	err = cap.before(ctx)
	cl.Scope = cap.sc.Kind // a named hard link takes the whole workspace too
	if err != nil {
		if r := refusal(err); r != nil {
			return cl, cap, r, nil
		}
		return cl, cap, nil, fmt.Errorf("engine: the %s call cannot be recorded (%w); nothing was run", tool, err)
	}
	return cl, cap, nil, nil
}

// recordAfter makes the record of call cl once it ran (ran; else it
// failed before it could change anything, and the record only closes the
// call): the scope walked again, and a record line keeping what changed
// since cap's walk before, written (synced) after lead (the call line of
// a call whose before and after are two processes', written only now, and
// the start line it needs). The record line names item (a hook's call:
// where it began, hook.go's began), else the newest item. Over a limit
// after the call, or with the store full, the call is closed with an
// unrecorded line and the reason shown once; any other failure closes it
// why "failed" with a notice. rc says what was recorded.
func (s *Session) recordAfter(ctx context.Context, cl changes.CallLine, cap *callCapture, rc *CallRecord, ran bool, lead []any, item changes.ItemRef) {
	tool := cl.Tool
	var files []changes.FileChange
	var err error
	if ran {
		files, err = cap.after(ctx)
	}
	if r := refusal(err); r != nil {
		// Over the limits after the call, or the store full: refused.
		s.closeCall(cl, r.Why, rc)
		s.tellOnce(r.Why, callrec.UnrecordedText(tool, r))
		return
	}
	if err != nil {
		s.closeCall(cl, changes.WhyFailed, rc)
		s.noticef("the %s call ran, but its changes could not be recorded: %v", tool, err)
		return
	}
	seq := max(s.snaps.Seq(), s.snaps.recs.Seq) + 1
	if !item.Known {
		item = s.newestItem()
	}
	rl := changes.NewRecordLine(cl, mkTime(s.ws.s.Now()), seq, item, files)
	mode := synced
	if s.opts.Brief {
		// The call's files were all made before this line: it ends with
		// the close line, under its sync (SessionOptions.Brief).
		mode = closedSynced
	}
	if err := s.writeChanges(mode, append(lead, rl)...); err != nil {
		s.closeCall(cl, changes.WhyFailed, rc)
		s.noticef("the %s call ran, but its record could not be written: %v", tool, err)
		return
	}
	s.wroteMarks(lead)
	s.snaps.recs.Made(rl)
	rc.Recorded = true
	rc.Files, rc.Skipped = callrec.Changed(files)
	if len(files) > 0 {
		rc.Dropped = s.trimStore(ctx, cap.cfg, rl.ID)
	}
}

// recordAnswer is what a call's answer says of its record rc
// (callrec.Record.Answer).
func (s *Session) recordAnswer(rc *CallRecord) (snapshot *string, files, skipped []string) {
	return rc.Answer(s.ws.absPath)
}

// notRun is the error of a call's function that failed before it could
// change anything (errors.As finds it).
type notRun struct{ err error }

func (e *notRun) Error() string { return e.err.Error() }
func (e *notRun) Unwrap() error { return e.err }

// runUnrecorded runs fn without a record the store refused: the unrecorded
// line first (best effort: a full disk may refuse it too), the reason shown
// once per session.
func (s *Session) runUnrecorded(ctx context.Context, cl changes.CallLine, rc *CallRecord, r *errRefusedRecord, fn func(context.Context) error) error {
	rc.Unrecorded = r.Why
	s.closeCall(cl, r.Why, nil)
	s.tellOnce(r.Why, callrec.UnrecordedText(cl.Tool, r))
	return fn(ctx)
}

// closeCall writes the unrecorded line of call cl (best effort), after the
// start or off line the session's recording state asks for.
func (s *Session) closeCall(cl changes.CallLine, why string, rc *CallRecord) {
	on := why != changes.WhyDisabled
	l := changes.UnrecordedLine{V: 1, Kind: changes.KindUnrecorded, ID: cl.ID, At: mkTime(s.ws.s.Now()), Tool: cl.Tool, Call: cl.Call, Item: cl.Item, Why: why}
	marks := s.recordMarks(on)
	if err := s.writeChanges(synced, append(marks, l)...); err != nil {
		s.noticef("a %s call without a record could not be noted: %v", cl.Tool, err)
		return
	}
	s.wroteMarks(marks)
	s.snaps.recs.Closed(l.ID)
	if rc != nil {
		rc.Unrecorded = why
	}
}

// closeInterrupted closes the call lines a stopped owner left open with an
// unrecorded line, why "interrupted" (Open calls it, owning the session).
func (s *Session) closeInterrupted() {
	open := s.snaps.recs.Open
	if len(open) == 0 {
		return
	}
	if err := s.writeChanges(synced, callrec.Interrupted(open, mkTime(s.ws.s.Now()))...); err != nil {
		s.noticef("the interrupted calls could not be noted yet: %v", err)
		return
	}
	s.snaps.recs.Open = nil
}

// holdsState reports whether the workspace contains a state folder its
// files are fenced off from (or lies in one): it records nothing.
func (w *Workspace) holdsState() bool {
	for _, s := range w.stateStores() {
		if w.holds(s) != "" {
			return true
		}
	}
	return false
}

// recordPaths turns the paths a call names into workspace-relative names,
// leaving out those outside the workspace and inside the state folder.
func (w *Workspace) recordPaths(ps []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range ps {
		rel, err := w.relPath(p)
		if err != nil || seen[rel] || !fstate.ValidRel(rel) {
			continue
		}
		seen[rel] = true
		out = append(out, rel)
	}
	return out
}

// RecordCall runs fn as a call of tool that may change any file (an MCP or
// plugin tool), recorded as a whole-workspace shell line is; a store's
// refusal runs fn unrecorded (CallRecord.Unrecorded), any other failure
// refuses the call before fn runs.
func (s *Session) RecordCall(ctx context.Context, tool string, opts ToolOptions, fn func(context.Context) error) (*CallRecord, error) {
	if !labelRE.MatchString(tool) {
		return nil, fmt.Errorf("%w: tool name %q", ErrBadInput, tool)
	}
	call, err := s.callFor(opts.Call)
	if err != nil {
		return nil, err
	}
	return s.recordCall(ctx, tool, call, callScope{Kind: scopeWorkspace}, fn)
}
