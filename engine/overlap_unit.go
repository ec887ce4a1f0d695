package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"path"

	"cairn/engine/internal/overlap"
	"cairn/engine/internal/scope"
	"cairn/internal/vfs"
)

// A call of this process joining the unit of pending hook calls whose
// scope meets its own, and the checks that refuse or sweep while calls
// are pending (overlap.go keeps the markers).

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
func (sc callScope) overlap() overlap.Scope {
	if sc.Kind == scopeWorkspace {
		return overlap.Scope{Workspace: true}
	}
	return overlap.Scope{Paths: sc.Paths}
}
