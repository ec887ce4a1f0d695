package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"cairn/engine/internal/agentimport"
	"cairn/engine/internal/hookrec"
	"cairn/journal"
)

// Importing brings a session of another agent (Claude Code, Codex) into
// cairn: package agentimport (engine/internal/agentimport) makes the
// lines, with its doc saying how ids are derived and prompts the hooks
// recorded are met again; the methods below write them. A new session is
// written whole, by one rename, as a fork is; an existing one gets the new
// items appended, then its head and meta lines, then one sync.

// ImportSource is one source session as an importer parsed it.
type ImportSource = agentimport.Source

// ImportItem is one item of a source session, named by its Key.
type ImportItem = agentimport.Item

// ImportTask is a sub-agent's transcript of a source session.
type ImportTask = agentimport.Task

// PendingPrompt is a prompt an agent submits as a hook brings its transcript in.
type PendingPrompt = agentimport.Pending

// ImportResult says what an import did to one session (as JSON too).
type ImportResult = agentimport.Result

// agentCallItem is the item id of a tool call of session id that the agent
// calls call (agentimport.CallItem).
func agentCallItem(id, call string) string { return agentimport.CallItem(id, call) }

// ImportSessionID is the cairn session id of an agent's session
// (hookrec.SessionID).
func ImportSessionID(agent, sourceID string) string { return hookrec.SessionID(agent, sourceID) }

// ImportWorkspace is the workspace of a source session's directory, which
// may no longer exist here (such a path is used as it is, cleaned).
func (s *Store) ImportWorkspace(dir string) (*Workspace, error) {
	if !filepath.IsAbs(dir) {
		return nil, fmt.Errorf("%w: the source's directory %q is not absolute", ErrBadInput, dir)
	}
	w, err := s.Workspace(dir)
	if err == nil || !errors.Is(err, os.ErrNotExist) {
		return w, err
	}
	return s.workspaceAt(filepath.Clean(dir))
}

// ImportWorkspaceFor is the workspace holding agent's session sourceID
// already, wherever it moved, else that of the source's directory dir.
func (s *Store) ImportWorkspaceFor(ctx context.Context, agent, sourceID, dir string) (*Workspace, error) {
	w, err := s.ImportWorkspace(dir)
	if err != nil {
		return nil, err
	}
	id := ImportSessionID(agent, sourceID)
	if _, err := s.fsys.Stat(itemsName(w.dir, id)); err == nil {
		return w, nil
	}
	if moved, err := s.FindSession(ctx, id); err == nil {
		return moved, nil
	}
	return w, nil
}

// GoneWorkspace is the workspace the state folder holds for dir, a
// directory that no longer exists; ErrNotFound when there is none.
func (s *Store) GoneWorkspace(dir string) (*Workspace, error) {
	if !filepath.IsAbs(dir) {
		return nil, fmt.Errorf("%w: %q is not an absolute path", ErrBadInput, dir)
	}
	w, err := s.workspaceAt(filepath.Clean(dir))
	if err != nil {
		return nil, err
	}
	if !w.made {
		return nil, fmt.Errorf("%w: no sessions of %s", ErrNotFound, dir)
	}
	return w, nil
}

// ImportOffset says how far a previous import of the source read: its
// bytes, and whether the session exists at all.
func (w *Workspace) ImportOffset(ctx context.Context, agent, sourceID string) (int64, bool, error) {
	id := ImportSessionID(agent, sourceID)
	if _, err := w.s.fsys.Stat(itemsName(w.dir, id)); err != nil {
		return 0, false, nil
	}
	st, err := w.fold(ctx, id, foldOptions{})
	if err != nil {
		return 0, true, err
	}
	return agentimport.MetaOf(st).Offset, true, nil
}

// Import brings src into this session, which must be src's
// (ImportSessionID), as Workspace.Import does; no dry run.
func (w *Workspace) Import(ctx context.Context, src *ImportSource) (*ImportResult, error) {
	if src.Agent == "" || src.SourceID == "" {
		return nil, fmt.Errorf("%w: an import names its agent and source session", ErrBadInput)
	}
	if err := src.Spend.Check(); err != nil {
		return nil, fmt.Errorf("the source's spend: %w", err)
	}
	id := ImportSessionID(src.Agent, src.SourceID)
	res := &ImportResult{Session: id, Path: w.path}
	_, err := w.s.fsys.Stat(itemsName(w.dir, id))
	switch {
	case err == nil && src.DryRun:
		st, err := w.fold(ctx, id, foldOptions{})
		if err != nil {
			return nil, err
		}
		lines, _, err := agentimport.Lines(ctx, w.importEnv(), st, id, src, res)
		if err != nil {
			return nil, err
		}
		return res, w.nameTasks(ctx, id, st, src, lines, res)
	case err == nil:
		return res, w.importMore(ctx, id, src, res)
	case src.DryRun:
		st := newState(id, w.path)
		lines, _, err := agentimport.Lines(ctx, w.importEnv(), st, id, src, res)
		if err != nil {
			return nil, err
		}
		res.Created = res.Items > 0
		return res, w.nameTasks(ctx, id, st, src, lines, res)
	}
	return res, w.importNew(ctx, id, src, res)
}

