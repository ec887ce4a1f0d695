package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"cairn/engine/internal/hookrec"
	"cairn/journal"
)

// Importing brings a session of another agent (Claude Code, Codex) into
// cairn. A source session becomes one cairn session whose id is derived
// from the agent's name and the source's own session id
// (ImportSessionID), so a second import finds the first without a search,
// and whose item ids are derived from the source's own keys (a line's uuid,
// or its byte offset), so items already brought in are never added twice.
// What the import read is kept in the session's meta line:
//
//	{"v":1,"kind":"meta","meta":{"import":{"agent":A,"source":ID,"path":P,"offset":N}},"at":T}
//
// offset is how many bytes of the source file were read: the next import
// reads from there. A new session is written whole, by one rename, as a
// fork is; an existing one gets the new items appended, then its head and
// meta lines, then one sync. Imported items keep their source times.

// ImportSource is one source session, or what was added to it since the
// last import, as an importer parsed it.
type ImportSource struct {
	Agent    string // "claude-code", "codex"
	SourceID string // the agent's own session id
	Path     string // the source file
	Offset   int64  // the bytes of Path (and of its sub-agent transcripts) read, this import included
	Dir      string // the session's working directory (its cwd)
	Title    string // "" for none
	Model    string
	Created  time.Time
	Items    []ImportItem
	// Head is the key of the item the session's head is on ("" = the last
	// item of Items).
	Head  string
	Spend Spend // spend the source recorded for Items
	// Tasks are the sub-agent transcripts of tool calls among Items.
	Tasks []ImportTask
	// DryRun says what the import would do and writes nothing.
	DryRun bool
	// Prior maps keys an earlier read of the source made to the ids the
	// import gave their items where those are not derived from the key
	// alone (ImportResult.Aliases): a read that starts where the last one
	// stopped names those items by key.
	Prior map[string]string
	// Pending is the prompt an agent is submitting as a hook brings its
	// transcript in (import_prompts.go): when the source's last user item
	// is that prompt, it and what follows are left for the hook.
	Pending *PendingPrompt
}

// ImportItem is one item of a source session. Key is unique within the
// source (a line's uuid, a byte offset); ParentKey and CallKey name other
// items of the same source by key ("" = none).
type ImportItem struct {
	Key       string
	ParentKey string
	Type      ItemType
	At        time.Time
	Text      string
	Tool      string
	CallKey   string
	Status    string
	// ReplacesKeys, on a compaction item, names the first and last item of
	// the stretch it summarises.
	ReplacesKeys []string
	// PromptID, on a user item, is the agent's own id of the prompt, and
	// PromptText what the user typed ("" = Text): how an import finds the
	// prompt a hook already recorded (import_prompts.go).
	PromptID, PromptText string
	// CallID, on a tool_call item, is the agent's own id of the call (a
	// tool_use id, a call_id): the id the hooks know the call by, from
	// which the item's id is derived (agentCallItem), so a change record a
	// hook made names the call that made it.
	CallID string
	// Attachments are files the item holds (an image a prompt or a tool
	// result carried), with their bytes in Data: stored as objects.
	Attachments []Attachment
	// Off is where the source line that made the item starts, in bytes.
	Off int64
}

// last is the time of the source's newest item, which the lines an import
// writes after the items carry: a session's activity is the source's, not
// the time it was imported.
func (src *ImportSource) last() Time {
	t := src.Created
	for i := range src.Items {
		if src.Items[i].At.After(t) {
			t = src.Items[i].At
		}
	}
	return mkTime(t)
}

// ImportResult says what an import did to one session.
type ImportResult struct {
	Session string `json:"session"`
	Path    string `json:"path"`
	Created bool   `json:"created"`
	Items   int    `json:"items"`   // items added
	Present int    `json:"present"` // items already there, not added again
	// Unlinked counts tool results whose call is not on their path, kept
	// without the link (the source named a call the engine cannot tie).
	Unlinked int `json:"unlinked"`
	// Tasks counts the sub-agent transcripts the session's calls name,
	// TaskItems the items added to them.
	Tasks     int `json:"tasks"`
	TaskItems int `json:"task_items"`
	// Attachments counts the files stored for the items added;
	// Dropped those left out (over storage.max_attachment_mb).
	Attachments int `json:"attachments"`
	Dropped     int `json:"attachments_dropped,omitempty"`
	// Aliases maps the keys of src's user items, and of those whose id is
	// not derived from the key alone (a prompt the hooks recorded, a tool
	// call), to their ids, for the next read's Prior.
	Aliases map[string]string `json:"-"`
	// Cut is where the pending prompt's line starts when the import left
	// it out (ImportSource.Pending), else -1: what was read ends there.
	Cut int64 `json:"-"`
}

// ImportMeta is what a session's meta says of its import.
type ImportMeta struct {
	Agent  string `json:"agent"`
	Source string `json:"source"`
	Path   string `json:"path"`
	Offset int64  `json:"offset"`
	// Spend is the source's spend brought in so far: a later import adds
	// only what the source spent since.
	Spend Spend `json:"spend"`
}

// importMeta is what st's meta says of its import.
func importMeta(st *state) ImportMeta {
	var m ImportMeta
	if raw, ok := st.Meta["import"]; ok {
		json.Unmarshal(raw, &m)
	}
	return m
}

// ImportSessionID is the cairn session id of an agent's session
// (hookrec.SessionID).
func ImportSessionID(agent, sourceID string) string { return hookrec.SessionID(agent, sourceID) }

// importItemID is the item id of a source item (hookrec.ItemID).
func importItemID(session, key string) string { return hookrec.ItemID(session, key) }

// ImportWorkspace is the workspace of a source session's directory, which
// may no longer exist on this machine (its sessions are still worth
// having): an absolute path that cannot be resolved is used as it is,
// cleaned.
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

// ImportWorkspaceFor is the workspace where the source session sourceID of
// agent is, or goes: the one that holds its cairn session already, wherever
// it is now (migrate-sessions moves a session to another directory; a
// later import must find it there, not make it again at the old one), else
// the workspace of the source's directory dir (ImportWorkspace).
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

// GoneWorkspace is the workspace of dir, a directory that no longer exists
// (a session imported from another machine, a folder deleted since), when
// the state folder holds one for it: its sessions can still be read by id
// and resumed; ErrNotFound when it holds none.
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
	return importMeta(st).Offset, true, nil
}

// Import brings src into its session: creates it, or appends what is new.
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
		lines, _, err := w.importLines(ctx, st, id, src, res)
		if err != nil {
			return nil, err
		}
		return res, w.nameTasks(ctx, id, st, src, lines, res)
	case err == nil:
		return res, w.importMore(ctx, id, src, res)
	case src.DryRun:
		st := newState(id, w.path)
		lines, _, err := w.importLines(ctx, st, id, src, res)
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
	items, head, err := w.importLines(ctx, st, id, src, res)
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
	now := src.last()
	tail, spend, turn := importTail(st, src, head, now)
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
		if it := st.Items[l.ID]; it != nil {
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
	items, head, err := w.importLines(ctx, s.st, id, src, res)
	if err != nil {
		return err
	}
	if err := w.nameTasks(ctx, id, s.st, src, items, res); err != nil {
		return err
	}
	now := src.last()
	tail, spend, turn := importTail(s.st, src, head, now)
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
