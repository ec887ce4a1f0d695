package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/fstate"
	"cairn/engine/internal/overlap"
	"cairn/engine/internal/scope"
	"cairn/internal/vfs"
)

// Calls of a session that run at the same time (an agent's parallel tool
// calls, whose pre- and post-tool hooks interleave; a tool of this process
// run while an agent's call is pending): the rules are
// engine/internal/overlap's, the line engine/internal/changes' overlap.go.
// Here the pending markers (hook.go, hook_exec.go) carry the unit a call
// belongs to, part of the format:
//
//	{..., "unit":UID, "seq":N, "seen":[P...], "ended":BOOL, "rec":SNAP}
//
// "unit" names the unit ("" or absent: the call is alone), "seq" its place
// in the order the unit's calls began, "seen" the files it held that a
// whole-workspace walk covered when it began (overlap.Member.Seen).
// "ended": the call ended and its own line is written ("rec" names a file
// edit's change line; an exec marker's "id" names its record), but its
// unit has a call still running, so its marker stays, with its walk or
// pre-images, for the unit's end. A call of this process (a file tool,
// an exec line, RecordCall) that runs while a pending call whose scope
// meets its own waits for its post-tool hook joins that unit once it
// ended, with a marker named by its record's id. When the last running
// call of a unit ends, its process walks what the unit covers and writes
// the overlap line after its own lines, then removes the unit's markers.

// unitMark is what a pending marker says of its call's unit.
type unitMark = overlap.Mark

// markerFile is one pending marker of a session, read.
type markerFile struct {
	name string // its path
	at   time.Time
	exec *PendingExec   // a shell command's
	edit *PendingChange // or a file edit's
}

func (m *markerFile) mark() *unitMark {
	if m.exec != nil {
		return &m.exec.unitMark
	}
	return &m.edit.unitMark
}

// scope is what the marker's call may change.
func (m *markerFile) scope() overlap.Scope {
	if m.exec != nil {
		if m.exec.Scope == ScopeWorkspace {
			return overlap.Scope{Workspace: true}
		}
		return overlap.Scope{Paths: m.exec.Paths}
	}
	return editScope(m.edit.Files)
}

func editScope(files []changes.FileChange) overlap.Scope {
	ps := make([]string, len(files))
	for i, f := range files {
		ps[i] = f.Path
	}
	return overlap.Scope{Paths: ps}
}

func (m *markerFile) call() overlap.Call {
	u := m.mark()
	return overlap.Call{Name: m.name, Scope: m.scope(), Unit: u.Unit, Seq: u.Seq, Ended: u.Ended}
}

// member is the overlap line's member of the marker's call.
func (m *markerFile) member() changes.OverlapMember {
	if m.exec != nil {
		return changes.OverlapMember{ID: m.exec.ID, Call: m.exec.Call, Item: m.exec.Item}
	}
	return changes.OverlapMember{ID: m.edit.Rec, Call: m.edit.Call, Item: m.edit.Item}
}

// readMarkers is the pending markers of s that read (one that does not is
// fsck's to name, and the next hook's to sweep).
func (s *Session) readMarkers() []*markerFile {
	fsys := s.ws.s.fsys
	dir := hooksDir(s.ws.dir, s.ID())
	ents, err := fsys.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []*markerFile
	for _, e := range ents {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		m := readMarker(fsys, path.Join(dir, e.Name()))
		if m == nil {
			continue
		}
		if fi, err := e.Info(); err == nil {
			m.at = fi.ModTime()
		}
		out = append(out, m)
	}
	return out
}

// readMarker reads marker name, nil when it does not read.
func readMarker(fsys vfs.FS, name string) *markerFile {
	b, err := vfs.ReadFile(fsys, name)
	if err != nil {
		return nil
	}
	var kind struct {
		Kind string `json:"kind"`
	}
	if json.Unmarshal(b, &kind) != nil {
		return nil
	}
	m := &markerFile{name: name}
	if kind.Kind == markerExec {
		var p PendingExec
		if json.Unmarshal(b, &p) != nil || p.V != 1 || !changes.ValidSnapID(p.ID) || (p.Scope != ScopePaths && p.Scope != ScopeWorkspace) {
			return nil
		}
		m.exec = &p
		return m
	}
	var p PendingChange
	if json.Unmarshal(b, &p) != nil || p.V != 1 || len(p.Files) == 0 {
		return nil
	}
	m.edit = &p
	return m
}

