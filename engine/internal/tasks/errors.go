package tasks

import (
	"errors"
	"fmt"

	"cairn/engine/internal/errs"
)

// EngineError is err of a Log in the engine's words, of task task in
// session session.
func EngineError(err error, session, task string) error {
	switch {
	case errors.Is(err, ErrClosed):
		return fmt.Errorf("engine: session %s is closed", session)
	case errors.Is(err, ErrNoTranscript):
		return fmt.Errorf("%w: %s is a shell job: it has no transcript", errs.ErrBadInput, task)
	case errors.Is(err, ErrNotRunning):
		return errs.Refusedf("task %s is not running", task)
	case errors.Is(err, ErrEnded):
		return errs.Refusedf("task %s already ended", task)
	}
	return err
}
