package cli

import (
	"errors"
	"fmt"

	"cairn/engine"
	"cairn/remotews"
)

// Exit codes of the cairn command (README.md). They are part of the contract.
const (
	ExitOK      = 0 // done
	ExitFailed  = 1 // failed
	ExitUsage   = 2 // bad usage
	ExitRefused = 3 // refused: nothing to undo, a conflict, a required snapshot denied
	ExitBusy    = 4 // another process owns the session
)

// exitError carries an exit code and a one-word code for --json answers.
type exitError struct {
	code  int
	word  string
	err   error
	quiet bool // the answer is already on stdout: no JSON error object
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageErrorf(format string, a ...any) error {
	return &exitError{code: ExitUsage, word: "usage", err: fmt.Errorf(format, a...)}
}

// notFoundf says a reference names nothing the user has: an item, a tool
// output, a shell line. Such a reference fails as not found (exit 1)
// however it is spelled: an unknown id, N past the head path, a session
// id, prefix or title that matches none (an unknown snapshot alone is
// refused, exit 3, as undo and redo refuse). Bad usage (exit 2) is for a
// reference that cannot name anything: an empty one.
func notFoundf(format string, a ...any) error {
	return &exitError{code: ExitFailed, word: "not_found", err: fmt.Errorf(format, a...)}
}

// classify maps an error to its exit code and word.
func classify(err error) (int, string) {
	var ee *exitError
	var re *remotews.Error
	switch {
	case errors.As(err, &ee):
		return ee.code, ee.word
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
	case errors.As(err, &re) && re.Word() != "":
		// Reaching a remote workspace failed: ssh, no cairn there,
		// another version, a replaced workspace, a lost connection.
		return ExitFailed, re.Word()
	}
	return ExitFailed, "failed"
}
