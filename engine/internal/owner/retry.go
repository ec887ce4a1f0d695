package owner

import (
	"context"
	"errors"
	"time"

	"cairn/engine/internal/errs"
)

// RetryBrief calls open until it is not refused by a brief owner (another
// hook), or wait has passed: an error again says is worth another try
// (the session busy, say) is tried again, with pauses growing from 2 ms
// to 50 ms; an owner that is not brief is answered at once, as it stays.
func RetryBrief[T any](ctx context.Context, wait time.Duration, again func(error) bool, open func() (T, error)) (T, error) {
	var zero T
	deadline := time.Now().Add(wait)
	pause := 2 * time.Millisecond
	for {
		v, err := open()
		var busy *errs.BusyError
		if errors.As(err, &busy) && !busy.Brief {
			return zero, err
		}
		if err == nil || !again(err) || !time.Now().Before(deadline) {
			return v, err
		}
		select {
		case <-ctx.Done():
			return zero, ctx.Err()
		case <-time.After(pause):
		}
		pause = min(2*pause, 50*time.Millisecond)
	}
}