// joinUnit places a call of scope sc beginning now, whose marker is name,
// among the session's pending calls ms (overlap.Join): the unit mark its
// own marker gets. The markers of the calls that join the unit with it
// are rewritten first; a call that must say which of its files a
// whole-workspace walk covers looks now (the call holds them as it begins).
func (s *Session) joinUnit(ctx context.Context, name string, sc overlap.Scope, ms []*markerFile) (unitMark, error) {
	var calls []overlap.Call
	byName := map[string]*markerFile{}
	for _, m := range ms {
		if m.name != name {
			calls = append(calls, m.call())
			byName[m.name] = m
		}
	}
	j := overlap.Join(calls, sc, func() string { return changes.NewSnapID(s.ws.s.Now()) })
	if j.Unit == "" {
		return unitMark{}, nil
	}
	u := unitMark{Unit: j.Unit, Seq: j.Seq}
	if j.Seen {
		// Which files a walk sees, not what they hold: none is read.
		t, err := scope.WalkVisible(ctx, s.ws.path, sc.Paths, scope.Options{StateDir: s.ws.s.home, MaxFileBytes: 1})
		if err != nil {
			return u, fmt.Errorf("engine: a call that runs beside others cannot be recorded: %w", err)
		}
		for e := range t.All() {
			if !e.IsDir() {
				u.Seen = append(u.Seen, e.Path)
			}
		}
	}
	for _, c := range j.Moved {
		m := byName[c.Name]
		m.mark().Unit = c.Unit
		if err := s.writeMarker(m); err != nil {
			return u, err
		}
	}
	return u, nil
}

// writeMarker writes marker m again (its unit mark changed).
func (s *Session) writeMarker(m *markerFile) error {
	var v any = m.edit
	if m.exec != nil {
		v = m.exec
	}
	b, _ := json.Marshal(v)
	if err := vfs.ReplaceFile(s.ws.s.fsys, m.name, b); err != nil {
		return fmt.Errorf("engine: a pending call's marker was not written: %w", err)
	}
	return nil
}

// endUnitCall ends the pending call of marker self, whose own line is
// written (rec: a file edit's change line, "" when it wrote none): alone,
// its marker goes (the caller removes it: keep false); the last running
// call of its unit ends the unit (endUnit; the unit's other markers go);
// any other call of a unit keeps its marker, ended (keep true). after is
// the walk of the whole workspace the call just made, when it made one.
func (s *Session) endUnitCall(ctx context.Context, self *markerFile, rec string, after *scope.Tree) (keep bool) {
	u := self.mark()
	if u.Unit == "" {
		return false
	}
	u.Ended, u.Rec = true, rec
	if self.exec != nil {
		u.Rec = ""
	}
	ms := s.readMarkers()
	var calls []overlap.Call
	var unit []*markerFile
	for _, m := range ms {
		if m.name == self.name {
			m = self
		}
		calls = append(calls, m.call())
		if m.mark().Unit == u.Unit {
			unit = append(unit, m)
		}
	}
	if !slices.Contains(unit, self) {
		unit = append(unit, self)
	}
	if !overlap.Last(calls, u.Unit, self.name) {
		if err := s.writeMarker(self); err != nil {
			s.notice(err.Error())
			return false
		}
		return true
	}
	s.endUnit(ctx, u.Unit, unit, after)
	fsys := s.ws.s.fsys
	for _, m := range unit {
		if m != self {
			fsys.Remove(m.name)
			fsys.Remove(execTreeName(m.name))
		}
	}
	return false
}

