package engine

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/hookmark"

	"cairn/engine/internal/fstate"
	"cairn/engine/internal/overlap"
	"cairn/engine/internal/snapshot"
	"cairn/internal/vfs"
	"cairn/objects"
)

// Capturing a snapshot: Session.Change stores the pre-image of every file a
// tool names and makes it durable before the tool may write; then it records
// the after state of each file by its hash (no object: undo keeps the
// current content when it runs, and that is what redo puts back) and
// appends one change line. A required pre-image that cannot be captured
// refuses the edit before the tool runs.

// Change is a file-tool call in progress, given to the function that
// Session.Change runs. The session's file tools take turns: until that
// function returns, other changes, undo and redo of the session wait.
type Change struct {
	s       *Session
	tool    string
	call    string
	files   []changes.FileChange
	skipped []string // paths whose pre-image was not captured
	on      bool     // snapshots on: Commit records a change line
	maxFile int64
	cfg     SnapshotsConfig
	objs    *objects.Store // nil when the store cannot be used
	fsys    vfs.FS         // the workspace's files
	once    sync.Once
	doneFS  func()
	endCall func()  // gives back the workspace call lock (calls_lock.go)
	unit    *inUnit // the unit of pending calls it joins (overlap.go)
}

// Change runs tool's change of the files paths (workspace-relative or
// absolute inside it) as a transaction: each file's pre-image is captured
// durably, fn changes the files (and may name its item, Change.SetCall),
// and when fn returns nil one change line records each file's after state,
// synced; an error or panic of fn records nothing and is passed on. The
// session's other file tools, undo, redo and Close wait for fn, which must
// not call them. With snapshots off nothing is recorded; a file that
// snapshots.required covers, or whose pre-image cannot be captured, is
// then refused with a *RequiredError before fn runs.
func (s *Session) Change(ctx context.Context, tool string, paths []string, fn func(*Change) error) (*ToolAnswer, error) {
	c, err := s.beginChange(ctx, tool, paths)
	if err != nil {
		return nil, err
	}
	c.unit = s.unitBeginOrSay(ctx, overlap.Scope{Paths: c.Paths()})
	ended := false
	defer func() {
		if !ended { // fn panicked
			c.release()
		}
	}()
	err = fn(c)
	ended = true
	if err != nil {
		c.release()
		return nil, err
	}
	return c.commit(ctx)
}

// RequiredError refuses an edit whose required pre-images could not be captured.
type RequiredError = snapshot.RequiredError

// requiredFile is one file of a RequiredError and why it was not captured.
type requiredFile = snapshot.RequiredFile

// beginChange captures the pre-image of each of paths before tool changes
// them (Session.Change). It holds the session's busy lock (shared) and the
// undo stack's lock until commit or release.
func (s *Session) beginChange(ctx context.Context, tool string, paths []string) (*Change, error) {
	if !labelRE.MatchString(tool) {
		return nil, fmt.Errorf("%w: tool name %q", ErrBadInput, tool)
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%w: a change names no files", ErrBadInput)
	}
	var rels []string
	seen := map[string]bool{}
	for _, p := range paths {
		rel, err := s.ws.relPath(p)
		if err != nil {
			return nil, err
		}
		if !seen[rel] {
			seen[rel] = true
			rels = append(rels, rel)
		}
	}
	cfg, err := s.config()
	if err != nil {
		return nil, err
	}
	sc := cfg.Snapshots
	call, err := s.callFor("")
	if err != nil {
		return nil, err
	}
	s.busy.RLock()
	if s.isClosed() {
		s.busy.RUnlock()
		return nil, fmt.Errorf("engine: session %s is closed", s.ID())
	}
	endCall, err := s.beginCall(ctx)
	if err != nil {
		s.busy.RUnlock()
		return nil, err
	}
	fsys, doneFS, err := s.ws.files()
	if err != nil {
		endCall()
		s.busy.RUnlock()
		return nil, err
	}
	s.snaps.mu.Lock()
	c := &Change{s: s, tool: tool, call: call, fsys: fsys, doneFS: doneFS, endCall: endCall, cfg: sc, maxFile: sc.MaxFileBytes}
	if err := s.payCancels(); err != nil {
		c.release()
		return nil, err
	}
	pre := s.newPreImages(ctx, sc, false)
	c.on, c.objs = pre.On, pre.Objs
	for _, rel := range rels {
		if err := ctx.Err(); err != nil {
			c.release()
			return nil, err
		}
		f := pre.Capture(ctx, fsys, rel)
		c.files = append(c.files, f)
	}
	if err := pre.refuse(ctx, tool); err != nil {
		c.release()
		return nil, err
	}
	c.skipped = pre.Skipped
	return c, nil
}

// SetCall names the item the change belongs to ("call"): a tool_call or
// user item of the session (ToolOptions.Call says more). Until it is
// called, the change belongs to the user prompt that began the turn.
func (c *Change) SetCall(item string) error {
	call, err := c.s.callFor(item)
	if err != nil {
		return err
	}
	c.call = call
	return nil
}

// Paths is the workspace-relative names of the change's files.
func (c *Change) Paths() []string {
	out := make([]string, len(c.files))
	for i, f := range c.files {
		out[i] = f.Path
	}
	return out
}

// release ends the change, recording nothing if it was not committed, and
// gives up its locks. Only its first call does anything.
func (c *Change) release() {
	c.once.Do(func() {
		c.doneFS()
		c.s.snaps.mu.Unlock()
		c.endCall()
		c.s.busy.RUnlock()
	})
}

// commit records the after states by hash and appends the change line (synced),
// discarding the undone branch and dropping the oldest snapshots over the
// limits, then releases the change. The answer names the snapshot (nil
// when none was taken) and the files whose pre-image was skipped.
func (c *Change) commit(ctx context.Context) (*ToolAnswer, error) {
	s := c.s
	defer c.release()
	ans := &ToolAnswer{Session: s.ID(), Files: []string{}, Skipped: []string{}}
	for _, f := range c.files {
		ans.Files = append(ans.Files, s.ws.absPath(f.Path))
	}
	for _, p := range c.skipped {
		ans.Skipped = append(ans.Skipped, s.ws.absPath(p))
	}
	if !c.on {
		return ans, nil
	}
	if c.objs == nil {
		s.notice("no snapshot was taken: the snapshot store cannot be written")
		return ans, nil
	}
	for i := range c.files {
		c.files[i].After, _ = fstate.Capture(ctx, c.fsys, fstate.HashSink, c.files[i].Path, c.maxFile)
	}
	st := &s.snaps
	rec, lines, live := st.NewChange(mkTime(s.ws.s.Now()), c.tool, c.call, s.newestItem(), c.files, c.cfg.Limits())
	if err := s.writeChanges(synced, lines...); err != nil {
		return nil, fmt.Errorf("engine: the %s tool changed %s, but its change record was not written: %w",
			c.tool, strings.Join(c.Paths(), ", "), err)
	}
	st.Committed(rec, live)
	ans.Snapshot = &rec.ID
	if c.unit != nil {
		fs := make([]changes.FileChange, len(c.files))
		for i, f := range c.files {
			fs[i] = changes.FileChange{Path: f.Path, Before: f.Before}
		}
		s.unitEnded(c.unit, nil, nil, &hookmark.Change{V: 1, Tool: c.tool, Call: c.call, At: rec.At, Files: fs}, rec.ID)
	}
	return ans, nil
}
