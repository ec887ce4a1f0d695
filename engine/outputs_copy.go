package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"cairn/internal/vfs"
)

// copyOutputs copies the outputs ids of session from into session to under
// the same ids (a fork keeps the references on its path usable). The stored
// frames are copied as they are; an output to already has is left alone.
// Outputs missing from from are skipped and named in an ErrNotFound error
// returned after the others are copied.
func (w *Workspace) copyOutputs(ctx context.Context, from, to string, outIDs []string) error {
	if !validSessionID(to) {
		return fmt.Errorf("%w: %q is not a session id", ErrBadInput, to)
	}
	for _, id := range outIDs {
		if err := checkOutputRef(from, id); err != nil {
			return err
		}
	}
	fsys := w.s.fsys
	var missing []string
	made := false
	for _, id := range outIDs {
		if err := ctx.Err(); err != nil {
			return err
		}
		dst := outputName(w.dir, to, id)
		if _, err := fsys.Lstat(dst); err == nil {
			continue
		}
		f, err := w.openOutput(from, id)
		if err != nil {
			if isNotExist(err) || isOutputNotFound(err) {
				missing = append(missing, id)
				continue
			}
			return err
		}
		if !made {
			if err := ensureDir(fsys, outputDir(w.dir, to)); err != nil {
				f.Close()
				return fmt.Errorf("engine: output folder: %w", err)
			}
			made = true
		}
		err = vfs.WriteAtomic(fsys, dst, func(wr io.Writer) error {
			_, err := io.Copy(wr, f)
			return err
		})
		f.Close()
		if err != nil {
			return fmt.Errorf("engine: copy output %s: %w", id, err)
		}
	}
	if len(missing) > 0 {
		return notFoundf("session %s holds no output %s", from, strings.Join(missing, ", "))
	}
	return nil
}

func isOutputNotFound(err error) bool {
	var nf *outputNotFound
	return errors.As(err, &nf)
}
