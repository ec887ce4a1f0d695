package engine

import (
	"context"

	"cairn/engine/internal/revert"
	"cairn/internal/vfs"
)

// Unrevert of the file half, and the settling on open of a file revert or
// unrevert its owner did not finish (revert_files.go draws the whole;
// package revert does the work).

// unrevertFiles puts back the files of the stack of file reverts since the
// last new work: nil when there is none. The caller holds busy and the
// undo stack's lock.
func (s *Session) unrevertFiles(ctx context.Context) (*FileRevert, error) {
	tl, err := s.ws.timeline(s.st.ID)
	if err != nil {
		return nil, err
	}
	if !tl.Pending() {
		return nil, nil
	}
	if s.readOnly {
		return nil, refusedf("session %s is open read-only: its files cannot be unreverted", s.ID())
	}
	if err := s.payCancels(); err != nil {
		return nil, err
	}
	lock, err := s.lockCallsAlone("unrevert")
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	fsys, done, err := s.ws.files()
	if err != nil {
		return nil, err
	}
	defer done()
	return s.revertRun(fsys).Unrevert(ctx, tl.Stack)
}

// settleReverts settles, on open, a file revert or unrevert whose owner
// stopped before its end line: an unrevert is finished (each file still as
// the revert left it gets what was kept); a revert is worked out from its
// files: adopted with a notice when every file holds what it put, else
// left pending and unfinished, naming the files it did not reach. Best
// effort: what cannot be written now is settled by the next open.
func (s *Session) settleReverts(ctx context.Context) {
	tl, err := s.ws.timeline(s.st.ID)
	if err != nil {
		return
	}
	open, dirs := revert.Unsettled(tl)
	if !open {
		return
	}
	fsys, done, err := s.ws.files()
	if err != nil {
		return
	}
	defer done()
	s.ws.sweepWorkspace(dirs) // the temp files of a replace it stopped in
	if msg := s.revertRun(fsys).Settle(ctx, tl); msg != "" {
		s.notice(msg)
	}
}

// revertRun is a revert.Run over the session and fsys, the workspace's
// files.
func (s *Session) revertRun(fsys vfs.FS) *revert.Run {
	return &revert.Run{Host: sessionHost{s: s}, FS: fsys, Objs: s.snapObjects(), Applier: &s.apply}
}

// pendingQuick reports whether session id has file reverts to unrevert,
// from its journal (an error reads as none).
func (w *Workspace) pendingQuick(id string) bool {
	ok, _ := w.pendingRevert(context.Background(), id)
	return ok
}
