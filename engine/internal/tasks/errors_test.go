package tasks

import (
	"errors"
	"fmt"
	"testing"

	"cairn/engine/internal/errs"
)

// EngineError words each Log error as the engine's: closed, bad input,
// refused; another error passes unchanged.
func TestEngineError(t *testing.T) {
	for _, c := range []struct {
		err, want error
		text      string
	}{
		{ErrClosed, nil, "engine: session s1 is closed"},
		{fmt.Errorf("x: %w", ErrNoTranscript), errs.ErrBadInput, "engine: bad input: t1 is a shell job: it has no transcript"},
		{ErrNotRunning, errs.ErrRefused, ""},
		{ErrEnded, errs.ErrRefused, ""},
	} {
		got := EngineError(c.err, "s1", "t1")
		if c.want != nil && !errors.Is(got, c.want) || c.text != "" && got.Error() != c.text {
			t.Errorf("EngineError(%v) = %v", c.err, got)
		}
	}
	other := errors.New("other")
	if got := EngineError(other, "s1", "t1"); got != other {
		t.Errorf("EngineError(other) = %v", got)
	}
}