func (w *Workspace) importNew(ctx context.Context, id string, src *ImportSource, res *ImportResult) error {
	if len(src.Items) == 0 {
		return nil // nothing worth a session
	}
	created := mkTime(src.Created)
	if src.Created.IsZero() {
		created = mkTime(src.Items[0].At)
	}
	st := newState(id, w.path)
	first := &itemLine{V: 1, Kind: kindSession, Session: id, Path: w.path, At: &created, Build: Version}
	st.Fold(first)
	items, head, err := agentimport.Lines(ctx, w.importEnv(), st, id, src, res)
	if err != nil {
		return err
	}
	if err := w.ensure(); err != nil {
		return err
	}
	if err := w.nameTasks(ctx, id, st, src, items, res); err != nil {
		return err
	}
	out := []any{first}
	for _, l := range items {
		out = append(out, l)
	}
	now := src.Last()
	tail, spend, turn := agentimport.Tail(st, src, head, now, Version)
	for _, l := range tail {
		out = append(out, l)
	}
	if err := w.ensure(); err != nil {
		return err
	}
	l, err := w.acquire(id)
	if err != nil {
		return err
	}
	made := false
	defer func() {
		w.release(id, l)
		if !made {
			w.dropUnmade(id)
		}
	}()
	wr, err := journal.Create(w.s.fsys, itemsName(w.dir, id), out, journal.Options{Sync: journal.SyncManual, Now: w.s.now})
	if err != nil {
		return fmt.Errorf("engine: import %s: %w", src.SourceID, err)
	}
	made = true
	res.Created = true
	size := wr.Size()
	wr.Close()
	// The record, from the state the lines were made from: what a fold of
	// the journal just written would give, without reading it again.
	for _, l := range tail {
		st.Fold(l)
	}
	for _, l := range items {
		if it := st.Item(l.ID); it != nil {
			it.Task = l.Task
		}
	}
	writeRecord(w.s.fsys, w.dir, recordOf(st, map[string]int64{"items": size}))
	return w.importUsage(id, src.Model, spend, turn, now)
}

func (w *Workspace) importMore(ctx context.Context, id string, src *ImportSource, res *ImportResult) error {
	// Brief: an import holds the session for this one call, as a hook does
	// (it often is one: a hook's catch-up), so a hook meeting it waits.
	s, err := w.Open(ctx, id, SessionOptions{Brief: true})
	if err != nil {
		return err
	}
	defer s.Close()
	return s.importInto(ctx, src, res)
}

// Import brings src into this session, which must be src's
// (ImportSessionID): what Workspace.Import does to a session that exists,
// in one already open (an agent's hook brings the transcript in, then
// records the prompt, with one open of the session). No dry run.
func (s *Session) Import(ctx context.Context, src *ImportSource) (*ImportResult, error) {
	if src.Agent == "" || src.SourceID == "" || src.DryRun {
		return nil, fmt.Errorf("%w: an import into an open session names its agent and source session, and is no dry run", ErrBadInput)
	}
	id := ImportSessionID(src.Agent, src.SourceID)
	if id != s.ID() {
		return nil, fmt.Errorf("%w: the source is session %s's, not %s's", ErrBadInput, id, s.ID())
	}
	res := &ImportResult{Session: id, Path: s.ws.path}
	return res, s.importInto(ctx, src, res)
}

// importInto appends what is new in src to the open session s.
func (s *Session) importInto(ctx context.Context, src *ImportSource, res *ImportResult) error {
	w, id := s.ws, s.ID()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.changesOnly {
		return fmt.Errorf("engine: session %s is closed", id)
	}
	items, head, err := agentimport.Lines(ctx, w.importEnv(), s.st, id, src, res)
	if err != nil {
		return err
	}
	if err := w.nameTasks(ctx, id, s.st, src, items, res); err != nil {
		return err
	}
	now := src.Last()
	tail, spend, turn := agentimport.Tail(s.st, src, head, now, Version)
	for _, l := range append(items, tail...) {
		if l.Kind != kindItem {
			if err := s.st.Fold(l); err != nil {
				return err
			}
		}
		if err := s.appendItem(l); err != nil {
			return fmt.Errorf("engine: import %s: %w", src.SourceID, err)
		}
	}
	if err := s.commitLocked(ctx); err != nil {
		return err
	}
	return w.importUsage(id, src.Model, spend, turn, now)
}
