package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"time"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/fstate"
	"cairn/engine/internal/hookmark"
	"cairn/engine/internal/hookrec"
	"cairn/engine/internal/patch"
	"cairn/internal/vfs"
)

// Hooks: cairn under another agent (Claude Code, Codex), which runs one
// cairn process per event; a file edit or shell command is split across
// its pre- and post-tool hooks, with a pending marker between them
// (package hookmark draws both and says what each field means).

// AgentSession names an agent's own session.
type AgentSession struct {
	Agent      string `json:"agent"`                // "claude-code", "codex"
	ID         string `json:"session"`              // the agent's session id
	Transcript string `json:"transcript,omitempty"` // the agent's transcript file
}

// hookMarkerMaxAge is how long a pending change may wait for its post-tool
// hook before it is taken for one whose agent died.
const hookMarkerMaxAge = 24 * time.Hour

// errCreated: the session appeared while this process was making it.
var errCreated = errors.New("engine: session appeared meanwhile")

// OpenAgent opens the cairn session of agent session a, waiting up to
// wait for another process (a parallel hook) to let it go. With create,
// a session not there yet is made, its meta naming a:
//
//	{"v":1,"kind":"meta","meta":{"agent":{"agent":A,"session":ID,"transcript":P}},"at":T}
//
// Without create, a session not there is ErrNotFound. Only a brief owner
// (another hook) is waited for: a session a person has open in cairn (the
// REPL, cairn mcp) answers its *BusyError at once, as it stays so.
func (w *Workspace) OpenAgent(ctx context.Context, a AgentSession, opts SessionOptions, create bool, wait time.Duration) (*Session, error) {
	if a.Agent == "" || a.ID == "" {
		return nil, fmt.Errorf("%w: a hook names its agent and session", ErrBadInput)
	}
	id := ImportSessionID(a.Agent, a.ID)
	return retryBusy(ctx, wait, func() (*Session, error) {
		s, err := w.Open(ctx, id, opts)
		if errors.Is(err, ErrNotFound) && create {
			s, err = w.createAgent(id, a, opts)
		}
		return s, err
	})
}

// createAgent makes session id for a, its meta its first line.
func (w *Workspace) createAgent(id string, a AgentSession, opts SessionOptions) (*Session, error) {
	s := &Session{ws: w, opts: opts, convLog: newConvLog(newState(id, w.path)), mustBeNew: true}
	s.st.Build = Version
	s.st.Branch = gitBranch(w.path)
	m, _ := json.Marshal(map[string]AgentSession{"agent": a})
	now := mkTime(w.s.Now())
	l := &itemLine{V: 1, Kind: kindMeta, Meta: m, At: &now}
	if err := s.materialize(l); err != nil {
		return nil, err
	}
	s.st.Fold(l)
	return s, nil
}

// PendingChange is a file edit whose pre-images are captured and whose
// after states are not recorded yet (hookmark.Change).
type PendingChange = hookmark.Change

// hookMarker is the marker file of call in session id.
func hookMarker(dir, id, call string) string { return hookmark.Name(hooksDir(dir, id), call) }

// beginHookChange captures the pre-image of each of paths before the agent's
// tool changes them, durably, and leaves the pending marker of call (the
// agent's tool-call id) for SettleChange. Refusals are Session.Change's: a
// *RequiredError when snapshots.required covers a file it cannot capture.
// The change belongs to the agent's call: its record names the item an
// import of the agent's transcript gives that call (agentCallItem), which
// is not there yet; until it is, the record stands where the call began,
// after the newest item then (began, revertAfter).
func (s *Session) beginHookChange(ctx context.Context, tool, call string, paths []string) (*PendingChange, error) {
	if call == "" {
		return nil, fmt.Errorf("%w: a pending change needs its call id", ErrBadInput)
	}
	s.sweepMarkers(ctx)
	c, err := s.beginChange(ctx, tool, paths)
	if err != nil {
		return nil, err
	}
	defer c.release()
	p := &PendingChange{V: 1, Tool: tool, Call: agentCallItem(s.ID(), call), Item: s.newestItem(), At: mkTime(s.ws.s.Now()),
		Files: c.files, Skipped: c.skipped, Off: !c.on || c.objs == nil}
	if p.Off {
		// Nothing captured: no marker either; SettleChange finds none
		// and records nothing.
		return p, nil
	}
	name := hookMarker(s.ws.dir, s.ID(), call)
	if p.Mark, err = s.joinUnit(ctx, name, editScope(p.Files), s.readMarkers()); err != nil {
		return nil, err
	}
	b, _ := json.Marshal(p)
	fsys := s.ws.s.fsys
	if err := fsys.MkdirAll(path.Dir(name), vfs.DirPerm); err != nil {
		return nil, err
	}
	// Not synced: a marker a crash loses only loses the record of this
	// edit (the post-tool hook then finds none and records nothing); the
	// pre-images it names are durable already, and the change line that
	// will name them is synced.
	if err := vfs.ReplaceFile(fsys, name, b); err != nil {
		return nil, fmt.Errorf("engine: the pending change of %s was not written: %w", tool, err)
	}
	return p, nil
}

