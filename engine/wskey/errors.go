package wskey

import "errors"

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
)