// endUnit writes the overlap line of unit, whose calls' markers are ms
// (every one ended): what the unit changed, each file from what it held
// when the first call covering it began to what it holds now. ws is a
// walk of the whole workspace made just now, when there is one. A unit
// whose end cannot be worked out writes nothing, with a notice: its calls'
// own lines stay, and file revert refuses where they meet.
func (s *Session) endUnit(ctx context.Context, unit string, ms []*markerFile, ws *scope.Tree) {
	fail := func(err error) {
		s.notice(fmt.Sprintf("calls that ran at the same time changed files, but what they changed together could not be recorded (%v): a file revert across them refuses the files they share", err))
	}
	slices.SortStableFunc(ms, func(a, b *markerFile) int { return a.mark().Seq - b.mark().Seq })
	cfg, err := s.config()
	if err != nil {
		fail(err)
		return
	}
	var members []overlap.Member
	var line []changes.OverlapMember
	var named []string
	wide := false
	for _, m := range ms {
		mem := overlap.Member{Scope: m.scope(), Seen: m.mark().Seen}
		if m.exec != nil {
			b, err := vfs.ReadFile(s.ws.s.fsys, execTreeName(m.name))
			if err == nil {
				if mem.Walk, err = readTree(b, m.exec.Tree.SHA256); err != nil {
					fail(err)
					return
				}
			} else {
				fail(err)
				return
			}
		} else {
			mem.Files = m.edit.Files
		}
		wide = wide || mem.Scope.Workspace
		if !mem.Scope.Workspace {
			named = append(named, mem.Scope.Paths...)
		}
		members = append(members, mem)
		line = append(line, m.member())
	}
	var after overlap.After
	walk := func(sc CallScope) (*scope.Tree, error) {
		c := &callCapture{s: s, sc: sc, cfg: cfg.Storage, objs: s.snapObjects()}
		return c.walk(ctx)
	}
	if wide {
		if after.Workspace = ws; ws == nil {
			if after.Workspace, err = walk(CallScope{Kind: ScopeWorkspace}); err != nil {
				fail(err)
				return
			}
		}
	}
	if len(named) > 0 {
		if after.Paths, err = walk(CallScope{Kind: ScopePaths, Paths: named}); err != nil {
			fail(err)
			return
		}
	}
	net := overlap.Net(members, after)
	objs := s.snapObjects()
	b := objs.Batch()
	defer b.Abort()
	files := make([]changes.FileChange, len(net))
	c := &callCapture{objs: objs}
	for i, ch := range net {
		f := ch.FileChange
		if f.Before != nil && f.Before.OID != "" && !c.stored(f.Before.OID) {
			if ch.Link != "" {
				if _, err := b.PutBytes(ctx, []byte(ch.Link)); err != nil {
					fail(err)
					return
				}
			} else {
				f.Before = &fstate.State{Skipped: fstate.SkipMissing, Size: f.Before.Size}
			}
		}
		files[i] = f
	}
	if err := b.Commit(); err != nil {
		fail(err)
		return
	}
	now := mkTime(s.ws.s.Now())
	l := changes.OverlapLine{V: 1, Kind: changes.KindOverlap, ID: unit, At: now, Item: s.newestItem(), Members: line, Files: files}
	if err := s.writeChanges(synced, l); err != nil {
		fail(err)
	}
}

// sha256Hex is the SHA-256 of b in hex.
func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// readTree decodes a kept walk whose SHA-256 is sum.
func readTree(b []byte, sum string) (*scope.Tree, error) {
	if sha256Hex(b) != sum {
		return nil, scope.ErrTreeCorrupt
	}
	return scope.DecodeTree(b)
}

// inUnit is a call of this process that runs while pending calls whose
// scope meets its own wait for their post-tool hooks: it joins their unit
// once it ended (unitEnded), with its mark.
type inUnit struct {
	mark unitMark
}

