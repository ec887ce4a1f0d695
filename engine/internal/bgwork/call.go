package bgwork

import (
	"context"
	"fmt"
)

// Call is a started piece of work: its receipt, and for a waited call the
// way to its result.
type Call struct {
	Receipt Receipt
	r       *Runner
	out     chan callOut // one value: the result, or the promotion
	// answered: out has had its value (r.mu).
	answered bool
}

type callOut struct {
	res      Result
	promoted *Receipt
	paused   bool
}

// PromotedError says a waited call was moved to the background: its
// result will be delivered; Receipt is what the caller answers with now.
type PromotedError struct{ Receipt Receipt }

func (e *PromotedError) Error() string { return ErrPromoted.Error() + ": " + e.Receipt.Work }
func (e *PromotedError) Unwrap() error { return ErrPromoted }

// Wait waits for the result of a waited call. It returns a
// *PromotedError once the work was moved to the background, and ErrPaused
// once a workflow paused. When ctx
// ends first, the work is cancelled and its result (cancelled) waited for.
// A call answered with a receipt has nothing to wait for: Wait returns
// its receipt as a *PromotedError at once.
func (c *Call) Wait(ctx context.Context) (Result, error) {
	if c.out == nil {
		return Result{}, &PromotedError{c.Receipt}
	}
	select {
	case o := <-c.out:
		return c.answer(o)
	case <-ctx.Done():
	}
	c.r.cancel(c.Receipt.Work, errCancelled)
	return c.answer(<-c.out)
}

func (c *Call) answer(o callOut) (Result, error) {
	switch {
	case o.promoted != nil:
		return Result{}, &PromotedError{*o.promoted}
	case o.paused:
		return Result{}, fmt.Errorf("%w: %s waits for Continue", ErrPaused, c.Receipt.Work)
	}
	return o.res, nil
}

// WorkStart says what a task or workflow call starts (engine Session.StartWork).
type Start struct {
	// Type is "task" (a sub-agent) or "workflow" (a workflow run).
	Type string
	// Label names it: a task's id is made from it (implement-footer-chips);
	// a workflow gets a random word-list id (neat-wanted-cowbird) and keeps
	// it for good.
	Label string
	// Owner is "" for the session, or the running child task it reports to.
	Owner string
	// Call is the tool_call item that starts it.
	Call string
	// Background is the call's background argument (task auto).
	Background bool
}

// WorkResume says how ResumeWork runs a paused workflow again.
type Resume struct {
	// Call is the tool_call item that resumes it.
	Call string
	// Background is the call's background argument (task auto).
	Background bool
}
