package engine

import (
	"context"
	"encoding/json"
	"fmt"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/convlog"
	"cairn/engine/internal/revert"
)

// RemoteWorkspace is the remote workspace a session's files are on (cairn
// --ssh): its host, path, identity and generation (convlog.RemoteWorkspace).
type RemoteWorkspace = convlog.RemoteWorkspace

const metaRemote = "remote"

// remoteOf is the session's binding, nil for a local session.
func remoteOf(st *state) *RemoteWorkspace {
	raw, ok := st.Meta[metaRemote]
	if !ok {
		return nil
	}
	var r RemoteWorkspace
	if json.Unmarshal(raw, &r) != nil || r.Host == "" {
		return nil
	}
	return &r
}

// Remote is the remote workspace the session is bound to, nil when its
// files are on this machine.
func (s *Session) Remote() *RemoteWorkspace {
	s.mu.Lock()
	defer s.mu.Unlock()
	return remoteOf(s.st)
}

// SetRemote binds the session to a remote workspace, durably: a line of
// its journal, so a resume finds it. A session is bound once; binding it
// again to another workspace is refused (its records on the host would be
// left behind).
func (s *Session) SetRemote(ctx context.Context, r RemoteWorkspace) error {
	if r.Host == "" || r.Path == "" || r.Identity == "" {
		return fmt.Errorf("%w: a remote workspace needs a host, a path and an identity", ErrBadInput)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if cur := remoteOf(s.st); cur != nil {
		if *cur == r {
			return nil
		}
		return fmt.Errorf("%w: session %s is bound to %s already", ErrRefused, s.st.ID, cur)
	}
	m, err := json.Marshal(map[string]RemoteWorkspace{metaRemote: r})
	if err != nil {
		return err
	}
	now := mkTime(s.ws.s.Now())
	l := &itemLine{V: 1, Kind: kindMeta, Meta: m, At: &now}
	if err := s.writeLine(ctx, l); err != nil {
		return err
	}
	if err := s.st.Fold(l); err != nil {
		return err
	}
	return s.commitLocked(ctx)
}

// RemoteError refuses to open a session bound to a remote workspace for a
// caller that would run its files here. It is ErrRefused for errors.Is.
type RemoteError struct {
	Session string
	Remote  RemoteWorkspace
}

func (e *RemoteError) Error() string {
	return fmt.Sprintf("session %s works on the remote workspace %s; its files are not on this machine: resume it with cairn -r %s (experimental.remote_workcell)",
		e.Session, e.Remote.String(), e.Session)
}

// Is makes a RemoteError a refusal.
func (e *RemoteError) Is(target error) bool { return target == ErrRefused }

// Place is where a call that changes files lies in a conversation
// (convlog.Place).
type Place = convlog.Place

// Place is where a call belonging to call (as ToolOptions.Call: "" for
// the prompt that began the turn) would lie in this session's
// conversation now.
func (s *Session) Place(call string) (Place, error) {
	c, err := s.callFor(call)
	if err != nil {
		return Place{}, err
	}
	return Place{Call: c, Item: s.newestItem().ID}, nil
}

// RevertPoint is the boundary of a file revert to an item of a
// conversation kept elsewhere (revert.Point).
type RevertPoint = revert.Point

// RevertPoint is the boundary of a file revert of this session's
// conversation to item at, for the host session that keeps its records
// (RevertFilesAt).
func (s *Session) RevertPoint(at string) (*RevertPoint, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sel, err := revertItem(s.st, at)
	if err != nil {
		return nil, err
	}
	return &RevertPoint{Item: sel.ID, Prompt: sel.Type == User, At: sel.At, Order: append([]string(nil), s.st.Order...)}, nil
}

// RevertFilesAt runs (apply) or previews a file revert of a session whose
// conversation is kept elsewhere (SessionOptions.Elsewhere) to the
// boundary p: the records placed after it are put back, as Revert with
// mode files does. The head is the conversation's business: it does not
// move here.
func (s *Session) RevertFilesAt(ctx context.Context, p RevertPoint, apply bool) (*RevertResult, error) {
	if p.Item == "" {
		return nil, fmt.Errorf("%w: a revert point names an item", ErrBadInput)
	}
	return s.revertFilesTo(ctx, func() (*Item, revertPoint, error) {
		return nil, revertPoint{id: p.Item, at: p.At.Time, after: revert.After(p.Order, p.Item, p.Prompt, p.At.Time)}, nil
	}, RevertFiles, apply)
}

// UnrevertFiles puts back the files of the file reverts since the last
// new work, as Unrevert does, without moving the head: for a session whose
// conversation, and so its head, is kept elsewhere. It answers nil when
// there are none to put back.
func (s *Session) UnrevertFiles(ctx context.Context) (*FileRevert, error) {
	s.busy.RLock()
	defer s.busy.RUnlock()
	if s.isClosed() {
		return nil, fmt.Errorf("engine: session %s is closed", s.ID())
	}
	if err := s.refuseRunning("unrevert"); err != nil && s.ws.pendingQuick(s.st.ID) {
		return nil, err
	}
	s.snaps.mu.Lock()
	defer s.snaps.mu.Unlock()
	return s.unrevertFiles(ctx)
}

// ChangeSelection is what a diff of a conversation kept elsewhere reads
// from the host session that keeps its records (changes.Selection).
type ChangeSelection = changes.Selection

// SelectChanges is the selection of item of this session's conversation,
// as Workspace.Changes reads it, for the host session that keeps the
// records (a remote workspace).
func (s *Session) SelectChanges(item string) (*ChangeSelection, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.SelectChanges(item)
}

// ChangesOf reads what the selected calls changed from this session's
// change records, as Workspace.Changes does for a conversation of its
// own: for a session whose conversation is kept elsewhere
// (SessionOptions.Elsewhere), whose change lines name that
// conversation's items.
func (s *Session) ChangesOf(ctx context.Context, sel ChangeSelection, limit int64) (*Changes, error) {
	return s.ws.changesOf(ctx, s.ID(), sel, limit)
}
