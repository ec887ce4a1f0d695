package convlog

import (
	"errors"
	"os"
	"time"

	"cairn/internal/vfs"
	"cairn/journal"
)

// Kept is what Degrade mode keeps of one journal of a session.
type Kept[T any] struct {
	Synced     int64 // the journal's size at its last good sync
	End        int64 // its size after the last line written whole
	Written    []T   // appended since the sync: not durable yet
	Waiting    []T   // not written: the session was unrecorded
	SyncFailed bool  // a sync failed since: Written may be lost
}

// Wrote notes line l, written whole, leaving the journal at size.
func (k *Kept[T]) Wrote(l T, size int64) { k.Written, k.End = append(k.Written, l), size }

// Durable notes the journal is durable up to size.
func (k *Kept[T]) Durable(size int64) {
	k.Synced, k.End, k.Written, k.SyncFailed = size, size, nil, false
}

// Sync syncs w, whose kept lines are k: they are durable once it returns
// nil.
func (k *Kept[T]) Sync(w *journal.Writer) error {
	if err := w.Sync(); err != nil {
		k.SyncFailed = true
		return err
	}
	k.Durable(w.Size())
	return nil
}

// Reopen returns a writer of journal name that can be appended to. A
// working one (w) is synced and kept. One that broke is closed, the
// journal cut back to the end of its last line written whole (the rest is
// the line whose write failed: cut, not repaired, so no repair line is
// written for each retry), and opened again. When a sync of it failed, it
// is cut back to its last good sync instead, and the lines written since
// (k.Written) are written again: a failed fsync is never taken as done.
// When that fails, the closed writer is returned, and the next retry tries
// again.
func (k *Kept[T]) Reopen(fsys vfs.FS, w *journal.Writer, name string, now func() time.Time) (*journal.Writer, error) {
	if w != nil {
		err := w.Sync()
		if err == nil {
			k.Durable(w.Size())
			return w, nil
		}
		if !errors.Is(err, journal.ErrBroken) && !errors.Is(err, journal.ErrClosed) {
			k.SyncFailed = true // this very sync failed
		}
		w.Close()
	}
	end := k.End
	if k.SyncFailed {
		end = k.Synced
	}
	if err := Cut(fsys, name, end); err != nil {
		return w, err
	}
	nw, _, err := journal.OpenWriter(fsys, name, journal.Options{Sync: journal.SyncManual, Now: now})
	if err != nil {
		return w, err
	}
	if k.SyncFailed {
		k.End = nw.Size()
		for _, l := range k.Written {
			if err := nw.Append(l); err != nil {
				return nw, err
			}
			k.End = nw.Size()
		}
	}
	return nw, nil
}

// Cut cuts journal name back to size bytes, when it is longer, and syncs
// the cut. A missing journal is left missing.
func Cut(fsys vfs.FS, name string, size int64) error {
	f, err := fsys.OpenFile(name, os.O_RDWR, 0)
	if vfs.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if fi.Size() <= size {
		return nil
	}
	if err := f.Truncate(size); err != nil {
		return err
	}
	return f.Sync()
}

// Drain writes k's waiting lines through write, oldest first; a line stays
// waiting until write takes it, so a failure leaves it and those after it.
func (k *Kept[T]) Drain(write func(T) error) error {
	for len(k.Waiting) > 0 {
		if err := write(k.Waiting[0]); err != nil {
			return err
		}
		k.Waiting = k.Waiting[1:]
	}
	return nil
}

// DrainItems is Items.Drain for the items journal: an item line whose text
// is over PayloadInline (and not quarantined), kept inline because its
// payload could not be stored, is stored by store first, and each item
// written counts in Caught.
func (d *Degraded[A]) DrainItems(store func(text string) (*Payload, error), write func(*Line) error) error {
	return d.Items.Drain(func(l *Line) error {
		if l.Kind == KindItem && l.Text != nil && len(*l.Text) > PayloadInline && !l.Quarantined {
			p, err := store(*l.Text)
			if err != nil {
				return err
			}
			l.Text, l.Payload = nil, p
		}
		if err := write(l); err != nil {
			return err
		}
		if l.Kind == KindItem {
			d.Caught++
		}
		return nil
	})
}
