package migrate

import "fmt"

// RecoveryError is what an open could not finish or undo of an operation a
// crash interrupted (a session move): the file of the state folder that
// holds it, and why. It is tried again at the next open.
type RecoveryError struct {
	Path string
	Err  error
}

func (e RecoveryError) Error() string {
	return fmt.Sprintf("engine: %s: what a crash interrupted could not be finished (tried again at the next open): %v", e.Path, e.Err)
}

func (e RecoveryError) Unwrap() error { return e.Err }
