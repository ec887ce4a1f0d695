package snapshot

import (
	"context"
	"fmt"
	"strings"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/errs"
	"cairn/engine/internal/fstate"
	"cairn/internal/vfs"
	"cairn/objects"
)

// Capturing pre-images, for the file tools and Session.Change alike: each
// file's state before the change, stored as an object or inline, and the
// required ones that could not be captured, which refuse the change (the
// engine writes the evidence line and the audit event).

// RequiredError is the refusal of an edit whose required pre-images could
// not be captured (snapshots.required). It wraps ErrRefused.
type RequiredError struct {
	Tool  string
	Files []RequiredFile
}

// RequiredFile is one file of a RequiredError and why it was not captured.
type RequiredFile struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

func (e *RequiredError) Error() string { return errs.RefusedText(e.Why()) }

// Why is what the refusal says after the word.
func (e *RequiredError) Why() string {
	parts := make([]string, len(e.Files))
	for i, f := range e.Files {
		parts[i] = f.Path + " (" + f.Reason + ")"
	}
	return fmt.Sprintf("snapshots.required: the %s tool may not change %s: its snapshot cannot be taken",
		e.Tool, strings.Join(parts, ", "))
}

func (e *RequiredError) Unwrap() error { return errs.ErrRefused }

// PreImages captures the pre-images of one change and collects the files
// it skipped and the required ones it could not capture.
type PreImages struct {
	// Required reports whether snapshots.required covers a file.
	Required func(rel string) bool
	MaxFile  int64          // snapshots.max_file_bytes
	On       bool           // snapshots on
	Objs     *objects.Store // nil when the store cannot be used
	StoreErr error          // why not
	PutErr   error          // why the last pre-image was not stored
	Put      fstate.Sink
	Skipped  []string
	Denied   []RequiredFile
	// Check, when set, sees a file's content and mode as it is captured,
	// before it is stored; its error (CheckErr) stops the capture.
	Check    func(data []byte, mode string) error
	CheckErr error
}

// Capture records the pre-image of rel and returns its change file. With
// snapshots off nothing is read, but a required file that exists is denied.
func (p *PreImages) Capture(ctx context.Context, fsys vfs.FS, rel string) changes.FileChange {
	f := changes.FileChange{Path: rel}
	req := p.Required(rel)
	if !p.On {
		if _, err := fsys.Lstat(rel); req && !vfs.IsNotExist(err) {
			p.Denied = append(p.Denied, RequiredFile{Path: rel, Reason: "snapshots are off"})
		}
		return f
	}
	put := p.Put
	if put != nil && p.Check != nil {
		put = func(b []byte, mode string) (*fstate.State, error) {
			if p.CheckErr = p.Check(b, mode); p.CheckErr != nil {
				return nil, p.CheckErr
			}
			return p.Put(b, mode)
		}
	}
	ref, cerr := fstate.Capture(ctx, fsys, put, rel, p.MaxFile)
	f.Before = ref
	if ref.IsSkipped() && ref.Skipped == fstate.SkipStore {
		p.PutErr = cerr
		if p.StoreErr != nil {
			p.PutErr = p.StoreErr
		}
	}
	if ref.IsSkipped() {
		p.Skipped = append(p.Skipped, rel)
		if req {
			reason := ref.Skipped
			switch {
			case ref.Skipped == fstate.SkipTooLarge:
				reason = fmt.Sprintf("too large: %d bytes, max_file_bytes is %d", ref.Size, p.MaxFile)
			case p.StoreErr != nil:
				reason += ": " + p.StoreErr.Error()
			case cerr != nil:
				reason += ": " + cerr.Error()
			}
			p.Denied = append(p.Denied, RequiredFile{Path: rel, Reason: reason})
		}
	}
	return f
}
