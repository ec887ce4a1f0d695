package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/fstate"
	"cairn/engine/internal/hookmark"
	"cairn/engine/internal/overlap"
	"cairn/engine/internal/scope"
	"cairn/internal/vfs"
	"cairn/journal"
)

// A shell command of an agent under hooks is recorded as `cairn tool exec`
// records a line (callrec.go), by the same scope rules, across two
// processes: BeginExec walks and stores the scope and leaves an exec
// marker, SettleChange walks again and writes the call and record lines
// (package hookmark draws the marker).

// markerExec is the kind of an exec marker ("" is a file edit's).
const markerExec = hookmark.KindExec

// PendingExec is a shell command whose scope is captured and whose record
// is not written yet (hookmark.Exec).
type PendingExec = hookmark.Exec

// BeginExec captures what shell command line, run by the agent's tool
// (labelled tool) in folder dir (absolute; "" is the workspace), may
// change before it runs, and leaves the exec marker of call (the agent's
// tool-call id) for SettleChange. The answer's Scope says what is
// recorded: none for a line that only reads (no marker). A record the
// store refuses is no error (Unrecorded says why: the command runs
// without one); any other failure is. The command belongs to the newest
// prompt of the conversation.
func (s *Session) BeginExec(ctx context.Context, tool, call, line, dir string) (*PendingExec, error) {
	if call == "" || !labelRE.MatchString(tool) || strings.TrimSpace(line) == "" || strings.ContainsRune(line, 0) {
		return nil, fmt.Errorf("%w: a pending shell command needs its tool, call id and line", ErrBadInput)
	}
	s.sweepMarkers(ctx)
	// The item as beginHookChange's.
	return s.beginExec(ctx, tool, agentCallItem(s.ID(), call), hookMarker(s.ws.dir, s.ID(), call), line, dir, changes.ItemRef{})
}

// beginExec is BeginExec for a command whose record names item, its
// marker name: an agent's call under hooks, or a background line of this
// session (background_session.go), settled by SettleChange either way.
// Its record is placed at at, where a background line began; unknown (an
// agent's call): the newest item now.
func (s *Session) beginExec(ctx context.Context, tool, item, name, line, dir string, at changes.ItemRef) (*PendingExec, error) {
	sc := s.ws.lineScopeIn(line, dir)
	p := &PendingExec{V: 1, Kind: markerExec, Tool: tool, Call: item, Scope: sc.Kind, Paths: sc.Paths}
	if sc.Kind == ScopeNone {
		return p, nil
	}
	s.busy.RLock()
	defer s.busy.RUnlock()
	if s.isClosed() {
		return nil, fmt.Errorf("engine: session %s is closed", s.ID())
	}
	cfg, err := s.config()
	if err != nil {
		return nil, err
	}
	leave, err := s.enterCall(ctx, true, "nothing was recorded")
	if err != nil {
		return nil, err
	}
	defer leave()
	cl, cap, r, err := s.captureBefore(ctx, tool, item, sc, cfg.Storage)
	if err != nil {
		return nil, err
	}
	if at.Known {
		cl.Item = at
	}
	if r != nil {
		rc := &CallRecord{}
		s.runUnrecorded(ctx, cl, rc, r, func(context.Context) error { return nil })
		p.Unrecorded = rc.Unrecorded
		return p, nil
	}
	p.ID, p.Item, p.At, p.Scope = cl.ID, cl.Item, cl.At, cl.Scope
	tree := scope.EncodeTree(cap.tree)
	p.Tree.SHA256, p.Tree.Entries = sha256Hex(tree), cap.tree.Len()
	if p.Mark, err = s.joinUnit(ctx, name, sc.overlap(), s.readMarkers()); err != nil {
		return nil, err
	}
	fsys := s.ws.s.fsys
	if err := fsys.MkdirAll(path.Dir(name), vfs.DirPerm); err != nil {
		return nil, err
	}
	// The walk first, then the marker that names it (see above).
	b, _ := json.Marshal(p)
	if err := vfs.ReplaceFile(fsys, overlap.TreeName(name), tree); err != nil {
		return nil, fmt.Errorf("engine: the pending %s command was not written: %w", tool, err)
	}
	if err := vfs.ReplaceFile(fsys, name, b); err != nil {
		fsys.Remove(overlap.TreeName(name))
		return nil, fmt.Errorf("engine: the pending %s command was not written: %w", tool, err)
	}
	return p, nil
}

