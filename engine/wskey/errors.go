package wskey

import (
	"errors"
	"fmt"
)

// Errors of the package. Callers test them with errors.Is.
var (
	// ErrBadKey: a key that Encode cannot have produced (a byte outside the
	// key alphabet, a bad or non-canonical %XX escape, an empty key).
	ErrBadKey = errors.New("wskey: malformed workspace key")
	// ErrNotReversible: a well-formed key that was shortened with a hash or
	// given a ~N suffix, so the path is only in its workspace.json.
	ErrNotReversible = errors.New("wskey: workspace key is hashed or suffixed; read its workspace.json")
	// ErrNoWorkspace: Resolve without create found no folder for the path.
	// Resolve returns it unwrapped.
	ErrNoWorkspace = errors.New("wskey: no workspace folder for this path")
	// ErrRelative: the path given to Resolve is not absolute.
	ErrRelative = errors.New("wskey: workspace path is not absolute")
	// ErrBadInfo: a workspace.json that cannot be read as one.
	ErrBadInfo = errors.New("wskey: malformed workspace.json")
	// ErrNotItsFolder: Verify found a workspace folder that Resolve would not
	// pick for the path its workspace.json names (or its key decodes to).
	ErrNotItsFolder = errors.New("wskey: workspace folder does not belong to the path it names")
	// ErrDisputed: the folder named by the path's own key does not say it is
	// the path's (see DisputedError).
	ErrDisputed = errors.New("wskey: workspace folder's workspace.json does not name its path")
)

// DisputedError is Resolve's answer when the folder with the path's own,
// un-suffixed key is there, by its exact name, but its workspace.json is
// unreadable (Err), missing from a hashed folder (Err), or names another
// path whose key is not this one (Named). Resolve neither uses the folder
// nor passes it over: the caller looks at what it holds and either rewrites
// its workspace.json (WriteInfo) or stops.
type DisputedError struct {
	Key   string // the folder's key
	Path  string // the path being resolved
	Named string // the path its workspace.json names, or ""
	Err   error  // why it could not be read, when Named is ""
}

func (e *DisputedError) Error() string {
	if e.Named != "" {
		return fmt.Sprintf("wskey: workspace folder %s is %s's by its name, but its workspace.json names %s", e.Key, e.Path, e.Named)
	}
	return fmt.Sprintf("wskey: workspace folder %s is %s's by its name, but its workspace.json cannot be read: %v", e.Key, e.Path, e.Err)
}

func (e *DisputedError) Unwrap() error { return ErrDisputed }
