package bgwork

import (
	"context"
	"fmt"
	"sync"

	"cairn/engine/internal/convlog"
)

// Sink is an owner's conversation as Deliver sees it: the session's items,
// or a child task's transcript.
type Sink interface {
	// Has reports whether the owner durably holds the item of that id.
	// A sink that cannot know (a write of it failed) returns an error.
	Has(ctx context.Context, item string) (bool, error)
	// Put adds d to the conversation as one item whose id is d.Item, in
	// the order of the calls; it need not be durable before Sync.
	Put(ctx context.Context, d Delivery) error
	// Sync makes every item Put so far durable.
	Sync(ctx context.Context) error
}

// Deliver makes the deliveries owed to owner, in order, through sink, and
// returns how many it made (see Ordering in the package doc: an item the
// owner holds already is marked, not put again; the rest are put and
// synced before their delivered lines are written). A Put or Sync that
// fails leaves the batch owed and stops deliveries to owner until the
// ledger is opened again (ErrInDoubt). Deliveries to one owner never run
// at once; to different owners they may.
func (l *Ledger) Deliver(ctx context.Context, owner string, sink Sink) (int, error) {
	l.mu.Lock()
	mu := l.deliver[owner]
	if mu == nil {
		mu = &sync.Mutex{}
		l.deliver[owner] = mu
	}
	l.mu.Unlock()
	mu.Lock()
	defer mu.Unlock()

	l.mu.Lock()
	doubt := l.doubt[owner]
	owed := l.st.Owed(owner)
	l.mu.Unlock()
	if doubt != nil {
		return 0, fmt.Errorf("%w: to %s: %w", ErrInDoubt, ownerWord(owner), doubt)
	}
	if len(owed) == 0 {
		return 0, nil
	}
	put := 0
	for _, d := range owed {
		if err := ctx.Err(); err != nil {
			owed = owed[:put]
			break
		}
		has, err := sink.Has(ctx, d.Item)
		if err != nil {
			return 0, l.doubted(owner, err)
		}
		if !has {
			if err := sink.Put(ctx, d); err != nil {
				return 0, l.doubted(owner, err)
			}
		}
		put++
	}
	if put == 0 {
		return 0, ctx.Err()
	}
	if err := sink.Sync(ctx); err != nil {
		return 0, l.doubted(owner, err)
	}
	lines := make([]*line, len(owed))
	for i, d := range owed {
		lines[i] = &line{Kind: KindDelivered, Item: d.Item}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.write(lines...); err != nil {
		return 0, err
	}
	return len(lines), nil
}

// doubted stops deliveries to owner after err (ordering 6).
func (l *Ledger) doubted(owner string, err error) error {
	l.mu.Lock()
	l.doubt[owner] = err
	l.mu.Unlock()
	return fmt.Errorf("%w: to %s: %w", ErrInDoubt, ownerWord(owner), err)
}

func ownerWord(owner string) string {
	if owner == "" {
		return "the session"
	}
	return "task " + owner
}

// AsItem is the item d is delivered as: a report, a reminder, or the
// tool_result of its work (naming the call it answers, Call).
func (d Delivery) AsItem() convlog.Item {
	it := convlog.Item{ID: d.Item, Task: d.Work}
	switch d.Kind {
	case DeliverReport:
		it.Type, it.Text, it.Title, it.Blocked = convlog.Report, d.Message, d.Title, d.Blocked
	case DeliverReminder:
		it.Type, it.Text = convlog.Reminder, d.Text
	default:
		it.Type, it.Text, it.Call = convlog.ToolResult, fmt.Sprintf("%s %s: %s", d.Work, d.Outcome, d.Text), d.Call
		if d.Output != "" {
			it.Outputs = []string{d.Output}
		}
	}
	return it
}