// HasPending reports whether the tool call call of agent session a left
// a pending marker (beginHookChange or BeginExec) for SettleChange to settle.
// Without one a post-tool hook has nothing to do and need not open the
// session, nor wait for its lock: a Bash line that only reads leaves none.
// A marker that cannot be looked at counts as there.
func (w *Workspace) HasPending(a AgentSession, call string) bool {
	if a.Agent == "" || a.ID == "" || call == "" {
		return true // SettleChange says what is wrong
	}
	_, err := w.s.fsys.Lstat(hookMarker(w.dir, ImportSessionID(a.Agent, a.ID), call))
	return !vfs.IsNotExist(err)
}

// SettleChange ends the pending change of call: the after state of each
// file is recorded by its hash and one change line written (synced), as
// Session.Change does, or nothing when no file changed (the tool failed,
// or wrote what was there). The marker goes either way. A call with no
// marker (beginHookChange refused, failed, or was never run) records nothing:
// the answer is nil.
func (s *Session) SettleChange(ctx context.Context, call string) (*ToolAnswer, error) {
	fsys := s.ws.s.fsys
	name := hookMarker(s.ws.dir, s.ID(), call)
	b, err := vfs.ReadFile(fsys, name)
	if vfs.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	keep := false // the marker of a call whose unit runs on
	defer func() {
		if !keep {
			fsys.Remove(name)
			fsys.Remove(path.Dir(name)) // when it was the last one
		}
	}()
	var kind struct {
		Kind  string `json:"kind"`
		Ended bool   `json:"ended"`
	}
	if json.Unmarshal(b, &kind) == nil && kind.Ended {
		// The call ended already (a post-tool event twice): its unit
		// still runs, and needs its marker.
		keep = true
		return nil, nil
	}
	if kind.Kind == markerExec {
		return s.settleExec(ctx, call, name, b, &keep) // a shell command's (hook_exec.go)
	}
	p, err := hookmark.ReadChange(name, b)
	if err != nil {
		return nil, err
	}
	self := &markerFile{name: name, edit: p}
	cfg, err := s.config()
	if err != nil {
		return nil, err
	}
	sc := cfg.Snapshots
	s.busy.RLock()
	defer s.busy.RUnlock()
	if s.isClosed() {
		return nil, fmt.Errorf("engine: session %s is closed", s.ID())
	}
	endCall, err := s.beginCall(ctx)
	if err != nil {
		return nil, err
	}
	defer endCall()
	wfs, doneFS, err := s.ws.files()
	if err != nil {
		return nil, err
	}
	defer doneFS()
	s.snaps.mu.Lock()
	defer s.snaps.mu.Unlock()
	if err := s.payCancels(); err != nil {
		return nil, err
	}
	ans := &ToolAnswer{Session: s.ID(), Files: []string{}, Skipped: []string{}}
	changed := false
	for i := range p.Files {
		f := &p.Files[i]
		f.After, _ = fstate.Capture(ctx, wfs, fstate.HashSink, f.Path, sc.MaxFileBytes)
		ans.Files = append(ans.Files, s.ws.absPath(f.Path))
		changed = changed || !fstate.Same(f.Before, f.After)
	}
	for _, r := range p.Skipped {
		ans.Skipped = append(ans.Skipped, s.ws.absPath(r))
	}
	if !changed {
		keep = s.endUnitCall(ctx, self, "", nil)
		return ans, nil
	}
	item := settledCall(s, p.Call, call)
	st := &s.snaps
	rec, lines, live := st.NewChange(mkTime(s.ws.s.Now()), p.Tool, item, s.began(p.Item), p.Files, sc.Limits())
	mode := synced
	if s.opts.Brief {
		// The agent made the files before this line (SessionOptions.Brief).
		mode = closedSynced
	}
	if err := s.writeChanges(mode, lines...); err != nil {
		return nil, fmt.Errorf("engine: the %s tool changed files, but its change record was not written: %w", p.Tool, err)
	}
	st.Committed(rec, live)
	ans.Snapshot = &rec.ID
	keep = s.endUnitCall(ctx, self, rec.ID, nil)
	return ans, nil
}

