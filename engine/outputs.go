package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"cairn/engine/ids"
	"cairn/engine/internal/outputs"
	"cairn/internal/vfs"
)

// Tool outputs: a tool's whole output, kept so that a truncated result can
// point at it (package outputs keeps them and says their format).

// maxOutputSize caps an output's uncompressed size.
const maxOutputSize = 100 << 20

// outputGrace is how long an orphan output folder is kept.
const outputGrace = outputs.Grace

// maxOutputBytes is maxOutputSize, unless a test lowered the store's cap.
func (s *Store) maxOutputBytes() int64 {
	if s.outputCap > 0 {
		return s.outputCap
	}
	return maxOutputSize
}

// OutputMatch is a line of an output that holds the searched text.
type OutputMatch = outputs.Match

// outputNotFound names a missing output; it wraps ErrNotFound. Its own
// type tells a missing output from a missing session (copyOutputs).
type outputNotFound struct{ session, id string }

func (e *outputNotFound) Error() string {
	return fmt.Sprintf("engine: no output %q in session %s", e.id, e.session)
}
func (e *outputNotFound) Unwrap() error { return ErrNotFound }

func isOutputNotFound(err error) bool {
	var nf *outputNotFound
	return errors.As(err, &nf)
}

func outputsDir(dir string) string              { return outputs.Dir(dir) }
func outputDir(dir, session string) string      { return outputs.SessionDir(dir, session) }
func outputName(dir, session, id string) string { return outputs.Name(dir, session, id) }

// PutOutput stores producer's output read from r, durably, and returns its
// id; over maxOutputSize it stores nothing (ErrOutputTooLarge).
func (s *Session) PutOutput(ctx context.Context, producer string, r io.Reader) (string, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return "", fmt.Errorf("engine: session %s is closed", s.st.ID)
	}
	err := s.materializeForItem(ctx)
	if err == nil && s.unrecorded != nil {
		err = fmt.Errorf("engine: session %s is not recorded: %w", s.st.ID, s.unrecorded)
	}
	w, session := s.ws, s.st.ID
	s.mu.Unlock()
	if err != nil {
		return "", err
	}
	return w.s.outputNames.Put(ctx, w.s.fsys, w.dir, session, producer, r, w.s.maxOutputBytes(), ErrOutputTooLarge)
}

// checkOutputRef refuses a session id or output id that could not have been
// made by cairn, before either becomes part of a path.
func checkOutputRef(session, id string) error {
	if !validSessionID(session) {
		return fmt.Errorf("%w: %q is not a session id", ErrBadInput, session)
	}
	if !ids.Valid(id) {
		return fmt.Errorf("%w: %q is not an output id", ErrBadInput, id)
	}
	return nil
}

// openOutput opens output id of session, which must exist.
func (w *Workspace) openOutput(session, id string) (vfs.File, error) {
	if err := checkOutputRef(session, id); err != nil {
		return nil, err
	}
	fsys := w.s.fsys
	if _, err := fsys.Stat(itemsName(w.dir, session)); err != nil {
		if vfs.IsNotExist(err) {
			return nil, fmt.Errorf("%w: %s in %s", ErrNotFound, session, w.path)
		}
		return nil, err
	}
	f, err := fsys.OpenFile(outputName(w.dir, session, id), os.O_RDONLY, 0)
	if vfs.IsNotExist(err) {
		return nil, &outputNotFound{session: session, id: id}
	}
	return f, err
}

// ReadOutput opens output id of session for reading. An id that is not an
// output of that session, including one of another session, is ErrNotFound.
func (w *Workspace) ReadOutput(ctx context.Context, session, id string) (io.ReadCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := w.openOutput(session, id)
	if err != nil {
		if isOutputNotFound(err) && w.trimmed(session) {
			return nil, notFoundf("no output %q in session %s: the session was trimmed to its transcript, which drops its tool outputs (its tool calls keep their text)", id, session)
		}
		return nil, err
	}
	return outputs.NewReader(f, id, w.s.maxOutputBytes(), ErrBadInput)
}

// SearchOutput returns the lines of output id of session that hold substr
// (a plain, case-sensitive substring), in order, with 1-based line numbers.
// Like ReadOutput, it reads only from the output's own session.
func (w *Workspace) SearchOutput(ctx context.Context, session, id, substr string) ([]OutputMatch, error) {
	if substr == "" {
		return nil, fmt.Errorf("%w: empty search text", ErrBadInput)
	}
	rc, err := w.ReadOutput(ctx, session, id)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return outputs.Search(ctx, rc, []byte(substr))
}

// copyOutputs copies the outputs ids of session from into session to under
// the same ids (package outputs). Outputs missing from from are skipped and
// named in an ErrNotFound error returned after the others are copied.
func (w *Workspace) copyOutputs(ctx context.Context, from, to string, outIDs []string) error {
	if !validSessionID(to) {
		return fmt.Errorf("%w: %q is not a session id", ErrBadInput, to)
	}
	for _, id := range outIDs {
		if err := checkOutputRef(from, id); err != nil {
			return err
		}
	}
	open := func(id string) (vfs.File, error) { return w.openOutput(from, id) }
	missing, err := outputs.Copy(ctx, w.s.fsys, w.dir, to, outIDs, open, func(err error) bool { return isNotExist(err) || isOutputNotFound(err) })
	if err != nil {
		return err
	}
	if len(missing) > 0 {
		return notFoundf("session %s holds no output %s", from, strings.Join(missing, ", "))
	}
	return nil
}

// cleanOrphanOutputs removes the output folders whose session has no items
// journal once untouched for grace (outputs.CleanOrphans), and returns
// their names.
func (w *Workspace) cleanOrphanOutputs(ctx context.Context, now time.Time, grace time.Duration) ([]string, error) {
	return outputs.CleanOrphans(ctx, w.s.fsys, w.dir, outputsDir(w.dir), now, grace)
}

// cleanOrphanTasks does for the task folders (tasks/<session>/, task.go)
// what cleanOrphanOutputs does for the output folders.
func (w *Workspace) cleanOrphanTasks(ctx context.Context, now time.Time, grace time.Duration) ([]string, error) {
	return outputs.CleanOrphans(ctx, w.s.fsys, w.dir, tasksDir(w.dir), now, grace)
}

// cleanOutputsOnOpen runs cleanOrphanOutputs with outputGrace the first time
// a session of w is opened through its store (Store.outputsCleaned). It is
// best effort: a failure leaves the orphans for the next store.
func (w *Workspace) cleanOutputsOnOpen(ctx context.Context) {
	if _, done := w.s.outputsCleaned.LoadOrStore(w.dir, struct{}{}); done {
		return
	}
	w.cleanOrphanOutputs(ctx, w.s.Now(), outputGrace)
	w.cleanOrphanTasks(ctx, w.s.Now(), outputGrace)
}
