package inbox

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"cairn/engine/internal/convlog"
	"cairn/internal/timefmt"
	"cairn/internal/vfs"
	"cairn/journal"
)

// Sink is the receiver's conversation as Deliver sees it.
type Sink interface {
	// Has reports whether the conversation durably holds the item of
	// that id. A sink that cannot know returns an error.
	Has(ctx context.Context, item string) (bool, error)
	// Put adds the message as one item (a queued message) whose id is
	// d.Item, in the order of the calls; it need not be durable before
	// Sync.
	Put(ctx context.Context, d Delivery) error
	// Sync makes every item Put so far durable.
	Sync(ctx context.Context) error
}

// Delivery is a message with the item id reserved for it.
type Delivery struct {
	Message
	Item string `json:"item"`
}

// entry is a message as the fold knows it.
type entry struct {
	Message
	item  string // reserved by a take line
	taken bool
}

// Options tune an Inbox.
type Options struct {
	// Now is the clock of the lines; nil means time.Now.
	Now func() time.Time
	// NewItem makes the item id a message is delivered under; nil means
	// "i-" and 16 random hex digits.
	NewItem func() string
}

// Inbox is a session's inbox as its owner reads and delivers it. Only the
// process that owns the session opens it.
type Inbox struct {
	mu    sync.Mutex
	fsys  vfs.FS
	name  string
	opt   Options
	off   int64 // where the next unread line starts
	order []*entry
	by    map[string]*entry
	doubt error
	// Skipped counts lines that made no sense.
	Skipped int
	closed  bool
}

// Open reads the inbox name for its session's owner. A missing inbox is
// empty; nothing is written.
func Open(fsys vfs.FS, name string, opt Options) (*Inbox, error) {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.NewItem == nil {
		opt.NewItem = func() string {
			b := make([]byte, 8)
			rand.Read(b)
			return "i-" + hex.EncodeToString(b)
		}
	}
	b := &Inbox{fsys: fsys, name: name, opt: opt, by: map[string]*entry{}}
	if err := b.refresh(); err != nil {
		return nil, err
	}
	return b, nil
}

// refresh reads the lines written since the last read. b.mu is held (or
// b is not shared yet).
func (b *Inbox) refresh() error {
	f, err := b.fsys.OpenFile(b.name, os.O_RDONLY, 0)
	if vfs.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("inbox: read %s: %w", b.name, err)
	}
	defer f.Close()
	if _, err := f.Seek(b.off, io.SeekStart); err != nil {
		return fmt.Errorf("inbox: read %s: %w", b.name, err)
	}
	r := bufio.NewReader(f)
	var (
		buf  []byte
		size int64 // bytes of the line so far
		l    line
	)
	for {
		chunk, err := r.ReadSlice('\n')
		size += int64(len(chunk))
		if len(buf)+len(chunk) <= maxLine+1 {
			buf = append(buf, chunk...)
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			return nil // a final run without "\n": read again once it has one
		case err != nil:
			return fmt.Errorf("inbox: read %s: %w", b.name, err)
		}
		if size > maxLine+1 || !decode(buf[:len(buf)-1], &l) || !b.apply(&l) {
			b.Skipped++
		}
		b.off += size
		buf, size = buf[:0], 0
	}
}

// apply folds one line in; false when it makes no sense.
func (b *Inbox) apply(l *line) bool {
	switch l.Kind {
	case KindMsg:
		if !validMsgID(l.ID) || b.by[l.ID] != nil || CheckText(l.Text) != nil {
			return false
		}
		e := &entry{Message: Message{ID: l.ID, From: l.From, Text: l.Text, At: l.At.Time}}
		b.order = append(b.order, e)
		b.by[e.ID] = e
	case KindTake:
		e := b.by[l.Msg]
		if e == nil || e.item != "" || l.Item == "" {
			return false
		}
		e.item = l.Item
	case KindTaken:
		e := b.by[l.Msg]
		if e == nil || e.item == "" || e.taken {
			return false
		}
		e.taken = true
	default:
		return false
	}
	return true
}

// Pending is the messages not delivered yet, in order.
func (b *Inbox) Pending() ([]Message, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.refresh(); err != nil {
		return nil, err
	}
	var out []Message
	for _, e := range b.order {
		if !e.taken {
			out = append(out, e.Message)
		}
	}
	return out, nil
}

// write appends one line of the receiver's, synced.
func (b *Inbox) write(l *line) error {
	l.At = timefmt.Mk(b.opt.Now())
	ln, err := encode(l)
	if err != nil {
		return err
	}
	return appendLine(b.fsys, b.name, ln)
}

// Deliver reads what was sent since it last looked and delivers every
// message not delivered yet, in order, through sink (the package doc's
// Ordering), returning how many it delivered. The receiver's own lines are
// read back from the file, as a sender's are: the file is the truth. Only
// the session's owner calls it.
func (b *Inbox) Deliver(ctx context.Context, sink Sink) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.closed:
		return 0, ErrClosed
	case b.doubt != nil:
		return 0, fmt.Errorf("%w: %w", ErrInDoubt, b.doubt)
	}
	if err := b.refresh(); err != nil {
		return 0, err
	}
	wrote := map[string]bool{}
	for _, e := range b.order {
		if e.item == "" {
			if err := b.write(&line{Kind: KindTake, Msg: e.ID, Item: b.opt.NewItem()}); err != nil {
				return 0, b.doubted(err)
			}
			wrote[e.ID] = true
		}
	}
	if err := b.refresh(); err != nil {
		return 0, err
	}
	// The batch is every message not delivered, in order, up to the first
	// one sent since the takes were written (it goes in the next batch).
	var batch []*entry
	for _, e := range b.order {
		if e.taken {
			continue
		}
		if e.item == "" {
			if wrote[e.ID] {
				return 0, b.doubted(fmt.Errorf("inbox: the take of %s is not in %s", e.ID, b.name))
			}
			break
		}
		batch = append(batch, e)
	}
	for _, e := range batch {
		has, err := sink.Has(ctx, e.item)
		if err != nil {
			return 0, b.doubted(err)
		}
		if !has {
			if err := sink.Put(ctx, Delivery{Message: e.Message, Item: e.item}); err != nil {
				return 0, b.doubted(err)
			}
		}
	}
	if len(batch) == 0 {
		return 0, nil
	}
	if err := sink.Sync(ctx); err != nil {
		return 0, b.doubted(err)
	}
	for _, e := range batch {
		if err := b.write(&line{Kind: KindTaken, Msg: e.ID}); err != nil {
			// Delivered, not marked: the next owner asks the sink.
			return 0, b.doubted(err)
		}
	}
	return len(batch), b.refresh()
}

// doubted stops deliveries after err (Ordering 5).
func (b *Inbox) doubted(err error) error {
	b.doubt = err
	return fmt.Errorf("%w: %w", ErrInDoubt, err)
}

// Watch calls fn each time a line is added to the inbox, until ctx ends;
// the receiver then calls Deliver. It watches the file (package journal's
// Follow), so a sender in another process wakes it.
func (b *Inbox) Watch(ctx context.Context, fn func()) error {
	b.mu.Lock()
	off := b.off
	b.mu.Unlock()
	return journal.Follow(ctx, b.fsys, b.name, off, func([]byte) error {
		fn()
		return nil
	})
}

// Close ends the inbox; messages not delivered wait for the next owner.
func (b *Inbox) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	return nil
}

// AsItem is the message item d is delivered as.
func (d Delivery) AsItem() convlog.Item {
	return convlog.Item{ID: d.Item, Type: convlog.Message, Text: d.Text, From: d.From}
}
