package engine

import (
	"fmt"

	"cairn/engine/internal/changes"

	"cairn/journal"
	"cairn/objects"
)

// Writing the changes journal: one write, with a named durability mode
// saying when its lines may go out and whether they are synced; an owed
// abort line first; a close line at a clean Close.

// durability is how a write to the changes journal waits and syncs.
type durability int

const (
	// synced lines are appended and synced once the file changes before
	// them are durable (fileSyncs.failed): a failure of those syncs
	// refuses them, as no line may follow a change that may be lost until
	// the end of the turn has reported it.
	synced durability = iota
	// ahead is a file tool's change line, appended and synced while the
	// folder syncs of the file changes before it may still be under way:
	// the tool waits for them before it changes its own file
	// (toolRun.waitPrevious), so a crash leaves at most the two newest
	// changes unmade, and recovery judges them together (loadChanges). A
	// failure of those syncs already known refuses the line.
	ahead
	// lazy lines are appended without a sync: they ride with the
	// journal's next sync, or Close's. No lines is no write.
	lazy
	// closedSynced is synced ending with the close line Close would
	// write, under the one sync: for a change whose files were all made
	// before its line was written (SettleChange of a file edit or a shell
	// command) in a session that runs nothing else (SessionOptions.Brief),
	// and for recovery once the changes it made again are durable. Close
	// then writes and syncs nothing more to the journal. A crash that
	// loses the close line loses no more than a kill does (the next open
	// checks the newest change, Workspace.unmade). No close line is added
	// while a cancellation is owed or a folder sync failed.
	closedSynced
	// closedLazy is a close line alone, without a sync, written only to a
	// journal already open whose last line is not a close line, with no
	// abort or cancellation owed (Session.settleChanges): it rides with
	// the next sync; lost in a crash, it costs the next owner a look at
	// the files of the newest changes.
	closedLazy
)

// writeChanges appends lines to the changes journal in mode.
func (s *Session) writeChanges(mode durability, lines ...any) error {
	return s.writeChangesIf(mode, nil, lines...)
}

// writeChangesIf is writeChanges when ok, asked under the journal's lock,
// still says so (nil is yes); when it says no, nothing is written.
func (s *Session) writeChangesIf(mode durability, ok func() bool, lines ...any) error {
	switch mode {
	case synced, closedSynced:
		if err := s.files.failed(); err != nil {
			return err
		}
	case ahead:
		if err := s.files.known(); err != nil {
			return err
		}
	case lazy:
		if len(lines) == 0 {
			return nil
		}
	}
	st := &s.snaps
	st.wmu.Lock()
	defer st.wmu.Unlock()
	if mode == closedLazy && (st.closed || st.w == nil || st.ended || len(st.owed) > 0 || len(st.cancels) > 0) {
		return nil
	}
	if ok != nil && !ok() {
		return nil
	}
	return s.writeChangesLocked(mode, lines)
}

func (s *Session) writeChangesLocked(mode durability, lines []any) error {
	sync := mode != lazy && mode != closedLazy
	closing := mode == closedSynced || mode == closedLazy
	st := &s.snaps
	if st.closed {
		return fmt.Errorf("engine: session %s is closed", s.st.id)
	}
	if st.w == nil {
		w, _, err := journal.OpenWriter(s.ws.s.fsys, changesName(s.ws.dir, s.st.id), journal.Options{Sync: journal.SyncManual, Now: s.ws.s.now})
		if err != nil {
			return fmt.Errorf("engine: open changes journal: %w", err)
		}
		st.w = w
	}
	if len(st.owed) > 0 {
		at := mkTime(s.ws.s.Now())
		aborts := make([]any, 0, len(st.owed)+len(lines))
		for _, id := range st.owed {
			aborts = append(aborts, changes.EventLine{V: 1, Kind: changes.KindAbort, ID: id, At: at})
		}
		lines = append(aborts, lines...)
	}
	if closing && len(st.cancels) == 0 && !s.files.unsure() {
		lines = append(lines, changes.CloseLine{V: 1, Kind: changes.KindClose, At: mkTime(s.ws.s.Now())})
	} else {
		closing = false
	}
	st.ended = false
	err := func() error {
		for _, l := range lines {
			if err := st.w.Append(l); err != nil {
				return fmt.Errorf("engine: write changes journal: %w", err)
			}
		}
		if !sync {
			return nil
		}
		if err := st.w.Sync(); err != nil {
			return fmt.Errorf("engine: sync changes journal: %w", err)
		}
		return nil
	}()
	if err != nil {
		// A broken writer is reopened by the next call, which cuts a torn
		// tail; a failed fsync is never taken as done.
		st.w.Close()
		st.w = nil
		return err
	}
	st.owed, st.ended = nil, closing
	return nil
}

// close closes the changes journal (Session.Close calls it).
// A close line ends what a session wrote to its changes journal in one
// run, so the next owner knows every file change before it was made; none
// is written when unsure says a folder sync failed (fileSyncs.unsure).
// What fails is returned: without the close line the next owner checks
// the newest change itself, and lines appended lazily that were not synced
// may be lost (the next owner redraws what its files show).
func (st *snapStack) close(now Time, unsure bool) error {
	st.wmu.Lock()
	defer st.wmu.Unlock()
	st.closed = true
	if st.w == nil {
		return nil
	}
	w := st.w
	st.w = nil
	var err error
	// No close line while a cancellation is owed: the next owner
	// finishes the step the journal says was made, as the stack
	// said it was (changes_cancel.go).
	// Nor when the last line written is a close line already
	// (closedSynced, closedLazy): then there is nothing to sync either.
	if len(st.owed) == 0 && len(st.cancels) == 0 && !st.ended && !unsure {
		if aerr := w.Append(changes.CloseLine{V: 1, Kind: changes.KindClose, At: now}); aerr != nil {
			err = fmt.Errorf("engine: write the changes journal's close line: %w", aerr)
		}
	}
	if serr := w.Sync(); serr != nil && err == nil {
		err = fmt.Errorf("engine: sync the changes journal at close: %w", serr)
	}
	if cerr := w.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("engine: close the changes journal: %w", cerr)
	}
	return err
}

// objects is the workspace's object store, one per session so its folder
// checks are made once.
func (s *Session) snapObjects() *objects.Store {
	if s.snaps.objs == nil {
		s.snaps.objs = s.ws.objects()
	}
	return s.snaps.objs
}