// settledCall is the item a settled record names: the agent's call
// (agentCallItem: an item to come, from the transcript), or an item the
// session holds (a marker of an older build named the turn's prompt); an
// item since cut away (a revert) is no longer named.
func settledCall(s *Session, item, call string) string {
	if item == "" || item == agentCallItem(s.ID(), call) {
		return item
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st.Item(item) == nil {
		return ""
	}
	return item
}

// began is the "item" of the lines a hook's call writes at its post-tool
// hook: where the call began (the newest item when its pre-tool hook ran,
// kept in its marker), so that a file revert places the call by the turn
// it began in while the item of the agent's call it names is not in the
// conversation yet (the transcript brings it in later); a prompt written
// while the call ran does not move it. A marker of an older build keeps
// none: the newest item now.
func (s *Session) began(item changes.ItemRef) changes.ItemRef {
	if item.Known {
		return item
	}
	return s.newestItem()
}

// sweepMarkers removes the session's pending markers older than a day:
// their agent died between the two hooks. A shell command's gets an
// unrecorded line (closeStaleExecs). Best effort.
func (s *Session) sweepMarkers(ctx context.Context) {
	cut := s.ws.s.Now().Add(-hookMarkerMaxAge)
	// The transcript's mark and the index are no markers (AgentMark, hook_prompt.go).
	stale, err := hookmark.Sweep(s.ws.s.fsys, hooksDir(s.ws.dir, s.ID()), cut, transcriptMark, hookrec.IndexFile)
	if err != nil {
		return
	}
	s.closeStaleExecs(ctx, stale)
	s.sweepUnits()
}

// transcriptMark is the file in a session's hooks folder where the hooks
// keep how far they read the agent's transcript (AgentMark).
const transcriptMark = hookrec.MarkFile

// AgentMark is how far the hooks of agent session a read its transcript
// (SetAgentMark): a cache, nil when none or a's session does not exist.
func (w *Workspace) AgentMark(a AgentSession) []byte {
	// A hook that finds none reads the transcript from its start.
	id := ImportSessionID(a.Agent, a.ID)
	if _, err := w.s.fsys.Stat(itemsName(w.dir, id)); err != nil {
		return nil
	}
	return hookrec.ReadMark(w.s.fsys, hooksDir(w.dir, id))
}

// MapAgentMark is AgentMark mapped into memory (vfs.MapFile), for the
// catch-up of a hook holding a's session open as s; b is not kept after done.
func (s *Session) MapAgentMark(a AgentSession) (b []byte, done func()) {
	// A long session's mark, read at every prompt, is not copied. Only a
	// hook's catch-up writes the mark, with the session open: while s is,
	// nobody else writes it, and the catch-up's own writes keep the bytes
	// it parsed (AppendAgentMark writes after them; SetAgentMark puts a new
	// file in its place). done is called before s closes. nil (and a done
	// that does nothing) where AgentMark is nil, or s is not a's session.
	id := ImportSessionID(a.Agent, a.ID)
	if id != s.ID() {
		return nil, func() {}
	}
	b, done, err := vfs.MapFile(s.ws.s.fsys, path.Join(hooksDir(s.ws.dir, id), transcriptMark))
	if err != nil {
		return nil, func() {}
	}
	return b, done
}

// SetAgentMark keeps b as agent session a's AgentMark (hookrec.SetMark).
func (w *Workspace) SetAgentMark(a AgentSession, b []byte) error {
	return hookrec.SetMark(w.s.fsys, hooksDir(w.dir, ImportSessionID(a.Agent, a.ID)), b)
}

// AppendAgentMark appends b to agent session a's AgentMark after its
// first at bytes (what its reader parsed as whole), as SetAgentMark keeps
// it: not synced.
func (w *Workspace) AppendAgentMark(a AgentSession, at int64, b []byte) error {
	id := ImportSessionID(a.Agent, a.ID)
	return hookrec.AppendMark(w.s.fsys, path.Join(hooksDir(w.dir, id), transcriptMark), at, b)
}

// hooksFolder holds the pending markers of each session under hooks
// (hooks/<id>/), a per-session folder forget moves with the session.
const hooksFolder = "hooks"

// hooksDir is the folder of session id's pending markers.
func hooksDir(dir, id string) string { return path.Join(dir, hooksFolder, id) }

// PatchPaths is the files a patch (a git diff or a "*** Begin Patch"
// envelope) names, as it names them: every file it reads, makes, removes
// or moves to.
func PatchPaths(text []byte) ([]string, error) {
	out, err := patch.Paths(text)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadInput, err)
	}
	return out, nil
}
