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
