package changes

import (
	"fmt"
	"sync"
	"time"

	"cairn/internal/timefmt"
	"cairn/internal/vfs"
	"cairn/journal"
)

// Durability is how a write to the changes journal waits and syncs.
type Durability int

const (
	// Synced lines are appended and synced once the file changes before
	// them are durable (Syncs.Failed): a failure of those syncs refuses
	// them, as no line may follow a change that may be lost until the end
	// of the turn has reported it.
	Synced Durability = iota
	// Ahead is a file tool's change line, appended and synced while the
	// folder syncs of the file changes before it may still be under way:
	// the tool waits for them before it changes its own file, so a crash
	// leaves at most the two newest changes unmade, and recovery judges
	// them together. A failure of those syncs already known refuses the
	// line.
	Ahead
	// Lazy lines are appended without a sync: they ride with the
	// journal's next sync, or Close's. No lines is no write.
	Lazy
	// ClosedSynced is Synced ending with the close line Close would
	// write, under the one sync: for a change whose files were all made
	// before its line was written, in a session that runs nothing else,
	// and for recovery once the changes it made again are durable. Close
	// then writes and syncs nothing more to the journal. A crash that
	// loses the close line loses no more than a kill does (the next open
	// checks the newest change). No close line is added while a
	// cancellation is owed or a folder sync failed.
	ClosedSynced
	// ClosedLazy is a close line alone, without a sync, written only to a
	// journal already open whose last line is not a close line, with no
	// abort or cancellation owed: it rides with the next sync; lost in a
	// crash, it costs the next owner a look at the files of the newest
	// changes.
	ClosedLazy
)

// Journal is where a Writer writes, given with each write: the journal
// file, the clock, the session it belongs to (named in errors) and the
// folder syncs of its file tools, which the modes wait for.
type Journal struct {
	FS      vfs.FS
	Name    string
	Now     func() time.Time
	Session string
	Syncs   *Syncs
}

// Writer is a session's one writer of its changes journal: the journal
// open for appending, the abort lines owed (changes whose abort could not
// be written), the cancellations owed (cancel.go), and whether the last
// line written is a close line. Its mutex is a leaf, held only while
// lines are appended and synced, so a session's Close takes it without
// the undo stack's lock.
type Writer struct {
	mu sync.Mutex // guards every field below
	// owed is the changes whose abort lines could not be written, oldest
	// first: the next line written goes after those aborts, in order.
	owed []string
	// cancels is the cancellations of undo and redo steps that changed no
	// file, not written yet: they go before any other line.
	cancels []any
	w       *journal.Writer
	closed  bool
	// ended: the last line this process wrote is a close line
	// (ClosedSynced, ClosedLazy), so Close writes none.
	ended bool
}

// Write appends lines to journal j in mode, when ok (nil is yes), asked
// under the writer's lock, still says so; when it says no, nothing is
// written.
func (wr *Writer) Write(j Journal, mode Durability, ok func() bool, lines ...any) error {
	switch mode {
	case Synced, ClosedSynced:
		if err := j.Syncs.Failed(); err != nil {
			return err
		}
	case Ahead:
		if err := j.Syncs.Known(); err != nil {
			return err
		}
	case Lazy:
		if len(lines) == 0 {
			return nil
		}
	}
	wr.mu.Lock()
	defer wr.mu.Unlock()
	if mode == ClosedLazy && (wr.closed || wr.w == nil || wr.ended || len(wr.owed) > 0 || len(wr.cancels) > 0) {
		return nil
	}
	if ok != nil && !ok() {
		return nil
	}
	return wr.writeLocked(j, mode, lines)
}

func (wr *Writer) writeLocked(j Journal, mode Durability, lines []any) error {
	sync := mode != Lazy && mode != ClosedLazy
	closing := mode == ClosedSynced || mode == ClosedLazy
	if wr.closed {
		return fmt.Errorf("engine: session %s is closed", j.Session)
	}
	if wr.w == nil {
		w, _, err := journal.OpenWriter(j.FS, j.Name, journal.Options{Sync: journal.SyncManual, Now: j.Now})
		if err != nil {
			return fmt.Errorf("engine: open changes journal: %w", err)
		}
		wr.w = w
	}
	if len(wr.owed) > 0 {
		at := timefmt.Mk(j.Now())
		aborts := make([]any, 0, len(wr.owed)+len(lines))
		for _, id := range wr.owed {
			aborts = append(aborts, EventLine{V: 1, Kind: KindAbort, ID: id, At: at})
		}
		lines = append(aborts, lines...)
	}
	if closing && len(wr.cancels) == 0 && !j.Syncs.Unsure() {
		lines = append(lines, CloseLine{V: 1, Kind: KindClose, At: timefmt.Mk(j.Now())})
	} else {
		closing = false
	}
	wr.ended = false
	err := func() error {
		for _, l := range lines {
			if err := wr.w.Append(l); err != nil {
				return fmt.Errorf("engine: write changes journal: %w", err)
			}
		}
		if !sync {
			return nil
		}
		if err := wr.w.Sync(); err != nil {
			return fmt.Errorf("engine: sync changes journal: %w", err)
		}
		return nil
	}()
	if err != nil {
		// A broken writer is reopened by the next call, which cuts a torn
		// tail; a failed fsync is never taken as done.
		wr.w.Close()
		wr.w = nil
		return err
	}
	wr.owed, wr.ended = nil, closing
	return nil
}

// Owe notes that the abort line of change id could not be written: it
// goes before the next line written.
func (wr *Writer) Owe(id string) {
	wr.mu.Lock()
	defer wr.mu.Unlock()
	for _, o := range wr.owed {
		if o == id {
			return
		}
	}
	wr.owed = append(wr.owed, id)
}

// Owed is the changes whose abort lines are owed, oldest first.
func (wr *Writer) Owed() []string {
	wr.mu.Lock()
	defer wr.mu.Unlock()
	return append([]string(nil), wr.owed...)
}

// Open reports whether the journal is open for writing (for tests).
func (wr *Writer) Open() bool {
	wr.mu.Lock()
	defer wr.mu.Unlock()
	return wr.w != nil
}

// Closed reports whether Close was called.
func (wr *Writer) Closed() bool {
	wr.mu.Lock()
	defer wr.mu.Unlock()
	return wr.closed
}

// Close closes the journal. A close line ends what a session wrote to its
// changes journal in one run, so the next owner knows every file change
// before it was made; none is written when unsure says a folder sync
// failed (Syncs.Unsure). What fails is returned: without the close line
// the next owner checks the newest change itself, and lines appended
// lazily that were not synced may be lost (the next owner redraws what
// its files show).
func (wr *Writer) Close(now timefmt.Time, unsure bool) error {
	wr.mu.Lock()
	defer wr.mu.Unlock()
	wr.closed = true
	if wr.w == nil {
		return nil
	}
	w := wr.w
	wr.w = nil
	var err error
	// No close line while a cancellation is owed: the next owner
	// finishes the step the journal says was made, as the stack said it
	// was (cancel.go). Nor when the last line written is a close line
	// already (ClosedSynced, ClosedLazy): then there is nothing to sync
	// either.
	if len(wr.owed) == 0 && len(wr.cancels) == 0 && !wr.ended && !unsure {
		if aerr := w.Append(CloseLine{V: 1, Kind: KindClose, At: now}); aerr != nil {
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
