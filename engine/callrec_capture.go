package engine

import (
	"context"
	"path"
	"time"

	"cairn/engine/internal/callrec"
	"cairn/engine/internal/changes"
	"cairn/engine/internal/scope"
	"cairn/objects"
)

// The session's side of recording a call (callrec.go runs it): the start
// and off marks, the capture of a call's scope over the session's stat
// cache, and the store budget's trim. The mechanisms are package
// callrec's.

// recordMarks is the start or off line a call writes before its own
// lines (callrec.Marks).
func (s *Session) recordMarks(on bool) []any {
	any := s.snaps.Seq() != 0 || s.snaps.recs.Seq != 0
	return callrec.Marks(on, s.snaps.recs.Mark, any, mkTime(s.ws.s.Now()))
}

// fileToolMarks writes, for a file-tool call about to run (under
// snaps.mu), the off line when change recording is off and the start line
// when it comes back on, as recordCall does for other calls: a file revert
// cannot reach back across a time recording was off, whichever calls ran
// in it. A session that never had recording off writes none (its records
// reach back to its first change line). Lazy and best effort: the lines
// ride with the change line's sync, or Close's.
func (s *Session) fileToolMarks(ctx context.Context) {
	cfg, err := s.config()
	if err != nil {
		return
	}
	on := cfg.Storage.RecordingEnabled && !s.opts.NoSnapshots
	if on && s.snaps.recs.Mark != changes.KindOff {
		return
	}
	lines := s.recordMarks(on)
	if len(lines) == 0 || s.snapReady(ctx) != nil {
		return
	}
	if err := s.writeChanges(lazy, lines...); err != nil {
		return
	}
	s.wroteMarks(lines)
}

// wroteMarks folds the start or off lines just written.
func (s *Session) wroteMarks(lines []any) { callrec.WroteMarks(&s.snaps.recs, lines) }

// tellOnce shows msg once per session for reason why (under snaps.mu).
func (s *Session) tellOnce(why, msg string) {
	if s.calls.TellOnce(why) {
		s.notice(msg)
	}
}

// statCacheName is the workspace's stat cache file, derived data kept
// between processes (callrec.State, engine/internal/scope/cache.go).
const statCacheFile = "statcache"

func statCacheName(dir string) string { return path.Join(dir, statCacheFile) }

// cacheTrust is how long a session trusts the stat cache it holds in
// memory: a day short of TrashDays, as prune removes unnamed objects only
// this session's memory may name once TrashDays old (walk_refs.go).
const cacheTrust = trashGrace - 24*time.Hour

// callRec is a session's state for recording calls, guarded by snaps.mu.
type callRec = callrec.State

// callCapture is the capture of one call's scope (callrec.Capture): sc,
// with the session's stat cache, limits and object store.
type callCapture struct {
	s    *Session
	sc   callScope
	cfg  StorageConfig
	objs *objects.Store
	tree *scope.Tree // the walk before the call
	// afterTree is the walk after it, once after made it.
	afterTree *scope.Tree
}

func (c *callCapture) capture() *callrec.Capture {
	s := c.s
	return &callrec.Capture{
		State: &s.calls, FS: s.ws.s.fsys, CacheName: statCacheName(s.ws.dir), Trust: cacheTrust,
		Now: s.ws.s.now(), Root: s.ws.path, StateDir: s.ws.s.home, Watch: s.opts.Watch, Notice: s.noticef,
		Objs: c.objs, Read: s.ws.s.walkRead, Scope: callrec.Scope{Kind: c.sc.Kind, Paths: c.sc.Paths}, Tree: c.tree,
		Limits: callrec.Limits{MaxFiles: c.cfg.MaxFiles, MaxBytes: int64(c.cfg.MaxBytesMB) << 20, MaxFileBytes: int64(c.cfg.MaxFileBytesMB) << 20},
	}
}

// walk walks the call's scope (callrec.Capture.Walk).
func (c *callCapture) walk(ctx context.Context) (*scope.Tree, error) { return c.capture().Walk(ctx) }

// before walks the scope, storing every file it reads
// (callrec.Capture.Before); a named hard link widens it to the workspace.
func (c *callCapture) before(ctx context.Context) error {
	k := c.capture()
	err := k.Before(ctx)
	if k.Scope.Kind != c.sc.Kind {
		c.sc = callScope{Kind: k.Scope.Kind, Paths: c.sc.Paths}
	}
	c.tree = k.Tree
	return err
}

// after is the files the call changed (callrec.Capture.After).
func (c *callCapture) after(ctx context.Context) ([]changes.FileChange, error) {
	k := c.capture()
	files, err := k.After(ctx)
	c.afterTree = k.AfterTree
	return files, err
}

// trimStore drops the oldest records of the workspace while their bytes
// are over max_bytes_mb, never the record just made (keep), and returns
// the ids it dropped (callrec.Trim). Best effort: a failure is a notice,
// and the next record trims again.
func (s *Session) trimStore(ctx context.Context, cfg StorageConfig, keep string) []string {
	if s.calls.Others == nil {
		s.calls.Others = map[string]callrec.Others{}
	}
	ss := callrec.Sessions{FS: s.ws.s.fsys, Dir: s.ws.dir, Valid: validSessionID}
	all, err := ss.LiveRecords(ctx, s.st.ID, s.snaps.recs.Live, s.calls.Others)
	if err != nil {
		s.noticef("the change store could not be measured: %v", err)
		return nil
	}
	drops, order, dropped := callrec.Trim(all, int64(cfg.MaxBytesMB)<<20, keep)
	own := func(ids []string) error {
		err := s.writeChanges(synced, changes.ListLine{V: 1, Kind: changes.KindDrop, IDs: ids, At: mkTime(s.ws.s.Now()), Why: changes.WhyStoreBudget})
		if err == nil {
			s.snaps.recs.Drop(ids)
		}
		return err
	}
	return ss.Drop(s.st.ID, drops, order, dropped, mkTime(s.ws.s.Now()), own, s.noticef)
}

// dropsName is the workspace's drops.jsonl (internal/callrec/budget.go).
const dropsFile = callrec.DropsFile

func dropsName(dir string) string { return callrec.DropsName(dir) }

// readDrops is the records drops.jsonl drops, by session.
func (w *Workspace) readDrops() (map[string]map[string]bool, error) {
	return callrec.ReadDrops(w.s.fsys, w.dir)
}
