package engine

import (
	"cairn/engine/internal/convlog"
	"cairn/internal/vfs"
	"path"
)

// Closing a session: its work drained, its journals made durable, its
// parts closed and its ownership given up.

// Close makes the session durable and gives up ownership. The shell lines
// the session is running (Exec) are killed first, then waited for with
// every other call; their ends and outputs are kept.
func (s *Session) Close() error {
	s.closeContext()
	s.mu.Lock()
	s.stopRunning()
	s.mu.Unlock()
	s.closeWork() // cancelled and drained before the session is saved
	s.busy.Lock()
	defer s.busy.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	discarded := s.discardBare()
	err := s.commitDurable()
	if err == nil {
		s.keepIndex() // a prompt hook's (hook_prompt.go)
	}
	s.st.DropLater() // an index a prompt hook read it from
	if n := s.kept.Lost(); n > 0 && s.unrecorded != nil && !s.readOnly {
		s.noticef("%s of this session kept in memory only may be lost: %v", convlog.CountText(n), s.unrecorded)
	}
	s.closed = true
	if s.items != nil {
		if cerr := s.items.Close(); err == nil && s.unrecorded == nil {
			err = cerr
		}
	}
	if s.audit != nil {
		s.audit.Close()
	}
	if cerr := s.snaps.close(mkTime(s.ws.s.Now()), s.files.Unsure()); err == nil {
		err = cerr
	}
	s.closeShell()
	s.calls.Close(s.ws.s.fsys, statCacheName(s.ws.dir))
	s.closeTasks()
	if s.lock != nil {
		release := s.ws.release
		if s.recordStale {
			release = s.ws.releaseKeepingHint // a listing settles the record
		}
		if rerr := release(s.st.ID, s.lock); err == nil {
			err = rerr
		}
		if discarded {
			s.ws.s.fsys.Remove(lockName(s.ws.dir, s.st.ID))
		}
	}
	return err
}

// discardBare removes, at Close, a session this process created that still
// holds only its session line: it was made for something that then wrote
// nothing (a file tool that refused). A session that never held anything is
// not listed and prints no resume line. It reports whether it removed it.
func (s *Session) discardBare() bool {
	if s.bareSize == 0 || s.items == nil || s.items.Size() != s.bareSize {
		return false
	}
	w, id, fsys := s.ws, s.st.ID, s.ws.s.fsys
	for _, n := range []string{changesName(w.dir, id), auditName(w.dir, id), shellName(w.dir, id), outputDir(w.dir, id), taskDir(w.dir, id)} {
		if _, err := fsys.Lstat(n); !vfs.IsNotExist(err) {
			return false
		}
	}
	if err := fsys.Remove(itemsName(w.dir, id)); err != nil {
		return false
	}
	s.items.Close()
	s.items, s.recorded = nil, false
	fsys.Remove(recordName(w.dir, id))
	fsys.SyncDir(path.Dir(itemsName(w.dir, id))) // best effort: a ghost a crash brings back is named by fsck
	return true
}
