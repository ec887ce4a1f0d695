package bgwork

import (
	"errors"
	"fmt"

	"cairn/engine/internal/errs"
)

// Errors of the package, tested with errors.Is. The engine maps
// ErrInvalid to bad input, ErrRefused to a refusal and ErrNotFound to not
// found.
var (
	// ErrInvalid: an argument is malformed (an id, a report, a cursor, a
	// limit, an action).
	ErrInvalid = errors.New("bgwork: invalid")
	// ErrRefused: the ledger's state refuses the operation (work that is
	// not running, a shell job promoted, an owner that still owns live
	// work, no live capacity left).
	ErrRefused = errors.New("bgwork: refused")
	// ErrNotFound: no work of that id.
	ErrNotFound = errors.New("bgwork: no such work")
	// ErrClosed: the ledger was closed.
	ErrClosed = errors.New("bgwork: closed")
	// ErrWrite: a line could not be written (a write or a sync failed);
	// the ledger writes nothing more until Reopen. The line may be in the
	// file all the same.
	ErrWrite = errors.New("bgwork: cannot write the ledger")
	// ErrPromoted: a waited call was moved to the background
	// (*PromotedError holds its receipt).
	ErrPromoted = errors.New("bgwork: moved to the background")
	// ErrInDoubt: a delivery to this owner failed part way; nothing more
	// is delivered to it until the ledger is opened again.
	ErrInDoubt = errors.New("bgwork: a delivery failed part way")
	// ErrPaused: a workflow was paused. It is the cause of its run's ctx
	// (Paused), and what a call that waited for the run gets.
	ErrPaused = errs.ErrWorkPaused
)

// RefusedError is a refusal and its reason: errors.Is(err, ErrRefused)
// holds, and the engine says Reason after its own word for a refusal.
type RefusedError struct{ Reason string }

func (e *RefusedError) Error() string        { return ErrRefused.Error() + ": " + e.Reason }
func (e *RefusedError) Is(target error) bool { return target == ErrRefused }

// refused is a *RefusedError with its reason formatted.
func refused(format string, a ...any) error {
	return &RefusedError{Reason: fmt.Sprintf(format, a...)}
}

// EngineError is err in the engine's errors: ErrInvalid as bad input,
// ErrNotFound as not found, a refusal as the engine's refusal with the
// reason alone (its text says "refused" once).
func EngineError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrInvalid):
		return fmt.Errorf("%w: %w", errs.ErrBadInput, err)
	case errors.Is(err, ErrNotFound):
		return errs.NotFoundf("%v", err)
	case errors.Is(err, ErrRefused):
		var r *RefusedError
		if errors.As(err, &r) {
			return errs.Refusedf("%s", r.Reason)
		}
		return errs.Refusedf("%v", err)
	}
	return err
}
