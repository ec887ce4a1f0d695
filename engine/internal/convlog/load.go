package convlog

import (
	"bytes"
	"context"
	stdjson "encoding/json"
	"fmt"
	"runtime"
	"sync"
	"time"

	json "github.com/segmentio/encoding/json"

	"cairn/internal/vfs"
	"cairn/journal"
	"cairn/objects"
)

// Loading a session: its items journal is read once, its lines parsed and
// its payload objects decompressed on every core, then folded in order.

// ReadOptions say how Read folds an items journal.
type ReadOptions struct {
	Hydrate bool           // read payload objects back into the items
	Limit   int64          // refuse when payload bytes exceed it (0: no limit)
	Objects *objects.Store // the workspace's objects, for Hydrate
	// NotAfter is the latest time a line may carry and still count as
	// activity (a line dated later does not move updated_at).
	NotAfter time.Time
}

// TooBigError refuses a journal whose payload bytes exceed the limit.
type TooBigError struct{ Bytes, Limit int64 }

func (e *TooBigError) Error() string {
	return fmt.Sprintf("%d payload bytes, over the limit of %d", e.Bytes, e.Limit)
}

// Read folds the items journal name (a session's, or a task's
// transcript) into the state of session id in workspace path. A payload
// that cannot be read back (missing, corrupt) makes only its item
// unavailable; the session loads and works. Its line is left as it is, so
// the text comes back with the object.
func Read(ctx context.Context, fsys vfs.FS, name, id, path string, opt ReadOptions) (*State, error) {
	var raw [][]byte
	jst, err := journal.Read(fsys, name, func(b []byte) error {
		raw = append(raw, bytes.Clone(b))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("engine: read session %s: %w", id, err)
	}
	lines := make([]*Line, len(raw))
	Parallel(len(raw), func(i int) {
		var l Line
		if json.Unmarshal(raw[i], &l) == nil && l.V == 1 {
			lines[i] = &l
		}
		raw[i] = nil
	})
	var total int64
	var payloads []int
	for i, l := range lines {
		if l == nil || l.Kind != KindItem {
			continue
		}
		if l.Payload != nil {
			total += l.Payload.Size
			payloads = append(payloads, i)
		} else if l.Text != nil {
			total += int64(len(*l.Text))
		}
	}
	if opt.Limit > 0 && total > opt.Limit {
		return nil, &TooBigError{Bytes: total, Limit: opt.Limit}
	}
	if opt.Hydrate && len(payloads) > 0 {
		Parallel(len(payloads), func(k int) {
			l := lines[payloads[k]]
			txt, err := ReadPayload(ctx, opt.Objects, l.Payload)
			if err != nil {
				l.Unavailable = UnavailableOf(l.Payload, err)
				return
			}
			l.Text = &txt
		})
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	st := NewState(id, path)
	st.NotAfter = opt.NotAfter
	st.BadLines = len(jst.Bad)
	for _, l := range lines {
		if l == nil {
			st.BadLines++
			continue
		}
		st.ReadLines++
		st.Fold(l) // a line that breaks the tree is skipped; fsck reports it
	}
	st.ID = id
	st.NotAfter = time.Time{}
	st.PayloadBytes = total
	return st, nil
}

// Parallel runs fn(0..n-1) on every core.
func Parallel(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	// Work is handed out in chunks, so a million small lines cost a few
	// thousand channel operations, not a million.
	chunk := max(1, n/(workers*16))
	var wg sync.WaitGroup
	next := make(chan int, workers*2)
	for range workers {
		wg.Go(func() {
			for lo := range next {
				for i := lo; i < min(lo+chunk, n); i++ {
					fn(i)
				}
			}
		})
	}
	for lo := 0; lo < n; lo += chunk {
		next <- lo
	}
	close(next)
	wg.Wait()
}

// ReadLean folds the items journal name without its texts, one line at a
// time, whatever its size: the conversation's shape (ids, parents, types,
// the head), each item's Text empty. Stream reads the texts back.
func ReadLean(ctx context.Context, fsys vfs.FS, name, id, path string, notAfter time.Time) (*State, error) {
	st := NewState(id, path)
	st.NotAfter = notAfter
	jst, err := journal.Read(fsys, name, func(b []byte) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		var l Line
		if stdjson.Unmarshal(b, &l) != nil || l.V != 1 {
			st.BadLines++
			return nil
		}
		st.ReadLines++
		st.Fold(&l)
		if l.Kind == KindItem {
			if it := st.Item(l.ID); it != nil {
				it.Text = "" // read back by Stream, one item at a time
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	st.BadLines += len(jst.Bad)
	st.ID, st.NotAfter = id, time.Time{}
	return st, nil
}

// Stream calls fn with items of st, which are in the journal's order,
// their texts read back from the items journal name, one payload object
// at a time. A payload that cannot be read back makes its item
// Unavailable, as a load does.
func Stream(ctx context.Context, fsys vfs.FS, name string, objs *objects.Store, st *State, items []*Item, fn func(Item) error) error {
	// Every item is written after its parent, so the head path is in the
	// journal's order; all is that order by definition.
	want := make(map[string]bool, len(items))
	for _, it := range items {
		want[it.ID] = true
	}
	_, err := journal.Read(fsys, name, func(b []byte) error {
		var l Line
		if stdjson.Unmarshal(b, &l) != nil || l.Kind != KindItem || !want[l.ID] {
			return nil
		}
		delete(want, l.ID) // an id a damaged journal repeats is given once
		it := *st.Item(l.ID)
		switch {
		case l.Payload != nil:
			txt, err := ReadPayload(ctx, objs, l.Payload)
			if cerr := ctx.Err(); cerr != nil {
				return cerr
			}
			if err != nil {
				it.Unavailable = UnavailableOf(l.Payload, err)
			} else {
				it.Text = txt
			}
		case l.Text != nil:
			it.Text = *l.Text
		}
		return fn(it)
	})
	return err
}

// PathLines re-reads the item lines of the items journal name for the
// items on path, in path's order, keeping payload references as they are.
func PathLines(fsys vfs.FS, name string, path []*Item) ([]*Line, error) {
	want := make(map[string]bool, len(path))
	for _, it := range path {
		want[it.ID] = true
	}
	byID := map[string]*Line{}
	_, err := journal.Read(fsys, name, func(b []byte) error {
		var l Line
		if stdjson.Unmarshal(b, &l) == nil && l.Kind == KindItem && want[l.ID] {
			byID[l.ID] = &l
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]*Line, 0, len(path))
	for _, it := range path {
		if l := byID[it.ID]; l != nil {
			out = append(out, l)
		}
	}
	return out, nil
}

// FoldAfter folds the lines of items journal name after off onto st, the
// texts of user items read back from objs: the ids of the items they
// write. A torn or unreadable line is an error; st is then not to be used.
func FoldAfter(ctx context.Context, fsys vfs.FS, objs *objects.Store, name string, off int64, st *State, notAfter time.Time) ([]string, error) {
	var ids []string
	id := st.ID
	st.NotAfter = notAfter
	defer func() { st.NotAfter = time.Time{} }()
	js, err := journal.ReadFrom(fsys, name, off, func(b []byte) error {
		var l Line
		if err := stdjson.Unmarshal(b, &l); err != nil || l.V != 1 {
			return fmt.Errorf("engine: a line of session %s cannot be read", id)
		}
		if l.Kind == KindItem && l.Type == User && l.Payload != nil {
			txt, err := ReadPayload(ctx, objs, l.Payload)
			if err != nil {
				return err
			}
			l.Text = &txt
		}
		if l.Kind == KindItem {
			ids = append(ids, l.ID)
		}
		return st.Fold(&l)
	})
	if err == nil && (len(js.Bad) > 0 || js.Torn > 0) {
		err = fmt.Errorf("engine: session %s's journal has a torn or unreadable line", id)
	}
	return ids, err
}
