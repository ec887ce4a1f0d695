package engine

import (
	"fmt"

	"cairn/engine/internal/errs"
)

// Version is the build of cairn, shown by `cairn --version` and kept in each
// record so a resume can say when a session was written by another build.
// Release builds set it with -ldflags "-X cairn/engine.Version=...".
var Version = "0.1.0-dev"

// Errors of the engine. Callers test them with errors.Is.
var (
	// ErrFormat: the state folder was written by a newer cairn, or its FORMAT
	// file is unreadable.
	ErrFormat = errs.ErrFormat
	// ErrBusy: another process owns the session.
	ErrBusy = errs.ErrBusy
	// ErrNotFound: no session matches the reference.
	ErrNotFound = errs.ErrNotFound
	// ErrAmbiguous: a reference matches more than one session.
	ErrAmbiguous = errs.ErrAmbiguous
	// ErrRefused: the operation was refused (nothing to undo, a conflict, a
	// required snapshot that could not be taken).
	ErrRefused = errs.ErrRefused
	// ErrBadInput: an argument or a file is malformed.
	ErrBadInput = errs.ErrBadInput
	// ErrSweeping: another process is sweeping (Store.Sweep).
	ErrSweeping = errs.ErrSweeping
	// ErrOutputTooLarge is returned by PutOutput for an output over
	// maxOutputSize; nothing is stored. It wraps ErrBadInput.
	ErrOutputTooLarge = fmt.Errorf("%w: tool output over %d MiB", ErrBadInput, maxOutputSize>>20)
	// ErrWorkPaused: the workflow run a WorkCall waited for was paused
	// (PauseWork); ResumeWork runs it again.
	ErrWorkPaused = errs.ErrWorkPaused
)

// Refusal is an error that refuses an operation (errors.Is(err,
// ErrRefused) holds), with its reason apart from the word: Why is what a
// person reads after "refused". Every refusal the engine makes is one.
type Refusal interface {
	error
	Why() string
}

// refusedf is a Refusal whose reason is fmt.Errorf(format, a...).
func refusedf(format string, a ...any) error { return errs.Refusedf(format, a...) }

var (
	_ Refusal = (*RestoreError)(nil)
	_ Refusal = (*RequiredError)(nil)
	_ Refusal = (*PatchError)(nil)
	_ Refusal = (*RevertConflictError)(nil)
	_ Refusal = (*LoadLimitError)(nil)
	_ Refusal = (*UnreadableError)(nil)
)

// noItem says a session holds no item with the id given.
func noItem(item, session string) error {
	return notFoundf("no item %q in session %s", item, session)
}

// notFoundf is ErrNotFound for errors.Is, but its text names what is
// missing (an item, a task, an attachment, an output) rather than saying
// that no session matched: "no task "t-1" in session S", never "no such
// session: no task ...".
func notFoundf(format string, a ...any) error { return errs.NotFoundf(format, a...) }

// BusyError says another process owns a session, or another machine holds
// its lease on the remote (errs.BusyError).
type BusyError = errs.BusyError

// LoadLimitError refuses to open a session too big for the current ceiling
// (storage.max_eager_load_mb): it can still be read and forked.
type LoadLimitError = errs.LoadLimitError

// UnreadableError says a session's items journal is no session cairn can
// read (errs.UnreadableError); it is left as it is and never appended to.
type UnreadableError = errs.UnreadableError
