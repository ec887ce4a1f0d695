package cmdbase

import (
	"errors"
	"fmt"

	"cairn/engine"
)

// Exit codes of the cairn command (README.md). They are part of the contract.
const (
	ExitOK      = 0 // done
	ExitFailed  = 1 // failed
	ExitUsage   = 2 // bad usage
	ExitRefused = 3 // refused: nothing to undo, a conflict, a required snapshot denied
	ExitBusy    = 4 // another process owns the session
)

// ExitError carries an exit code and a one-word code for --json answers.
type ExitError struct {
	Code  int
	Word  string
	Err   error
	Quiet bool // the answer is already on stdout: no JSON error object
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// UsageErrorf is bad usage (exit 2), in the words given.
func UsageErrorf(format string, a ...any) error {
	return &ExitError{Code: ExitUsage, Word: "usage", Err: fmt.Errorf(format, a...)}
}

// worded is an error that names its own --json code: reaching a remote
// workspace failed (cairn/remotews's Error: ssh, no cairn there, another
// version, a replaced workspace, a lost connection). An interface, so the
// commands that never reach one do not link the remote workspace client.
type worded interface {
	error
	Word() string
}

// Classify maps an error to its exit code and word.
func Classify(err error) (int, string) {
	var ee *ExitError
	var we worded
	switch {
	case errors.As(err, &ee):
		return ee.Code, ee.Word
	case errors.Is(err, engine.ErrBusy):
		return ExitBusy, "busy"
	case errors.Is(err, engine.ErrRefused):
		return ExitRefused, "refused"
	case errors.Is(err, engine.ErrBadInput):
		return ExitUsage, "bad_input"
	case errors.Is(err, engine.ErrNotFound):
		return ExitFailed, "not_found"
	case errors.Is(err, engine.ErrAmbiguous):
		return ExitFailed, "ambiguous"
	case errors.Is(err, engine.ErrFormat):
		return ExitFailed, "format"
	case errors.As(err, &we) && we.Word() != "":
		return ExitFailed, we.Word()
	}
	return ExitFailed, "failed"
}
