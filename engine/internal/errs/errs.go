// Package errs holds the engine's sentinel errors, so that the mechanisms
// below the engine return the errors its callers test with errors.Is: the
// engine's exported ErrBusy, ErrNotFound and the rest are these values.
// Their texts are part of what a person reads, "engine: ..." as the
// engine's own.
//
// # Words
//
//   - refusal: an error that refuses an operation (errors.Is(err,
//     ErrRefused)), with its reason apart from the word (Why).
//   - not found: errors.Is(err, ErrNotFound), with a text that names what
//     is missing rather than saying that no session matched.
//
// It imports nothing of cairn.
package errs

import (
	"errors"
	"fmt"
)

// The engine's errors (engine/errors.go says what each means).
var (
	ErrFormat    = errors.New("engine: unsupported state folder format")
	ErrBusy      = errors.New("engine: session is owned by another process")
	ErrNotFound  = errors.New("engine: no such session")
	ErrAmbiguous = errors.New("engine: ambiguous session reference")
	ErrRefused   = errors.New("engine: refused")
	ErrBadInput  = errors.New("engine: bad input")
	ErrSweeping  = errors.New("engine: another cairn process is sweeping")
	// ErrWorkPaused: a workflow run was paused (package bgwork's
	// ErrPaused is this error).
	ErrWorkPaused = errors.New("engine: the workflow run is paused")
)

// refused is a refusal built by Refusedf; it wraps ErrRefused and any
// error its reason wraps (%w).
type refused struct{ reason error }

// Refusedf is a refusal whose reason is fmt.Errorf(format, a...); its Why
// method says the reason.
func Refusedf(format string, a ...any) error { return &refused{fmt.Errorf(format, a...)} }

func (e *refused) Error() string   { return RefusedText(e.Why()) }
func (e *refused) Why() string     { return e.reason.Error() }
func (e *refused) Unwrap() []error { return []error{ErrRefused, e.reason} }

// RefusedText is a refusal's text: the word, then its reason.
func RefusedText(reason string) string { return ErrRefused.Error() + ": " + reason }

// notFound is ErrNotFound for errors.Is, but its text names what is
// missing (an item, a task, an attachment, an output) rather than saying
// that no session matched: "no task "t-1" in session S", never "no such
// session: no task ...".
type notFound struct{ msg string }

// NotFoundf is ErrNotFound for errors.Is, with the text "engine: " and
// fmt.Sprintf(format, a...).
func NotFoundf(format string, a ...any) error { return &notFound{fmt.Sprintf(format, a...)} }

func (e *notFound) Error() string        { return "engine: " + e.msg }
func (e *notFound) Is(target error) bool { return target == ErrNotFound }
