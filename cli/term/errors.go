package term

import "errors"

// Errors returned by the editor and the pickers. Callers compare with
// errors.Is.
var (
	// ErrInterrupted: Ctrl-C at the line editor; the line was discarded.
	ErrInterrupted = errors.New("term: interrupted")
	// ErrCancelled: the picker was left without a choice (Esc, Ctrl-C, an
	// empty answer or "q").
	ErrCancelled = errors.New("term: cancelled")
	// ErrNotTerminal: the keys of a file that is not a terminal were
	// asked for (OpenKeys).
	ErrNotTerminal = errors.New("term: not a terminal")
	// ErrNoRows: a picker was given nothing to choose from.
	ErrNoRows = errors.New("term: nothing to pick")
	// ErrBadChoice: PickPlain read an answer that names no row; the
	// error wrapping it quotes the answer.
	ErrBadChoice = errors.New("term: no such choice")
)
