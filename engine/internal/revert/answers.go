package revert

import (
	"context"
	"fmt"
	"strings"

	"cairn/engine/internal/convlog"
	"cairn/engine/internal/errs"
	"cairn/engine/internal/snapshot"
)

// What a file revert or unrevert answers, and its refusal over conflicts.

// Result says what a revert or unrevert did (Session.Revert).
type Result struct {
	Session string `json:"session"`
	Head    string `json:"head"`
	From    string `json:"from"`            // the head before the revert
	Draft   string `json:"draft,omitempty"` // the prompt's text, for a revert to a user prompt
	// DraftUnavailable is set when that prompt's text could not be read
	// back; Draft is empty then.
	DraftUnavailable *convlog.Unavailable `json:"draft_unavailable,omitempty"`
	// Preview: nothing was changed; Head is where the head would go.
	Preview bool `json:"preview,omitempty"`
	// Files is the file half of a files or both revert, or of an unrevert
	// that put files back.
	Files *FileRevert `json:"files,omitempty"`
}

// FileRevert says what a file revert did, or, previewed, would do.
type FileRevert struct {
	Applied bool `json:"applied"` // false: a preview
	Create  int  `json:"create"`
	Replace int  `json:"replace"`
	Delete  int  `json:"delete"`
	// UnrecordedCalls counts the calls after the boundary that ran without
	// a record: the revert cannot undo their changes, which stay.
	UnrecordedCalls int            `json:"unrecorded_calls"`
	Files           []RevertedFile `json:"files"`
	// Left names the files the revert could not write (they keep their
	// content, and the revert is unfinished: unrevert or new work ends it).
	Left []snapshot.FileReason `json:"left,omitempty"`
	// Conflicts refuse the revert (RevertConflictError).
	Conflicts []RevertConflict `json:"conflicts,omitempty"`
	// contents reads, for a preview, what each file holds and would get.
	contents func(ctx context.Context, limit int64) ([]FileChange, error)
}

// SetContents gives a preview its reader of what each file holds and
// would get (Contents).
func (f *FileRevert) SetContents(fn func(ctx context.Context, limit int64) ([]FileChange, error)) {
	f.contents = fn
}

// Contents is, for a preview, each file of Files as it is now (Before)
// and as the revert would leave it (After), each side read up to limit
// bytes: what cairn diff shows of it. It is nil for a revert that ran.
func (f *FileRevert) Contents(ctx context.Context, limit int64) ([]FileChange, error) {
	if f.contents == nil {
		return nil, nil
	}
	return f.contents(ctx, limit)
}

// RevertedFile is one file of a file revert: what it does to it (create,
// replace, delete; for an unrevert, put back).
type RevertedFile struct {
	Path   string `json:"path"`
	Action string `json:"action"`
}

// RevertConflict is a path a file revert or unrevert refuses over: its
// kind (changed, interleaved, unrecorded), the path, and why.
type RevertConflict struct {
	Kind   string `json:"kind"`
	Path   string `json:"path"`
	Detail string `json:"detail"`
}

// RevertConflictError refuses a file revert or unrevert over conflicts;
// nothing was changed. It wraps ErrRefused.
type RevertConflictError struct {
	Action string // revert | unrevert
	Files  *FileRevert
}

func (e *RevertConflictError) Error() string { return errs.RefusedText(e.Why()) }

// Why is what the refusal says after the word.
func (e *RevertConflictError) Why() string {
	by := map[string][]string{}
	var kinds []string
	for _, c := range e.Files.Conflicts {
		if by[c.Kind] == nil {
			kinds = append(kinds, c.Kind)
		}
		by[c.Kind] = append(by[c.Kind], c.Path)
	}
	var parts []string
	for _, k := range kinds {
		parts = append(parts, k+": "+strings.Join(by[k], ", "))
	}
	return fmt.Sprintf("file %s conflicts (%s); nothing was changed", e.Action, strings.Join(parts, "; "))
}

func (e *RevertConflictError) Unwrap() error { return errs.ErrRefused }
