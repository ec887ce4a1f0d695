package changes

import (
	"errors"
	"fmt"
	"maps"
	"sync"
	"syscall"

	"cairn/engine/internal/fstate"
	"cairn/internal/vfs"
)

// Files opens the workspace's files for a folder sync: the file system
// and a function that gives it back.
type Files func() (vfs.FS, func(), error)

// Syncs makes a session's file-tool changes durable. After a tool puts
// its file in place, the folder it changed is synced either in the
// background or at the end of the turn:
//
//   - A tool whose new content is in its change line (Entry.Redoable)
//     leaves the sync to the end of the turn (Later with deferred set):
//     its folder joins the deferred set, synced once with the others by
//     the next wait (the end of the turn, or any line that waits). A
//     crash before that may lose the change while later lines are
//     durable; the next owner makes it again from its line
//     (Stack.RedoPlan).
//   - Any other tool's folder is synced by a goroutine, in order with the
//     syncs started before it, together with the deferred folders. The
//     next file tool's change line is written and synced meanwhile (Write,
//     Ahead), and that tool waits for them before it changes its own
//     file. So a crash loses at most the two newest such changes, the
//     older only with the newer, and their lines, durable before their
//     files changed, name them: the next owner finds their files as
//     before and cancels them (Stack.Prev).
//
// Every other line of the changes journal waits for all of them before it
// is written (Write, Synced), and so does the end of a turn, which reports
// a failure and then writes a close line: the changes before it need no
// redo. Its mutex is a leaf and guards every field.
type Syncs struct {
	mu       sync.Mutex
	last     chan struct{} // closed when the newest background sync is over
	err      error         // the first failure not yet reported
	deferred fstate.DirSet // folders whose sync waits for the next wait
	files    Files         // the files of the deferred folders
	open     int           // file tools between their change line and Later
	epoch    int           // how many times Later was called
	// broken: a folder sync failed in this run. A change before it may
	// not be durable, and no retry can say it is (Sync): no close line may
	// say otherwise (Unsure), and the next owner settles them.
	broken bool
}

// Begin says a file tool is about to write its change line; End says it
// has called Later, or will not.
func (f *Syncs) Begin() {
	f.mu.Lock()
	f.open++
	f.mu.Unlock()
}

// End: see Begin.
func (f *Syncs) End() {
	f.mu.Lock()
	f.open--
	f.mu.Unlock()
}

// Later makes dirs of files durable after removing leftover (a replaced
// file; "" for none): at the next wait when deferred, else in the
// background now, in order with the syncs started before, the deferred
// folders with them. A leftover a crash keeps is a temp file beside its
// name, as an interrupted write leaves.
func (f *Syncs) Later(files Files, dirs fstate.DirSet, leftover string, deferred bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.epoch++
	if deferred {
		if f.deferred == nil {
			f.deferred = fstate.DirSet{}
		}
		maps.Copy(f.deferred, dirs)
		f.files, dirs = files, nil
	} else {
		if dirs == nil {
			dirs = fstate.DirSet{}
		}
		maps.Copy(dirs, f.deferred)
		f.deferred = nil
	}
	f.startLocked(files, dirs, leftover)
}

// startLocked starts the background job that removes leftover and syncs
// dirs, after the jobs started before it. f.mu is held.
func (f *Syncs) startLocked(files Files, dirs fstate.DirSet, leftover string) {
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
		if err := SyncFolders(files, dirs, leftover); err != nil {
			f.mu.Lock()
			if f.err == nil {
				f.err = err
			}
			f.broken = true
			f.mu.Unlock()
		}
	}()
}

// SyncFolders removes leftover and syncs dirs. A folder gone since (the
// user removed it) has nothing left to make durable.
func SyncFolders(files Files, dirs fstate.DirSet, leftover string) error {
	if leftover != "" {
		defer vfs.ReleaseTemp(leftover) // removed or not, this process is done with it
	}
	fsys, done, err := files()
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

// Flush starts the sync of the deferred folders, in the background, and
// returns the epoch it covers (Settled) and whether there were any.
func (f *Syncs) Flush() (epoch int, flushed bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.deferred) > 0 {
		f.startLocked(f.files, f.deferred, "")
		f.deferred, flushed = nil, true
	}
	return f.epoch, flushed
}

// Settled reports whether every file change up to epoch was made durable
// by the syncs waited for since Flush returned it, and no file tool has
// begun since: a close line written now says nothing false.
func (f *Syncs) Settled(epoch int) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.epoch == epoch && f.open == 0 && len(f.deferred) == 0 && f.err == nil && !f.broken
}

// Unsure reports whether a folder sync failed in this run: a close line
// would say a change was made that may not be durable.
func (f *Syncs) Unsure() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.broken
}

// WaitStarted waits for the background syncs started so far, leaving the
// deferred folders to the next wait.
func (f *Syncs) WaitStarted() {
	f.mu.Lock()
	last := f.last
	f.mu.Unlock()
	if last != nil {
		<-last
	}
}

// Wait syncs the deferred folders and waits for every background sync
// started so far.
func (f *Syncs) Wait() {
	f.Flush()
	f.WaitStarted()
}

// Known returns the first failure not yet reported among the background
// syncs over so far, without waiting for those under way.
func (f *Syncs) Known() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// FailedStarted waits for the background syncs started so far (not the
// deferred folders) and returns the first failure not yet reported.
func (f *Syncs) FailedStarted() error {
	f.WaitStarted()
	return f.Known()
}

// Failed waits for every file change to be durable (Wait) and returns the
// first failure not yet reported, leaving it to Sync to report.
func (f *Syncs) Failed() error {
	f.Wait()
	return f.Known()
}

// Sync waits for every file change to be durable (Wait) and returns the
// first failure since the last call: a failed folder sync is reported
// once, never retried as if it had worked.
func (f *Syncs) Sync() error {
	f.Wait()
	f.mu.Lock()
	defer f.mu.Unlock()
	err := f.err
	f.err = nil
	return err
}
