package engine

import (
	"errors"
	"fmt"
)

// Version is the build of cairn, shown by `cairn --version` and kept in each
// record so a resume can say when a session was written by another build.
// Release builds set it with -ldflags "-X cairn/engine.Version=...".
var Version = "0.1.0-dev"

// Errors of the engine. Callers test them with errors.Is.
var (
	// ErrFormat: the state folder was written by a newer cairn, or its FORMAT
	// file is unreadable.
	ErrFormat = errors.New("engine: unsupported state folder format")
	// ErrBusy: another process owns the session.
	ErrBusy = errors.New("engine: session is owned by another process")
	// ErrNotFound: no session matches the reference.
	ErrNotFound = errors.New("engine: no such session")
	// ErrAmbiguous: a reference matches more than one session.
	ErrAmbiguous = errors.New("engine: ambiguous session reference")
	// ErrRefused: the operation was refused (nothing to undo, a conflict, a
	// required snapshot that could not be taken).
	ErrRefused = errors.New("engine: refused")
	// ErrBadInput: an argument or a file is malformed.
	ErrBadInput = errors.New("engine: bad input")
	// ErrSweeping: another process is sweeping (Store.Sweep).
	ErrSweeping = errors.New("engine: another cairn process is sweeping")
	// ErrOutputTooLarge is returned by PutOutput for an output over
	// MaxOutputBytes; nothing is stored. It wraps ErrBadInput.
	ErrOutputTooLarge = fmt.Errorf("%w: tool output over %d MiB", ErrBadInput, MaxOutputBytes>>20)
)

// Refusal is an error that refuses an operation (errors.Is(err,
// ErrRefused) holds), with its reason apart from the word: Why is what a
// person reads after "refused". Every refusal the engine makes is one.
type Refusal interface {
	error
	Why() string
}

// refusedErr is a Refusal built by refusedf; it wraps ErrRefused and any
// error its reason wraps (%w).
type refusedErr struct{ reason error }

// refusedf is a Refusal whose reason is fmt.Errorf(format, a...).
func refusedf(format string, a ...any) error { return &refusedErr{fmt.Errorf(format, a...)} }

func (e *refusedErr) Error() string   { return refusedText(e.Why()) }
func (e *refusedErr) Why() string     { return e.reason.Error() }
func (e *refusedErr) Unwrap() []error { return []error{ErrRefused, e.reason} }

// refusedText is a refusal's text: the word, then its reason.
func refusedText(reason string) string { return ErrRefused.Error() + ": " + reason }

var (
	_ Refusal = (*refusedErr)(nil)
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

// notFound is ErrNotFound for errors.Is, but its text names what is
// missing (an item, a task, an attachment, an output) rather than saying
// that no session matched: "no task "t-1" in session S", never "no such
// session: no task ...".
type notFound struct{ msg string }

func notFoundf(format string, a ...any) error {
	return &notFound{fmt.Sprintf(format, a...)}
}

func (e *notFound) Error() string { return "engine: " + e.msg }

func (e *notFound) Is(target error) bool { return target == ErrNotFound }
