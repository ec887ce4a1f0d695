package engine

import (
	"errors"
	"fmt"
	"sync"
	"syscall"

	"cairn/engine/internal/fstate"
	"cairn/internal/vfs"
)

// Writing the user's files is package fstate's (atomic replace, remove,
// the folders to sync); this file holds the file tools' background folder
// syncs, which belong to a session.

// fileSyncs makes a session's file-tool changes durable in the
// background: after a tool puts its file in place, a goroutine removes the
// replaced file (fstate.Staged.Exchange) and syncs the folder, in order with the
// syncs started before it. The next file tool's change line is written and
// synced meanwhile (appendChangeAhead), and that tool waits for them before
// it changes its own file (toolRun.waitPrevious); every other line of the
// changes journal waits for them before it is written (appendChanges). So a
// crash loses at most the two newest changes, the older only with the
// newer, and their lines, durable before their files changed, name them:
// the next owner finds their files as before and cancels them
// (loadChanges, changes.Stack.Prev). The end of a turn waits for them too,
// and reports a failure.
type fileSyncs struct {
	mu   sync.Mutex
	last chan struct{} // closed when the newest background sync is over
	err  error         // the first failure not yet reported
}

// later starts the background sync of dirs of workspace w, after removing
// leftover (a replaced file; "" for none). A leftover a crash keeps is a
// temp file beside its name, as an interrupted write leaves.
func (f *fileSyncs) later(w *Workspace, dirs fstate.DirSet, leftover string) {
	f.mu.Lock()
	prev := f.last
	done := make(chan struct{})
	f.last = done
	f.mu.Unlock()
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

// wait waits for the background syncs started so far.
func (f *fileSyncs) wait() {
	f.mu.Lock()
	last := f.last
	f.mu.Unlock()
	if last != nil {
		<-last
	}
}

// known returns the first failure not yet reported among the background
// syncs over so far, without waiting for those under way.
func (f *fileSyncs) known() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// failed waits for the background syncs and returns the first failure not
// yet reported, leaving it to sync to report.
func (f *fileSyncs) failed() error {
	f.wait()
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// sync waits for the background syncs and returns the first failure since
// the last call: a failed folder sync is reported once, never retried as
// if it had worked.
func (f *fileSyncs) sync() error {
	f.wait()
	f.mu.Lock()
	defer f.mu.Unlock()
	err := f.err
	f.err = nil
	return err
}
