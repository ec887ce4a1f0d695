package journal

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"

	"cairn/internal/vfs"
)

// PollInterval is how often Follow looks for new lines when it cannot watch
// the file.
const PollInterval = 50 * time.Millisecond

// watchBackstop is how often Follow looks anyway while it watches, in case an
// event was lost.
const watchBackstop = time.Second

// realPather is an FS on the real disk (vfs.Disk), whose files fsnotify can
// watch.
type realPather interface {
	RealPath(name string) string
}

// Follow tails the journal name: it calls fn with each complete line from
// offset from on (see Scan; the slice is only valid during the call), then
// waits for more and calls fn with those, until ctx is done, when it returns
// nil. On the real disk (an FS with RealPath, like *vfs.Disk) it watches the
// file's folder with fsnotify; on any other FS it looks every PollInterval.
// Bad lines are skipped; a torn tail is read again once its line is complete.
//
// A file that does not exist yet is waited for, as new lines are (a trail
// is made by the first turn that ends). An error from fn ends Follow and is
// returned.
func Follow(ctx context.Context, fsys vfs.FS, name string, from int64, fn func(line []byte) error) error {
	// The waiter starts first, so a file made between a failed open and
	// the wait still wakes it.
	wake, stop := waiter(fsys, name)
	defer stop()
	var f vfs.File
	for {
		var err error
		if f, err = fsys.OpenFile(name, os.O_RDONLY, 0); err == nil {
			break
		}
		if !vfs.IsNotExist(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-wake:
		}
	}
	defer f.Close()

	off := from
	for {
		if err := ctx.Err(); err != nil {
			return nil
		}
		fi, err := f.Stat()
		if err != nil {
			return err
		}
		if fi.Size() < off {
			return fmt.Errorf("journal: follow %s: file shrank to %d bytes, below offset %d", name, fi.Size(), off)
		}
		if fi.Size() > off {
			st, err := scanAt(f, off, MaxLine, fn)
			off = st.End
			if err != nil {
				return err
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-wake:
		}
	}
}

// waiter returns a channel that receives when the journal may have grown,
// and a function that releases what it holds.
func waiter(fsys vfs.FS, name string) (<-chan struct{}, func()) {
	if rp, ok := fsys.(realPather); ok {
		if wake, stop, err := watch(rp.RealPath(name)); err == nil {
			return wake, stop
		}
		// No watcher (inotify limits, say): poll.
	}
	t := time.NewTicker(PollInterval)
	wake := make(chan struct{}, 1)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case <-t.C:
				select {
				case wake <- struct{}{}:
				default:
				}
			}
		}
	}()
	return wake, func() { t.Stop(); close(done) }
}

// watch watches the folder of the file at path p and signals on events for
// the file, and every watchBackstop.
func watch(p string) (<-chan struct{}, func(), error) {
	wt, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, nil, err
	}
	if err := wt.Add(filepath.Dir(p)); err != nil {
		wt.Close()
		return nil, nil, err
	}
	p = filepath.Clean(p)
	wake := make(chan struct{}, 1)
	done := make(chan struct{})
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		t := time.NewTicker(watchBackstop)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case ev, ok := <-wt.Events:
				if !ok {
					return
				}
				if filepath.Clean(ev.Name) != p {
					continue
				}
			case _, ok := <-wt.Errors:
				if !ok {
					return
				}
			case <-t.C:
			}
			select {
			case wake <- struct{}{}:
			default:
			}
		}
	}()
	return wake, func() { close(done); wt.Close(); <-exited }, nil
}
