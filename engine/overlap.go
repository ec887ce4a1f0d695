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

	"cairn/engine/internal/callrec"
	"cairn/engine/internal/changes"
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
		if m.exec.Scope == scopeWorkspace {
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
		if json.Unmarshal(b, &p) != nil || p.V != 1 || !changes.ValidSnapID(p.ID) || (p.Scope != scopePaths && p.Scope != scopeWorkspace) {
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
	walk := func(sc callScope) (*scope.Tree, error) {
		c := &callCapture{s: s, sc: sc, cfg: cfg.Storage, objs: s.snapObjects()}
		return c.walk(ctx)
	}
	if wide {
		if after.Workspace = ws; ws == nil {
			if after.Workspace, err = walk(callScope{Kind: scopeWorkspace}); err != nil {
				fail(err)
				return
			}
		}
	}
	if len(named) > 0 {
		if after.Paths, err = walk(callScope{Kind: scopePaths, Paths: named}); err != nil {
			fail(err)
			return
		}
	}
	files, err := callrec.Net(ctx, s.snapObjects(), overlap.Net(members, after))
	if err != nil {
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
