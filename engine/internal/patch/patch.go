package patch

import (
	"bytes"
	"errors"
	"fmt"
)

// Kind is what a patch does to a file.
type Kind int

const (
	// Add makes a file (Path) from nothing.
	Add Kind = iota
	// Update changes a file's content, its mode or its name.
	Update
	// Delete removes a file.
	Delete
)

func (k Kind) String() string {
	switch k {
	case Add:
		return "add"
	case Update:
		return "update"
	}
	return "delete"
}

// File is one file a patch changes.
type File struct {
	Kind Kind
	// Path is the file as the patch names it: the file read (Update,
	// Delete) or made (Add).
	Path string
	// MoveTo, for an Update, is the name the result gets ("": Path).
	MoveTo string
	// Copy: the result goes to MoveTo and Path stays as it is.
	Copy bool
	// Exclusive: the name made (Add's Path, an Update's MoveTo) must not
	// exist (git refuses to overwrite; the envelope overwrites).
	Exclusive bool
	// Exec is the executable bit the file gets; nil keeps the one it had
	// (a new file: not executable).
	Exec *bool
	// CheckOld, for a git diff, is the full git blob id the old content
	// must have ("" when the patch does not give one in full). A binary
	// patch is checked against it, so a literal cannot replace a file it
	// was not made from.
	CheckOld string
	// CheckNew is the full git blob id the new content must have, when
	// given.
	CheckNew string

	apply func(old []byte) ([]byte, error)
}

// NewContent returns the content the file gets from its old content (nil for
// an Add). A hunk that does not fit is a *HunkError.
func (f *File) NewContent(old []byte) ([]byte, error) {
	if f.CheckOld != "" && f.Kind != Add && gitBlobID(old) != f.CheckOld {
		return nil, &HunkError{Path: f.Path, Reason: fmt.Sprintf("the file is not the one the patch was made from (its git id is %s, the patch's %s)", gitBlobID(old), f.CheckOld)}
	}
	b, err := f.apply(old)
	if err != nil {
		return nil, err
	}
	if f.CheckNew != "" && f.Kind != Delete && gitBlobID(b) != f.CheckNew {
		return nil, &HunkError{Path: f.Path, Reason: fmt.Sprintf("the result is not the content the patch names (git id %s)", f.CheckNew)}
	}
	return b, nil
}

// HunkError says a hunk of a patch does not apply to its file's content.
type HunkError struct {
	Path   string
	Hunk   int // numbered from 1; 0 when the file as a whole does not fit
	Reason string
}

func (e *HunkError) Error() string {
	if e.Hunk == 0 {
		return fmt.Sprintf("%s: %s", e.Path, e.Reason)
	}
	return fmt.Sprintf("%s: hunk %d does not apply: %s", e.Path, e.Hunk, e.Reason)
}

// ErrMalformed is the error of a patch that cannot be parsed.
var ErrMalformed = errors.New("malformed patch")

func malformed(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, a...))
}

// Parse reads a patch: the "*** Begin Patch" envelope when its first
// line (past a heredoc line such as <<'EOF') says so, else a git diff. A
// patch that names no file is malformed.
func Parse(b []byte) ([]*File, error) {
	var files []*File
	var err error
	if IsEnvelope(b) {
		files, err = parseEnvelope(b)
	} else {
		files, err = parseGit(b)
	}
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, malformed("it changes no file")
	}
	return files, nil
}

// IsEnvelope reports whether b is in the "*** Begin Patch" shape: its
// first line that is not blank, or the one after a heredoc line, is the
// begin marker.
func IsEnvelope(b []byte) bool {
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	if len(lines) > 1 && isHeredoc(string(bytes.TrimSpace(lines[0]))) {
		lines = lines[1:]
	}
	return len(lines) > 0 && string(bytes.TrimSpace(lines[0])) == beginMarker
}

// Paths is the files text names, as it names them: every file it reads,
// makes, removes or moves to.
func Paths(text []byte) ([]string, error) {
	files, err := Parse(text)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, f := range files {
		out = append(out, f.Path)
		if f.MoveTo != "" {
			out = append(out, f.MoveTo)
		}
	}
	return out, nil
}
