package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"cairn/engine/internal/hookrec"
	"cairn/engine/internal/owner"
)

// An agent's pre- and post-tool hooks write change records only: the
// pre-images and the pending marker, then the change line. They need the
// session's ownership and its changes journal, not its conversation,
// which grows with every turn (a long session's items journal is tens of
// megabytes). So they open the session for its changes only: the lock
// taken, the changes journal folded and recovered as any open does, and
// of the conversation only its newest item, read from the end of the
// items journal (the "item" every change line names, for where it lies
// among the items). Such a session writes no item, no record and no open
// line, and is never handed out: BeginAgentChange, BeginAgentExec and
// SettleAgentChange open it, make their one call, and close it.

// errChangesOnly refuses a conversation write on a session opened for its
// changes only (a bug: such a session is never handed out).
var errChangesOnly = errors.New("engine: the session is open for its change records only")

// BeginAgentChange is Session.BeginChange on agent session a (made when it
// is not there yet), waiting up to wait for a parallel hook as OpenAgent
// does.
func (w *Workspace) BeginAgentChange(ctx context.Context, a AgentSession, opts SessionOptions, wait time.Duration, tool, call string, paths []string) (*PendingChange, error) {
	s, err := w.openAgentChanges(ctx, a, opts, true, wait)
	if err != nil {
		return nil, err
	}
	p, err := s.beginHookChange(ctx, tool, call, paths)
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	return p, err
}

// BeginAgentExec is Session.BeginExec on agent session a, as
// BeginAgentChange.
func (w *Workspace) BeginAgentExec(ctx context.Context, a AgentSession, opts SessionOptions, wait time.Duration, tool, call, line, dir string) (*PendingExec, error) {
	s, err := w.openAgentChanges(ctx, a, opts, true, wait)
	if err != nil {
		return nil, err
	}
	p, err := s.BeginExec(ctx, tool, call, line, dir)
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	return p, err
}

// SettleAgentChange is Session.SettleChange on agent session a; nil, nil
// when the session is not there.
func (w *Workspace) SettleAgentChange(ctx context.Context, a AgentSession, opts SessionOptions, wait time.Duration, call string) (*ToolAnswer, error) {
	s, err := w.openAgentChanges(ctx, a, opts, false, wait)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	ans, err := s.SettleChange(ctx, call)
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	return ans, err
}

// openAgentChanges opens agent session a for its changes only (see above),
// as OpenAgent opens it whole: a session made here is a new one, whole.
func (w *Workspace) openAgentChanges(ctx context.Context, a AgentSession, opts SessionOptions, create bool, wait time.Duration) (*Session, error) {
	if a.Agent == "" || a.ID == "" {
		return nil, fmt.Errorf("%w: a hook names its agent and session", ErrBadInput)
	}
	if _, err := w.s.fsys.Stat(itemsName(w.dir, ImportSessionID(a.Agent, a.ID))); err != nil && create {
		return w.OpenAgent(ctx, a, opts, true, wait)
	}
	id := ImportSessionID(a.Agent, a.ID)
	return retryBusy(ctx, wait, func() (*Session, error) { return w.openChanges(ctx, id, opts) })
}

// retryBusy calls open until it is not refused by a brief owner (another
// hook), or wait has passed (owner.RetryBrief).
func retryBusy(ctx context.Context, wait time.Duration, open func() (*Session, error)) (*Session, error) {
	again := func(err error) bool { return errors.Is(err, ErrBusy) || errors.Is(err, errCreated) }
	return owner.RetryBrief(ctx, wait, again, open)
}

// openChanges opens session id for its change records only (see above).
func (w *Workspace) openChanges(ctx context.Context, id string, opts SessionOptions) (*Session, error) {
	if err := w.checkSession(id); err != nil {
		return nil, err
	}
	noted, ownerDied := w.readHint(id)
	l, err := w.acquireAs(id, opts.Brief)
	if err != nil {
		return nil, err
	}
	s := &Session{ws: w, opts: opts, lock: l, changesOnly: true, convLog: convLog{st: newState(id, w.path), recorded: true}}
	newest, err := w.newestItemOf(id)
	if err != nil {
		w.release(id, l)
		return nil, err
	}
	if newest != "" {
		s.st.Order = []string{newest}
	}
	if err := s.loadChanges(ctx); err != nil {
		w.release(id, l)
		return nil, err
	}
	w.removeTemps(id, ownerDied, noted)
	w.removeUnmade()
	return s, nil
}

// newestItemOf is the id of the item written last to session id's items
// journal ("" when it holds none), read from the journal's end
// (hookrec.NewestItem).
func (w *Workspace) newestItemOf(id string) (string, error) {
	return hookrec.NewestItem(w.s.fsys, itemsName(w.dir, id))
}
