package engine

import (
	"context"
	"fmt"

	"cairn/engine/internal/callrec"
	"cairn/engine/internal/changes"
	"cairn/engine/internal/hookmark"
	"cairn/engine/internal/overlap"
	"cairn/engine/internal/scope"
)

// Calls of a session that run at the same time (an agent's parallel tool
// calls; a tool of this process run while an agent's call is pending): the
// rules, the markers' unit fields and their handling are
// engine/internal/overlap's (doc.go, markers.go), the line
// engine/internal/changes' overlap.go. Here the session gives the package
// its markers folder and decoder, walks at a unit's end and writes its line.

// unitMark is what a pending marker says of its call's unit.
type unitMark = overlap.Mark

// markerFile is one pending marker of a session: a shell command's
// (exec) or a file edit's.
type markerFile struct {
	name string // its path
	exec *hookmark.Exec
	edit *hookmark.Change
}

// marker is m as engine/internal/overlap reads it.
func (m *markerFile) marker() *overlap.Marker {
	if m.exec != nil {
		return m.exec.Marker(m.name)
	}
	return m.edit.Marker(m.name)
}

// editScope is the scope of a file edit of files (hookmark.EditScope).
func editScope(files []changes.FileChange) overlap.Scope { return hookmark.EditScope(files) }

// overlap is the scope as the unit rules see it.
func (sc callScope) overlap() overlap.Scope {
	if sc.Kind == scopeWorkspace {
		return overlap.Scope{Workspace: true}
	}
	return overlap.Scope{Paths: sc.Paths}
}

// markers is the session's folder of pending markers.
func (s *Session) markers() overlap.Markers {
	return overlap.Markers{
		FS: s.ws.s.fsys, Dir: hooksDir(s.ws.dir, s.ID()), Decode: hookmark.Decode,
		Root: s.ws.path, StateDir: s.ws.s.home,
		NewID: func() string { return changes.NewSnapID(s.ws.s.Now()) },
	}
}

// readMarkers is the pending markers of s that read.
func (s *Session) readMarkers() []*overlap.Marker { return s.markers().Read() }

// joinUnit places a call of scope sc beginning now, whose marker is name,
// among the session's pending calls ms (overlap.Markers.Join): the unit
// mark its own marker gets.
func (s *Session) joinUnit(ctx context.Context, name string, sc overlap.Scope, ms []*overlap.Marker) (unitMark, error) {
	return s.markers().Join(ctx, name, sc, ms)
}

// endUnitCall ends the pending call of marker self, whose own line is
// written (rec: a file edit's change line, "" when it wrote none): alone,
// its marker goes (the caller removes it: keep false); the last running
// call of its unit ends the unit (endUnit; the unit's other markers go);
// any other call of a unit keeps its marker, ended (keep true). after is
// the walk of the whole workspace the call just made, when it made one.
func (s *Session) endUnitCall(ctx context.Context, self *markerFile, rec string, after *scope.Tree) (keep bool) {
	k := s.markers()
	m := self.marker()
	keep, unit, err := k.End(m, rec)
	if err != nil {
		s.notice(err.Error())
		return false
	}
	if unit != nil {
		s.endUnit(ctx, k, m.Mark.Unit, unit, after)
		k.Drop(unit, m)
	}
	return keep
}

// endUnit writes the overlap line of unit, whose calls' markers are ms
// (every one ended): what the unit changed, each file from what it held
// when the first call covering it began to what it holds now. ws is a
// walk of the whole workspace made just now, when there is one. A unit
// whose end cannot be worked out writes nothing, with a notice: its calls'
// own lines stay, and file revert refuses where they meet.
func (s *Session) endUnit(ctx context.Context, k overlap.Markers, unit string, ms []*overlap.Marker, ws *scope.Tree) {
	fail := func(err error) {
		s.notice(fmt.Sprintf("calls that ran at the same time changed files, but what they changed together could not be recorded (%v): a file revert across them refuses the files they share", err))
	}
	cfg, err := s.config()
	if err != nil {
		fail(err)
		return
	}
	members, line, wide, named, err := k.Members(ms)
	if err != nil {
		fail(err)
		return
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
	l := changes.OverlapLine{V: 1, Kind: changes.KindOverlap, ID: unit, At: mkTime(s.ws.s.Now()), Item: s.newestItem(), Members: line, Files: files}
	if err := s.writeChanges(synced, l); err != nil {
		fail(err)
	}
}

// sha256Hex is the SHA-256 of b in hex.
func sha256Hex(b []byte) string { return overlap.SumHex(b) }

// readTree decodes a kept walk whose SHA-256 is sum.
func readTree(b []byte, sum string) (*scope.Tree, error) { return overlap.ReadTree(b, sum) }

// inUnit is a call of this process that runs while pending calls whose
// scope meets its own wait for their post-tool hooks: it joins their unit
// once it ended (unitEnded), with its mark.
type inUnit struct {
	mark unitMark
}

// unitBeginOrSay looks, as a call of this process of scope sc begins, for
// pending calls of the session whose scope meets it (none: nil, the usual
// case, one folder read). The joining markers are rewritten now. A
// failure is a notice: the call runs alone, and a file revert refuses
// where its line and the unit's meet.
func (s *Session) unitBeginOrSay(ctx context.Context, sc overlap.Scope) *inUnit {
	k := s.markers()
	ms := k.Read()
	if len(ms) == 0 {
		return nil
	}
	u, err := k.Join(ctx, "", sc, ms)
	if err != nil {
		s.notice(err.Error())
		return nil
	}
	if u.Unit == "" {
		return nil
	}
	return &inUnit{mark: u}
}

// unitEnded leaves the ended marker of a call of this process that joined
// a unit (unitBeginOrSay): an exec's, with the walk before it (tree), or a
// file tool's, with its pre-images. Best effort: without it the unit's end
// does not know this call, and file revert refuses where their lines meet.
func (s *Session) unitEnded(u *inUnit, exec *hookmark.Exec, tree *scope.Tree, edit *hookmark.Change, rec string) {
	if u == nil || rec == "" {
		return
	}
	u.mark.Ended, u.mark.Rec = true, rec
	var v any = edit
	var t []byte
	if exec != nil {
		exec.Mark, exec.Mark.Rec = u.mark, ""
		t = scope.EncodeTree(tree)
		exec.Tree.SHA256, exec.Tree.Entries = sha256Hex(t), tree.Len()
		v = exec
	} else {
		edit.Mark = u.mark
	}
	if err := s.markers().Ended(hookMarker(s.ws.dir, s.ID(), rec), v, t); err != nil {
		s.notice(fmt.Sprintf("a call that ran beside an agent's pending call could not be noted for their unit: %v", err))
	}
}

// refusePending refuses a file revert or unrevert while a call of the
// session's agent runs (a pending marker not ended and not older than a
// day: its agent died, and the next hook sweeps it): what it changes
// meanwhile would belong to it.
func (s *Session) refusePending(what string) error {
	if n := s.markers().Pending(s.ws.s.Now().Add(-hookMarkerMaxAge)); n > 0 {
		return fmt.Errorf("%w: cannot %s files: %d tool call(s) of this session's agent are still running (their post-tool hook has not come); wait for them to end", ErrRefused, what, n)
	}
	return nil
}

// sweepUnits removes the ended markers of units that have no running call
// left (overlap.Markers.Sweep).
func (s *Session) sweepUnits() { s.markers().Sweep() }
