package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"cairn/internal/vfs"
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
	p, err := s.BeginChange(ctx, tool, call, paths)
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
// hook), or wait has passed.
func retryBusy(ctx context.Context, wait time.Duration, open func() (*Session, error)) (*Session, error) {
	deadline := time.Now().Add(wait)
	pause := 2 * time.Millisecond
	for {
		s, err := open()
		var busy *BusyError
		if errors.As(err, &busy) && !busy.Brief {
			return nil, err
		}
		if err == nil || !(errors.Is(err, ErrBusy) || errors.Is(err, errCreated)) || !time.Now().Before(deadline) {
			return s, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(pause):
		}
		pause = min(2*pause, 50*time.Millisecond)
	}
}

// openChanges opens session id for its change records only (see above).
func (w *Workspace) openChanges(ctx context.Context, id string, opts SessionOptions) (*Session, error) {
	if !validSessionID(id) {
		return nil, fmt.Errorf("%w: %q is not a session id", ErrBadInput, id)
	}
	if _, err := w.s.fsys.Stat(itemsName(w.dir, id)); err != nil {
		if vfs.IsNotExist(err) {
			return nil, fmt.Errorf("%w: %s in %s", ErrNotFound, id, w.path)
		}
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

// tailChunk is how much of the end of an items journal newestItemOf reads
// at a time.
const tailChunk = 64 << 10

// newestItemOf is the id of the item written last to session id's items
// journal ("" when it holds none), read from the journal's end: the last
// complete line of kind item. A torn last line is not one.
func (w *Workspace) newestItemOf(id string) (string, error) {
	f, err := w.s.fsys.OpenFile(itemsName(w.dir, id), os.O_RDONLY, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	end := fi.Size()
	var carry []byte // the start of a line whose end was read already
	for end > 0 {
		start := max(0, end-tailChunk)
		buf := make([]byte, end-start, end-start+int64(len(carry)))
		if _, err := f.ReadAt(buf, start); err != nil && !errors.Is(err, io.EOF) {
			return "", err
		}
		buf = append(buf, carry...)
		if end == fi.Size() {
			// What follows the last newline is a torn line: not read.
			i := bytes.LastIndexByte(buf, '\n')
			if i < 0 {
				buf = buf[:0]
			} else {
				buf = buf[:i+1]
			}
		}
		lines := bytes.Split(bytes.TrimSuffix(buf, []byte("\n")), []byte("\n"))
		first := 0
		if start > 0 {
			first = 1 // its start is in the chunk before
		}
		for i := len(lines) - 1; i >= first; i-- {
			var l struct {
				V    int    `json:"v"`
				Kind string `json:"kind"`
				ID   string `json:"id"`
			}
			if json.Unmarshal(lines[i], &l) == nil && l.V == 1 && l.Kind == kindItem && l.ID != "" {
				return l.ID, nil
			}
		}
		if start == 0 {
			return "", nil
		}
		carry = append([]byte(nil), lines[0]...)
		end = start
	}
	return "", nil
}
