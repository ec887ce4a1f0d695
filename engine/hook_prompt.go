package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"time"

	"cairn/engine/internal/convlog"
	"cairn/engine/internal/hookrec"
	"cairn/internal/vfs"
	"cairn/journal"
)

// A prompt hook records a prompt without reading the whole conversation:
// it opens the session from the hooks' index (engine/internal/hookrec:
// the items without their texts, and the fold's summary) and from the
// lines the items journal gained since the index was written, appends the
// catch-up's items and the prompt, and appends them to the index. An
// index that is missing or disagrees with the journal is rebuilt from a
// whole open.

// RecordAgentPrompt records the prompt text (promptID: the agent's id of
// it) of agent session a, made when it is not there yet, as its prompt
// hook does: it waits up to wait for a parallel hook (OpenAgent), runs
// catchUp on the session (an import of the agent's transcript into it,
// Session.Import; nothing else may be asked of it), then appends the
// prompt (appendPrompt) and commits.
func (w *Workspace) RecordAgentPrompt(ctx context.Context, a AgentSession, opts SessionOptions, wait time.Duration, text, promptID string, catchUp func(*Session)) (Item, error) {
	s, err := w.openAgentIndexed(ctx, a, opts, true, wait)
	if err != nil {
		return Item{}, err
	}
	if catchUp != nil {
		catchUp(s)
	}
	it, err := s.appendPrompt(ctx, text, promptID)
	if err == nil {
		err = s.Commit(ctx)
	}
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	return it, err
}

// EndAgentTurn is the end of a turn of agent session a, as its Stop hook
// records it: the session opened as RecordAgentPrompt opens it (never
// made: nothing is done when it is not there), catchUp run on it, then
// Session.EndTurn with t. With t nil (SessionEnd) only catchUp runs.
func (w *Workspace) EndAgentTurn(ctx context.Context, a AgentSession, opts SessionOptions, wait time.Duration, t *Turn, catchUp func(*Session)) error {
	s, err := w.openAgentIndexed(ctx, a, opts, false, wait)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	defer s.Close()
	if catchUp != nil {
		catchUp(s)
	}
	if t != nil {
		if err := s.EndTurn(ctx, *t); err != nil {
			return err
		}
	}
	return s.Close()
}

// openAgentIndexed opens agent session a for a hook that writes to its
// conversation (a prompt, a turn's end): from the hooks' index
// (openIndexed) when the session is there and opts.Brief, else whole
// (OpenAgent; made when it is not there and create is set).
func (w *Workspace) openAgentIndexed(ctx context.Context, a AgentSession, opts SessionOptions, create bool, wait time.Duration) (*Session, error) {
	if a.Agent == "" || a.ID == "" {
		return nil, fmt.Errorf("%w: a hook names its agent and session", ErrBadInput)
	}
	id := ImportSessionID(a.Agent, a.ID)
	var s *Session
	var err error
	if _, serr := w.s.fsys.Stat(itemsName(w.dir, id)); serr != nil || !opts.Brief {
		s, err = w.OpenAgent(ctx, a, opts, create, wait)
	} else {
		s, err = retryBusy(ctx, wait, func() (*Session, error) { return w.openIndexed(ctx, id, opts) })
	}
	if err != nil {
		return nil, err
	}
	if s.index == nil {
		s.index = &indexKeep{} // opened whole: the index is written whole
	}
	return s, nil
}

// indexName is session id's index.
func indexName(dir, id string) string { return path.Join(hooksDir(dir, id), hookrec.IndexFile) }

// openIndexed opens session id for a prompt hook: from its index when
// the index agrees with the journal, else whole (load).
func (w *Workspace) openIndexed(ctx context.Context, id string, opts SessionOptions) (*Session, error) {
	if !validSessionID(id) {
		return nil, fmt.Errorf("%w: %q is not a session id", ErrBadInput, id)
	}
	noted, ownerDied := w.readHint(id)
	l, err := w.acquireAs(id, opts.Brief)
	if err != nil {
		return nil, err
	}
	if l, err = w.lease(ctx, id, l, opts.Notice); err != nil {
		w.release(id, l)
		return nil, err
	}
	s := &Session{ws: w, opts: opts, lock: l, convLog: convLog{st: newState(id, w.path), recorded: true}}
	if keep, st := w.indexedState(ctx, id); st != nil {
		s.index = keep
		err = s.loadIndexed(ctx, st)
	} else {
		err = s.load(ctx)
	}
	if err != nil {
		w.release(id, l)
		return nil, err
	}
	w.removeTemps(id, ownerDied, noted)
	w.removeUnmade()
	return s, nil
}

