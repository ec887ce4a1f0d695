package remote

import "errors"

// Errors of the package. Callers test them with errors.Is.
var (
	// ErrNotFound: the key is not in the bucket.
	ErrNotFound = errors.New("not found")
	// ErrExists: a create-if-absent found the key there.
	ErrExists = errors.New("already there")
	// ErrChanged: a replace-if-unchanged found another version.
	ErrChanged = errors.New("changed since it was read")
	// ErrRefused: the server refused the credentials or the request.
	ErrRefused = errors.New("refused by the server")
	// ErrUnsupported: the provider cannot do what was asked.
	ErrUnsupported = errors.New("not supported")
	// ErrBadURL: a remote's URL cairn cannot use.
	ErrBadURL = errors.New("bad remote URL")
	// ErrNotBuilt: a remote of a kind this program was linked without
	// (gs:// without -tags gcs, or a provider package not imported,
	// provider.go); it comes with ErrBadURL.
	ErrNotBuilt = errors.New("is not built into this program")
	// ErrConflict: two machines wrote the same journal past the point
	// they shared; neither copy is changed.
	ErrConflict = errors.New("diverged")
	// ErrGone: the server went away (the error Faulty gives by default).
	ErrGone = errors.New("connection refused")

	// Errors of the configuration.
	ErrNoRemote  = errors.New("no such remote")
	ErrNameTaken = errors.New("a remote of that name exists")
	ErrBadName   = errors.New("bad remote name")
	ErrNoneSet   = errors.New("no remote is set")
	// ErrAmbiguous and ErrNoSession: a session id prefix that names more
	// than one of a remote's sessions, or none (Syncer.FindCard).
	ErrAmbiguous = errors.New("names more than one session")
	ErrNoSession = errors.New("no such session")

	// errLostRecord: the record of changed sessions cannot be followed
	// from a remote's position (changed.go); the push lists every session.
	errLostRecord = errors.New("the record of changed sessions does not go on from where the last sync read")
	// errSortedDamaged: the sessions journal does not begin with the
	// sorted part its head names, or that part does not read as sorted
	// lines (statesorted.go).
	errSortedDamaged = errors.New("remote: the sorted part of the sessions journal is damaged")
	// errSortedChanged: the sessions journal no longer begins with the
	// sorted part its head named when it was read: it was written whole
	// again since (statesorted.go).
	errSortedChanged = errors.New("remote: the sessions journal was written again since it was read")
	// ErrStateBusy: another process is syncing the remote from this state
	// folder (Syncer.begin).
	ErrStateBusy = errors.New("another cairn process is syncing this remote")
)

// Error is a failed request to a bucket: what was asked, of which key.
type Error struct {
	Op  string // get, put, stat, list, delete
	Key string
	Err error // one of the errors above, or the provider's
	// Cause is the provider's error behind Err, when Err is ours.
	Cause error
}

func (e *Error) Error() string {
	msg := "remote: " + e.Op + " " + e.Key + ": " + e.Err.Error()
	if e.Cause != nil && !errors.Is(e.Err, ErrExists) {
		msg += " (" + e.Cause.Error() + ")"
	}
	return msg
}

func (e *Error) Unwrap() []error {
	if e.Cause != nil {
		return []error{e.Err, e.Cause}
	}
	return []error{e.Err}
}