// settleExec ends exec marker name (content b, already read; the caller
// removes the marker): the scope walked again, and the call line and its
// record line written together (recordAfter). A marker whose walk cannot
// be read closes the call with an unrecorded line, why "failed".
func (s *Session) settleExec(ctx context.Context, call, name string, b []byte, keep *bool) (*ToolAnswer, error) {
	fsys := s.ws.s.fsys
	defer func() {
		if !*keep {
			fsys.Remove(overlap.TreeName(name))
		}
	}()
	var p PendingExec
	if err := json.Unmarshal(b, &p); err != nil || p.V != 1 || !labelRE.MatchString(p.Tool) || !changes.ValidSnapID(p.ID) ||
		(p.Scope != scopePaths && p.Scope != scopeWorkspace) || p.Scope == scopePaths && len(p.Paths) == 0 {
		return nil, fmt.Errorf("%w: pending shell command %s is not readable", ErrFormat, name)
	}
	for _, f := range p.Paths {
		if !fstate.ValidRel(f) {
			return nil, fmt.Errorf("%w: pending shell command %s names a bad path", ErrFormat, name)
		}
	}
	cfg, err := s.config()
	if err != nil {
		return nil, err
	}
	s.busy.RLock()
	defer s.busy.RUnlock()
	if s.isClosed() {
		return nil, fmt.Errorf("engine: session %s is closed", s.ID())
	}
	leave, err := s.enterCall(ctx, true, "nothing was recorded")
	if err != nil {
		return nil, err
	}
	defer leave()
	if err := s.snapReady(ctx); err != nil {
		return nil, err
	}
	item := settledCall(s, p.Call, call)
	cl := changes.CallLine{V: 1, Kind: changes.KindCall, ID: p.ID, At: p.At, Tool: p.Tool, Call: item, Item: s.began(p.Item), Scope: p.Scope, Paths: p.Paths}
	rc := &CallRecord{ID: p.ID}
	cap := &callCapture{s: s, sc: callScope{Kind: p.Scope, Paths: p.Paths}, cfg: cfg.Storage, objs: s.snapObjects()}
	tree, err := vfs.ReadFile(fsys, overlap.TreeName(name))
	if err == nil {
		cap.tree, err = readTree(tree, p.Tree.SHA256)
	}
	if err != nil {
		s.closeCall(cl, changes.WhyFailed, rc)
		s.noticef("the %s command ran, but its changes could not be recorded: its walk before is lost (%v)", p.Tool, err)
	} else {
		s.recordAfter(ctx, cl, cap, rc, true, append(s.recordMarks(true), cl), cl.Item)
		var ws *scope.Tree
		if p.Scope == scopeWorkspace {
			ws = cap.afterTree
		}
		*keep = s.endUnitCall(ctx, &markerFile{name: name, exec: &p}, "", ws)
	}
	ans := &ToolAnswer{Session: s.ID()}
	ans.Snapshot, ans.Files, ans.Skipped = s.recordAnswer(rc)
	return ans, nil
}

// closeStaleExecs closes the calls of exec markers ms, whose agent died
// between the hooks, with an unrecorded line each, why "interrupted" (best
// effort: the markers go either way). Rare: it reads the journal.
func (s *Session) closeStaleExecs(ctx context.Context, ms []PendingExec) {
	if len(ms) == 0 {
		return
	}
	s.busy.RLock()
	defer s.busy.RUnlock()
	if s.isClosed() || s.snapReady(ctx) != nil {
		return
	}
	s.snaps.mu.Lock()
	defer s.snaps.mu.Unlock()
	// A Post cut short after its lines were written but before its marker
	// went leaves a marker of a call the journal holds: not interrupted.
	known := map[string]bool{}
	journal.Read(s.ws.s.fsys, changesName(s.ws.dir, s.ID()), func(b []byte) error {
		var l struct {
			Kind string `json:"kind"`
			ID   string `json:"id"`
		}
		if json.Unmarshal(b, &l) == nil && changes.RecordKind(l.Kind) {
			known[l.ID] = true
		}
		return nil
	})
	var lines []any
	for _, p := range ms {
		if known[p.ID] {
			continue
		}
		lines = append(lines, changes.UnrecordedLine{V: 1, Kind: changes.KindUnrecorded, ID: p.ID, At: mkTime(s.ws.s.Now()),
			Tool: p.Tool, Call: p.Call, Item: s.began(p.Item), Why: changes.WhyInterrupted})
	}
	if len(lines) == 0 {
		return
	}
	if err := s.writeChanges(synced, lines...); err != nil {
		s.noticef("shell commands whose agent stopped could not be noted: %v", err)
	}
}
