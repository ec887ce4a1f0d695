package cli

import (
	"fmt"

	"cairn/cli/cmdbase"
)

// Exit codes of the cairn command (README.md). They are part of the
// contract; cli/cmdbase holds them for every command program.
const (
	ExitOK      = cmdbase.ExitOK
	ExitFailed  = cmdbase.ExitFailed
	ExitUsage   = cmdbase.ExitUsage
	ExitRefused = cmdbase.ExitRefused
	ExitBusy    = cmdbase.ExitBusy
)

// exitError carries an exit code and a one-word code for --json answers.
type exitError = cmdbase.ExitError

func usageErrorf(format string, a ...any) error { return cmdbase.UsageErrorf(format, a...) }

// notFoundf says a reference names nothing the user has: an item, a tool
// output, a shell line. Such a reference fails as not found (exit 1)
// however it is spelled: an unknown id, N past the head path, a session
// id, prefix or title that matches none (an unknown snapshot alone is
// refused, exit 3, as undo and redo refuse). Bad usage (exit 2) is for a
// reference that cannot name anything: an empty one.
func notFoundf(format string, a ...any) error {
	return &exitError{Code: ExitFailed, Word: "not_found", Err: fmt.Errorf(format, a...)}
}