// unitBegin looks, as a call of this process of scope sc begins, for
// pending calls of the session whose scope meets it (none: nil, the usual
// case, one folder read). The joining markers are rewritten now.
func (s *Session) unitBegin(ctx context.Context, sc overlap.Scope) (*inUnit, error) {
	ms := s.readMarkers()
	if len(ms) == 0 {
		return nil, nil
	}
	u, err := s.joinUnit(ctx, "", sc, ms)
	if err != nil || u.Unit == "" {
		return nil, err
	}
	return &inUnit{mark: u}, nil
}

// unitBeginOrSay is unitBegin, whose failure is a notice: the call runs
// alone, and a file revert refuses where its line and the unit's meet.
func (s *Session) unitBeginOrSay(ctx context.Context, sc overlap.Scope) *inUnit {
	u, err := s.unitBegin(ctx, sc)
	if err != nil {
		s.notice(err.Error())
	}
	return u
}

// unitEnded leaves the ended marker of a call of this process that joined
// a unit (unitBegin): an exec's, with the walk before it (tree), or a file
// tool's, with its pre-images. Best effort: without it the unit's end
// does not know this call, and file revert refuses where their lines meet.
func (s *Session) unitEnded(u *inUnit, exec *PendingExec, tree *scope.Tree, edit *PendingChange, rec string) {
	if u == nil || rec == "" {
		return
	}
	u.mark.Ended, u.mark.Rec = true, rec
	fsys := s.ws.s.fsys
	name := hookMarker(s.ws.dir, s.ID(), rec)
	var b, t []byte
	if exec != nil {
		exec.unitMark, exec.unitMark.Rec = u.mark, ""
		t = scope.EncodeTree(tree)
		exec.Tree.SHA256, exec.Tree.Entries = sha256Hex(t), tree.Len()
		b, _ = json.Marshal(exec)
	} else {
		edit.unitMark = u.mark
		b, _ = json.Marshal(edit)
	}
	// The walk first, then the marker that names it (hook_exec.go).
	err := fsys.MkdirAll(path.Dir(name), vfs.DirPerm)
	if err == nil && t != nil {
		err = vfs.ReplaceFile(fsys, execTreeName(name), t)
	}
	if err == nil {
		err = vfs.ReplaceFile(fsys, name, b)
	}
	if err != nil {
		s.notice(fmt.Sprintf("a call that ran beside an agent's pending call could not be noted for their unit: %v", err))
	}
}

// pendingCalls counts the session's calls still running under an agent's
// hooks: a pending marker not ended and not older than a day (its agent
// died: the next hook sweeps it).
func (s *Session) pendingCalls() int {
	n := 0
	cut := s.ws.s.Now().Add(-hookMarkerMaxAge)
	for _, m := range s.readMarkers() {
		if !m.mark().Ended && m.at.After(cut) {
			n++
		}
	}
	return n
}

// refusePending refuses a file revert or unrevert while a call of the
// session's agent runs: what it changes meanwhile would belong to it.
func (s *Session) refusePending(what string) error {
	if n := s.pendingCalls(); n > 0 {
		return fmt.Errorf("%w: cannot %s files: %d tool call(s) of this session's agent are still running (their post-tool hook has not come); wait for them to end", ErrRefused, what, n)
	}
	return nil
}

// sweepUnits removes the ended markers of units that have no running call
// left (one was interrupted and swept): they can end no more. Their calls'
// own lines stay.
func (s *Session) sweepUnits() {
	ms := s.readMarkers()
	live := map[string]bool{}
	for _, m := range ms {
		if u := m.mark(); !u.Ended && u.Unit != "" {
			live[u.Unit] = true
		}
	}
	fsys := s.ws.s.fsys
	for _, m := range ms {
		if u := m.mark(); u.Ended && !live[u.Unit] {
			fsys.Remove(m.name)
			fsys.Remove(execTreeName(m.name))
		}
	}
}

// overlap is the scope as the unit rules see it.
func (sc CallScope) overlap() overlap.Scope {
	if sc.Kind == ScopeWorkspace {
		return overlap.Scope{Workspace: true}
	}
	return overlap.Scope{Paths: sc.Paths}
}
