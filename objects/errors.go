package objects

import (
	"errors"
	"fmt"
)

// Errors of the package. Callers test them with errors.Is.
var (
	// ErrBadID is returned for a string that is not 64 lowercase hex digits.
	ErrBadID = errors.New("objects: bad object id")
	// ErrNotFound is returned for an object the store does not hold.
	ErrNotFound = errors.New("objects: object not found")
	// ErrMismatch is returned when a stored object does not hash to its
	// name, or a compressed one cannot be decoded.
	ErrMismatch = errors.New("objects: hash mismatch")
	// ErrTooLarge is returned by ReadAll for an object larger than asked.
	ErrTooLarge = errors.New("objects: object too large")
)

// ProblemError is a file or folder in a store that is not an object, a shard
// folder or a temp file, or one that could not be read. Walk returns them.
type ProblemError struct {
	Path string // relative to the store's FS
	Err  error
}

func (e *ProblemError) Error() string { return "objects: " + e.Path + ": " + e.Err.Error() }
func (e *ProblemError) Unwrap() error { return e.Err }

// Problems returns every *ProblemError in err, which may join several.
func Problems(err error) []*ProblemError {
	var out []*ProblemError
	var walk func(error)
	walk = func(err error) {
		if err == nil {
			return
		}
		switch u := err.(type) {
		case *ProblemError:
			out = append(out, u)
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				walk(e)
			}
		case interface{ Unwrap() error }:
			walk(u.Unwrap())
		}
	}
	walk(err)
	return out
}

// errNotObject says why a name in a store is not an object.
var errNotObject = errors.New("not an object name")

func mismatch(id ID, cause error) error {
	if cause != nil {
		return fmt.Errorf("objects: %s: %w (%w)", id, ErrMismatch, cause)
	}
	return fmt.Errorf("objects: %s: %w", id, ErrMismatch)
}

func notFound(id ID) error { return fmt.Errorf("objects: %s: %w", id, ErrNotFound) }