// indexedState is session id's state from its index and the journal's
// lines after it, or nil when the session is to be opened whole: no
// index, one that disagrees with the journal, a journal with a torn or
// unreadable line after it, a remote session, or turns the record does
// not call settled (their trail and usage lines are checked by a whole
// open).
func (w *Workspace) indexedState(ctx context.Context, id string) (*indexKeep, *state) {
	fsys := w.s.fsys
	st := newState(id, w.path)
	ix, ag, err := hookrec.OpenIndex(fsys, indexName(w.dir, id), itemsName(w.dir, id), st)
	if err != nil {
		return nil, nil
	}
	keep := &indexKeep{from: len(st.Order)}
	keep.at, keep.append = ix.Appendable()
	if ag == hookrec.Behind {
		keep.ids, err = convlog.FoldAfter(ctx, fsys, w.objects(), itemsName(w.dir, id), ix.Size, st, w.s.future())
	}
	rec, rerr := readRecord(fsys, w.dir, id)
	if err == nil && rerr == nil {
		st.Settled = min(rec.SettledTurn, st.Turns)
	}
	if err != nil || rerr != nil || remoteOf(st) != nil || st.Turns > st.Settled {
		st.DropLater()
		return nil, nil
	}
	keep.rec = rec
	return keep, st
}

// loadIndexed is load for a state read from the index: the journal
// opened for appending and the changes journal loaded; the record
// rebuilt when it disagrees. As a Brief open, it writes no open line.
func (s *Session) loadIndexed(ctx context.Context, st *state) error {
	w, id := s.ws, st.ID
	wr, _, err := journal.OpenWriter(w.s.fsys, itemsName(w.dir, id), journal.Options{Sync: journal.SyncManual, Now: w.s.now})
	if err != nil {
		return fmt.Errorf("engine: open session %s: %w", id, err)
	}
	if err := s.loadChanges(ctx); err != nil {
		wr.Close()
		return err
	}
	s.items, s.st = wr, st
	s.kept.Items.Durable(wr.Size())
	var rec *Record
	var rerr error
	if s.index != nil && s.index.rec != nil {
		rec = s.index.rec
	} else {
		rec, rerr = readRecord(w.s.fsys, w.dir, id)
	}
	if rerr != nil || rec.Journals["items"] != wr.Size() || rec.SettledTurn != st.Settled {
		if err := writeRecord(w.s.fsys, w.dir, recordOf(st, map[string]int64{"items": wr.Size()})); err != nil {
			s.recordStale = true
			return nil
		}
	}
	s.recordOff, s.recordDurable, s.recordSettled = wr.Size(), true, st.Settled
	s.resume = ResumeInfo{BranchBefore: st.Branch, BuildBefore: st.Build, Branch: st.Branch, Build: Version, AskTrust: st.Trust == nil}
	return nil
}

// keepIndex writes the session's index as it closes (indexKeep), with
// the s.mu and the session's lock held. Best effort: the index is
// derived, and one not written is rebuilt by the next prompt hook.
func (s *Session) keepIndex() {
	k := s.index
	if k == nil || s.items == nil || s.unrecorded != nil {
		return
	}
	fsys := s.ws.s.fsys
	size := s.items.Size()
	f, err := fsys.OpenFile(itemsName(s.ws.dir, s.st.ID), os.O_RDONLY, 0)
	if err != nil {
		return
	}
	sum, err := hookrec.Sum(f, size)
	f.Close()
	if err != nil {
		return
	}
	summary, _ := json.Marshal(summaryOf(s.st))
	name := indexName(s.ws.dir, s.st.ID)
	if k.append {
		ids := append(k.ids, s.st.Order[k.from:]...)
		if hookrec.AppendIndex(fsys, name, k.at, hookrec.Batch(indexEntries(s.st, ids), size, sum, summary)) == nil {
			return
		}
	}
	if fsys.MkdirAll(path.Dir(name), vfs.DirPerm) == nil {
		hookrec.WriteIndex(fsys, name, hookrec.Batch(indexEntries(s.st, s.st.Order), size, sum, summary))
	}
}
