package engine

import (
	"errors"
	"fmt"
	"maps"
	"sync"
	"syscall"

	"cairn/engine/internal/fstate"
	"cairn/internal/vfs"
)

// Writing the user's files is package fstate's (atomic replace, remove,
// the folders to sync); this file holds the file tools' background folder
// syncs, which belong to a session.

// fileSyncs makes a session's file-tool changes durable. After a tool
// puts its file in place, the folder it changed is synced either in the
// background or at the end of the turn:
//
//   - A tool whose new content is in its change line (changes.Entry.Redoable)
//     leaves the sync to the end of the turn (later with deferred set): its
//     folder joins the deferred set, synced once with the others by the
//     next wait (Session.Commit, or any line that waits). A crash before
//     that may lose the change while later lines are durable; the next
//     owner makes it again from its line (changes.Stack.RedoPlan).
//   - Any other tool's folder is synced by a goroutine, in order with the
//     syncs started before it, together with the deferred folders. The
//     next file tool's change line is written and synced meanwhile
//     (writeChanges, ahead), and that tool waits for them before it changes
//     its own file (toolRun.waitPrevious). So a crash loses at most the
//     two newest such changes, the older only with the newer, and their
//     lines, durable before their files changed, name them: the next
//     owner finds their files as before and cancels them (loadChanges,
//     changes.Stack.Prev).
//
// Every other line of the changes journal waits for all of them before it
// is written (writeChanges, synced), and so does the end of a turn, which
// reports a failure and then writes a close line (Session.settleChanges):
// the changes before it need no redo.
type fileSyncs struct {
	mu       sync.Mutex
	last     chan struct{} // closed when the newest background sync is over
	err      error         // the first failure not yet reported
	deferred fstate.DirSet // folders whose sync waits for the next wait
	w        *Workspace    // the workspace of the deferred folders
	open     int           // file tools between their change line and later
	epoch    int           // how many times later was called
	// broken: a folder sync failed in this run. A change before it may
	// not be durable, and no retry can say it is (sync): no close line
	// may say otherwise (unsure), and the next owner settles them
	// (Session.settleUnsettled).
	broken bool
}

// begin says a file tool is about to write its change line; end says it
// has called later, or will not.
func (f *fileSyncs) begin() {
	f.mu.Lock()
	f.open++
	f.mu.Unlock()
}

func (f *fileSyncs) end() {
	f.mu.Lock()
	f.open--
	f.mu.Unlock()
}

// later makes dirs of workspace w durable after removing leftover (a
// replaced file; "" for none): at the next wait when deferred, else in the
// background now, in order with the syncs started before, the deferred
// folders with them. A leftover a crash keeps is a temp file beside its
// name, as an interrupted write leaves.
func (f *fileSyncs) later(w *Workspace, dirs fstate.DirSet, leftover string, deferred bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.epoch++
	if deferred {
		if f.deferred == nil {
			f.deferred = fstate.DirSet{}
		}
		maps.Copy(f.deferred, dirs)
		f.w, dirs = w, nil
	} else {
		if dirs == nil {
			dirs = fstate.DirSet{}
		}
		maps.Copy(dirs, f.deferred)
		f.deferred = nil
	}
	f.startLocked(w, dirs, leftover)
}

// startLocked starts the background job that removes leftover and syncs
// dirs, after the jobs started before it. f.mu is held.
func (f *fileSyncs) startLocked(w *Workspace, dirs fstate.DirSet, leftover string) {
	if len(dirs) == 0 && leftover == "" {
		return
	}
	prev := f.last
	done := make(chan struct{})
	f.last = done
	go func() {
		defer close(done)
		if prev != nil {
			<-prev
		}
		if err := syncWorkspace(w, dirs, leftover); err != nil {
			f.mu.Lock()
			if f.err == nil {
				f.err = err
			}
			f.broken = true
			f.mu.Unlock()
		}
	}()
}

// syncWorkspace removes leftover and syncs dirs. A folder gone since (the
// user removed it) has nothing left to make durable.
func syncWorkspace(w *Workspace, dirs fstate.DirSet, leftover string) error {
	if leftover != "" {
		defer vfs.ReleaseTemp(leftover) // removed or not, this process is done with it
	}
	fsys, done, err := w.files()
	if err != nil {
		return err
	}
	defer done()
	if leftover != "" {
		if err := fsys.Remove(leftover); err != nil && !vfs.IsNotExist(err) {
			return fmt.Errorf("engine: remove the replaced file %s: %w", leftover, err)
		}
	}
	for dir := range dirs {
		if err := fsys.SyncDir(dir); err != nil && !vfs.IsNotExist(err) && !errors.Is(err, syscall.ENOTDIR) {
			return fmt.Errorf("engine: sync workspace folder %s: %w", dir, err)
		}
	}
	return nil
}

// flush starts the sync of the deferred folders, in the background, and
// returns the epoch it covers (settled) and whether there were any.
func (f *fileSyncs) flush() (epoch int, flushed bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.deferred) > 0 {
		f.startLocked(f.w, f.deferred, "")
		f.deferred, flushed = nil, true
	}
	return f.epoch, flushed
}

// settled reports whether every file change up to epoch was made durable
// by the syncs waited for since flush returned it, and no file tool has
// begun since: a close line written now says nothing false.
func (f *fileSyncs) settled(epoch int) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.epoch == epoch && f.open == 0 && len(f.deferred) == 0 && f.err == nil && !f.broken
}

// unsure reports whether a folder sync failed in this run (broken): a
// close line would say a change was made that may not be durable.
func (f *fileSyncs) unsure() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.broken
}

// waitStarted waits for the background syncs started so far, leaving the
// deferred folders to the next wait.
func (f *fileSyncs) waitStarted() {
	f.mu.Lock()
	last := f.last
	f.mu.Unlock()
	if last != nil {
		<-last
	}
}

// wait syncs the deferred folders and waits for every background sync
// started so far.
func (f *fileSyncs) wait() {
	f.flush()
	f.waitStarted()
}

// known returns the first failure not yet reported among the background
// syncs over so far, without waiting for those under way.
func (f *fileSyncs) known() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// failedStarted waits for the background syncs started so far (not the
// deferred folders) and returns the first failure not yet reported.
func (f *fileSyncs) failedStarted() error {
	f.waitStarted()
	return f.known()
}

// failed waits for every file change to be durable (wait) and returns the
// first failure not yet reported, leaving it to sync to report.
func (f *fileSyncs) failed() error {
	f.wait()
	return f.known()
}

// sync waits for every file change to be durable (wait) and returns the
// first failure since the last call: a failed folder sync is reported
// once, never retried as if it had worked.
func (f *fileSyncs) sync() error {
	f.wait()
	f.mu.Lock()
	defer f.mu.Unlock()
	err := f.err
	f.err = nil
	return err
}
