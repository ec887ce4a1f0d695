package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"time"

	"github.com/klauspost/compress/zstd"

	"cairn/engine/ids"
	"cairn/internal/vfs"
)

// Tool outputs: a tool's whole output, kept so that a truncated result can
// point at it. Each is one zstd frame at
//
//	outputs/<session id>/<output id>.zst
//
// in the workspace folder, written whole by atomic rename. The output id is
// ids.OutputHandle of its producer with a collision suffix allocated within
// the session ("output-cargo-test", "output-cargo-test-2"). An output belongs
// to its session: it is read and searched only by naming that session, is
// copied into a fork under the same id, and is deleted with the session. A
// folder whose session has no items journal is an orphan (a failed delete, an
// interrupted write); cleanOrphanOutputs removes it once it is older than a
// grace period.

// Format constants of tool outputs.
const (
	// MaxOutputBytes caps an output's uncompressed size.
	MaxOutputBytes = 100 << 20
	// outputGrace is how long an orphan output folder is kept.
	outputGrace   = 7 * 24 * time.Hour
	outputsFolder = "outputs"
	outputSuffix  = ".zst"
	// outputWindow bounds the memory of an output's encoder and decoder.
	outputWindow = 2 << 20
	// outputMaxWindow is the largest window a reader accepts.
	outputMaxWindow = 64 << 20
)

// maxOutputBytes is MaxOutputBytes, unless a test lowered the store's cap.
func (s *Store) maxOutputBytes() int64 {
	if s.outputCap > 0 {
		return s.outputCap
	}
	return MaxOutputBytes
}

// OutputMatch is a line of an output that holds the searched text.
type OutputMatch struct {
	Line int    `json:"line"` // 1-based
	Text string `json:"text"` // the line without its end, cut to maxMatchText bytes
	Cut  bool   `json:"cut,omitempty"`
}

// maxMatchText is the most bytes of a matching line SearchOutput returns.
const maxMatchText = 4 << 10

// outputNotFound names a missing output; it wraps ErrNotFound. Its own
// type tells a missing output from a missing session (copyOutputs).
type outputNotFound struct{ session, id string }

func (e *outputNotFound) Error() string {
	return fmt.Sprintf("engine: no output %q in session %s", e.id, e.session)
}
func (e *outputNotFound) Unwrap() error { return ErrNotFound }

func outputsDir(dir string) string         { return path.Join(dir, outputsFolder) }
func outputDir(dir, session string) string { return path.Join(dir, outputsFolder, session) }
func outputName(dir, session, id string) string {
	return path.Join(dir, outputsFolder, session, id+outputSuffix)
}

// PutOutput stores the output of producer (a tool name or a shell label)
// read from r and returns its id. The output is durable when PutOutput
// returns. Over MaxOutputBytes, it stores nothing and returns
// ErrOutputTooLarge.
func (s *Session) PutOutput(ctx context.Context, producer string, r io.Reader) (string, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return "", fmt.Errorf("engine: session %s is closed", s.st.id)
	}
	err := s.materializeForItem(ctx)
	if err == nil && s.unrecorded != nil {
		err = fmt.Errorf("engine: session %s is not recorded: %w", s.st.id, s.unrecorded)
	}
	w, session := s.ws, s.st.id
	s.mu.Unlock()
	if err != nil {
		return "", err
	}
	fsys := w.s.fsys
	if err := ensureDir(fsys, outputDir(w.dir, session)); err != nil {
		return "", fmt.Errorf("engine: output folder: %w", err)
	}
	// The store's outputReserved holds the names being written, so two
	// PutOutput calls of a session never pick the same id.
	store := w.s
	store.reservedMu.Lock()
	if store.outputReserved == nil {
		store.outputReserved = map[string]bool{}
	}
	id := ids.Unique(ids.OutputHandle(producer), func(c string) bool {
		if store.outputReserved[outputName(w.dir, session, c)] {
			return true
		}
		_, err := fsys.Lstat(outputName(w.dir, session, c))
		return !vfs.IsNotExist(err)
	})
	name := outputName(w.dir, session, id)
	store.outputReserved[name] = true
	store.reservedMu.Unlock()
	defer func() {
		store.reservedMu.Lock()
		delete(store.outputReserved, name)
		store.reservedMu.Unlock()
	}()
	err = vfs.WriteAtomic(fsys, name, func(f io.Writer) error {
		enc, err := zstd.NewWriter(f, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderCRC(true),
			zstd.WithWindowSize(outputWindow), zstd.WithEncoderConcurrency(1), zstd.WithLowerEncoderMem(true),
			zstd.WithZeroFrames(true))
		if err != nil {
			return err
		}
		if _, err := copyCapped(ctx, enc, r, w.s.maxOutputBytes()); err != nil {
			enc.Close()
			return err
		}
		return enc.Close()
	})
	if err != nil {
		if errors.Is(err, ErrOutputTooLarge) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return "", err
		}
		return "", fmt.Errorf("engine: store output: %w", err)
	}
	return id, nil
}

// copyCapped copies r to w, checking ctx between reads, and fails with
// ErrOutputTooLarge once more than limit bytes arrive.
func copyCapped(ctx context.Context, w io.Writer, r io.Reader, limit int64) (int64, error) {
	buf := make([]byte, 256<<10)
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		k, err := r.Read(buf)
		if k > 0 {
			if n+int64(k) > limit {
				return n, ErrOutputTooLarge
			}
			if _, werr := w.Write(buf[:k]); werr != nil {
				return n, werr
			}
			n += int64(k)
		}
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// ensureDir creates folder name (and parents) if missing and makes the new
// entries durable.
func ensureDir(fsys vfs.FS, name string) error {
	if _, err := fsys.Stat(name); err == nil {
		return nil
	}
	if err := fsys.MkdirAll(name, vfs.DirPerm); err != nil {
		return err
	}
	for d := name; d != "." && d != "/"; {
		parent := path.Dir(d)
		if err := fsys.SyncDir(parent); err != nil {
			return err
		}
		if parent == workspacesDir || parent == "." {
			break
		}
		d = parent
	}
	return nil
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
	d, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(outputMaxWindow),
		zstd.WithDecoderLowmem(true))
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("engine: read output %s: %w", id, err)
	}
	return &outputReader{d: d, f: f, left: w.s.maxOutputBytes(), id: id}, nil
}

// outputReader decompresses an output and refuses to produce more than the
// cap, so a hostile file cannot expand without bound.
type outputReader struct {
	d    *zstd.Decoder
	f    vfs.File
	left int64
	id   string
}

func (o *outputReader) Read(p []byte) (int, error) {
	if o.left <= 0 {
		var one [1]byte
		if n, _ := o.d.Read(one[:]); n > 0 {
			return 0, fmt.Errorf("%w: output %s decompresses past the cap", ErrBadInput, o.id)
		}
		return 0, io.EOF
	}
	if int64(len(p)) > o.left {
		p = p[:o.left]
	}
	n, err := o.d.Read(p)
	o.left -= int64(n)
	if err != nil && !errors.Is(err, io.EOF) {
		err = fmt.Errorf("engine: read output %s: %w", o.id, err)
	}
	return n, err
}

func (o *outputReader) Close() error {
	o.d.Close()
	return o.f.Close()
}
