package owner

import (
	"context"
	"errors"
	"testing"
	"time"

	"cairn/engine/internal/errs"
)

// RetryBrief tries again while a brief owner holds on, answers a lasting
// owner and any other error at once, and stops when wait has passed.
func TestRetryBrief(t *testing.T) {
	ctx := context.Background()
	again := func(err error) bool { return errors.Is(err, errs.ErrBusy) }
	brief := &errs.BusyError{ID: "s", Brief: true}
	n := 0
	v, err := RetryBrief(ctx, time.Minute, again, func() (int, error) {
		if n++; n < 3 {
			return 0, brief
		}
		return 7, nil
	})
	if v != 7 || err != nil || n != 3 {
		t.Fatalf("brief owner: %d, %v after %d tries; want 7 after 3", v, err, n)
	}
	n = 0
	lasting := &errs.BusyError{ID: "s"}
	if _, err := RetryBrief(ctx, time.Minute, func(error) bool { return true }, func() (int, error) { n++; return 1, lasting }); err != lasting || n != 1 {
		t.Fatalf("lasting owner: %v after %d tries; want it at once", err, n)
	}
	n = 0
	if _, err := RetryBrief(ctx, 0, again, func() (int, error) { n++; return 0, brief }); err != brief || n != 1 {
		t.Fatalf("no wait: %v after %d tries; want one try", err, n)
	}
}
