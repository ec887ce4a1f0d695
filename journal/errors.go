package journal

import "errors"

// Errors of the package. Callers test for them with errors.Is.
var (
	// ErrLineTooLong is returned by Append and AppendLine for a line longer
	// than the line cap (Options.MaxLine).
	ErrLineTooLong = errors.New("journal: line too long")
	// ErrBadLine is returned by AppendLine (and Append) for a line that is not
	// one JSON object, or that holds a newline.
	ErrBadLine = errors.New("journal: not a one-line JSON object")
	// ErrBroken is returned by every Append and Sync after a write or an fsync
	// of the Writer failed. It wraps the first error. Open a new Writer.
	ErrBroken = errors.New("journal: writer broken by an earlier error")
	// ErrClosed is returned by a Writer used after Close.
	ErrClosed = errors.New("journal: writer closed")
)
