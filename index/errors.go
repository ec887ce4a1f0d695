package index

import "errors"

// Errors of the package. Callers test them with errors.Is.
var (
	// ErrNotSaved: Refresh brought the listing up to date but could not
	// write index.json (a full disk, a read-only state folder). Entries are
	// right; the next Refresh tries again. Callers may list and go on.
	ErrNotSaved = errors.New("index: index.json not saved")
	// ErrBadRecord: a record that is not a session record this index can
	// read (wrapped in a Problem's text).
	ErrBadRecord = errors.New("index: malformed record")
)
