package journal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"sync"
	"time"

	"cairn/internal/vfs"
)

// MaxLine is the default line cap: the most bytes a line may hold, without
// its "\n". Part of the format: readers of other tools may rely on it.
const MaxLine = 16 << 20

// SyncPolicy says when a Writer makes its lines durable.
type SyncPolicy int

const (
	// SyncEvery fsyncs after each append.
	SyncEvery SyncPolicy = iota
	// SyncManual leaves the fsync to the caller, who calls Sync once per
	// turn.
	SyncManual
)

// Options tune a Writer. The zero value is SyncEvery, MaxLine, time.Now.
type Options struct {
	Sync SyncPolicy
	// MaxLine is the line cap; <= 0 means MaxLine.
	MaxLine int
	// Now is the clock of repair lines; nil means time.Now.
	Now func() time.Time
	// Exclusive is for a journal several processes append to: the Writer
	// holds an exclusive lock on the file (vfs.LockFile) from before it
	// looks for a torn tail until Unlock or Close, so it never cuts another
	// process's line while that one is being written.
	Exclusive bool
}

// Writer appends lines to one journal. It is safe for use by several
// goroutines; each line is one write call.
type Writer struct {
	mu     sync.Mutex
	fsys   vfs.FS
	name   string
	f      vfs.File
	opt    Options
	size   int64
	dirty  bool // written since the last sync
	broken error
	closed bool
	buf    bytes.Buffer
	enc    *json.Encoder
	line   []byte       // an Appender's line, reused
	unlock func() error // releases the Exclusive lock
}

// Unlock releases the lock an Exclusive Writer holds, once its lines are
// written, so other writers need not wait for its Sync; Close releases it
// too. The Writer goes on writing: call it when done appending.
func (w *Writer) Unlock() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.unlock()
}

// OpenWriter opens the journal name for appending, creating it (mode 0600)
// if missing, and syncing its folder when it did. If the journal ends in a torn
// tail, OpenWriter truncates the file to its last complete line, syncs it,
// appends a repair line and syncs again; Repair says how many bytes it cut
// (zero if none).
func OpenWriter(fsys vfs.FS, name string, opt Options) (*Writer, Repair, error) {
	if opt.MaxLine <= 0 {
		opt.MaxLine = MaxLine
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	f, err := openOrCreate(fsys, name)
	if err != nil {
		return nil, Repair{}, err
	}
	unlock := func() error { return nil }
	if opt.Exclusive {
		if unlock, err = vfs.LockFile(f); err != nil {
			f.Close()
			return nil, Repair{}, fmt.Errorf("journal: lock %s: %w", name, err)
		}
	}
	w := &Writer{fsys: fsys, name: name, f: f, opt: opt, unlock: unlock}
	w.enc = json.NewEncoder(&w.buf)
	rep, err := w.repair()
	if err != nil {
		f.Close()
		return nil, Repair{}, err
	}
	return w, rep, nil
}

// openOrCreate opens name for appending, or creates it and syncs its folder.
func openOrCreate(fsys vfs.FS, name string) (vfs.File, error) {
	const flag = os.O_RDWR | os.O_APPEND
	for {
		f, err := fsys.OpenFile(name, flag, 0)
		if !vfs.IsNotExist(err) {
			return f, err
		}
		f, err = fsys.OpenFile(name, flag|os.O_CREATE|os.O_EXCL, vfs.FilePerm)
		if vfs.IsExist(err) {
			continue // created by someone else meanwhile: open it
		}
		if err != nil {
			return nil, err
		}
		if err := fsys.SyncDir(path.Dir(name)); err != nil {
			f.Close()
			return nil, err
		}
		return f, nil
	}
}

// Append writes v as one line: json.Marshal's bytes (or an Appender's) and
// "\n", in one write, synced under SyncEvery. v must marshal to a JSON
// object. A marshal error or an over-long line writes nothing and leaves the
// Writer usable; a write or fsync error breaks it (see ErrBroken).
func (w *Writer) Append(v any) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.usable(); err != nil {
		return err
	}
	var line []byte
	if a, ok := v.(Appender); ok {
		if b, ok := a.AppendJSON(w.line[:0]); ok {
			w.line = append(b, '\n')
			line = w.line
		}
	}
	if line == nil {
		w.buf.Reset()
		if err := w.enc.Encode(v); err != nil { // json.Marshal's bytes and "\n"
			return fmt.Errorf("journal: append to %s: %w", w.name, err)
		}
		line = w.buf.Bytes()
	}
	if err := w.check(line[:len(line)-1]); err != nil {
		return err
	}
	return w.write(line)
}

// Appender is a line that encodes itself, for a hot path where the
// reflection of encoding/json costs more than the write (an item of a
// turn). AppendJSON appends one JSON object, compact and without "\n", to
// b; ok false leaves the line to encoding/json (a field it does not
// encode, or one that fails to: Append then returns encoding/json's
// error). The object reads back as encoding/json's would; strings need not
// escape HTML characters.
type Appender interface {
	AppendJSON(b []byte) (line []byte, ok bool)
}

// AppendLine writes line, one JSON object already encoded and without the
// "\n", as one line. A line holding "\n", or not a JSON object, is refused
// with ErrBadLine.
func (w *Writer) AppendLine(line []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.usable(); err != nil {
		return err
	}
	if err := w.check(line); err != nil {
		return err
	}
	if bytes.IndexByte(line, '\n') >= 0 {
		return fmt.Errorf("%w: line holds a newline", ErrBadLine)
	}
	if msg := checkLine(line); msg != "" {
		return fmt.Errorf("%w: %s", ErrBadLine, msg)
	}
	w.buf.Reset()
	w.buf.Write(line)
	w.buf.WriteByte('\n')
	return w.write(w.buf.Bytes())
}

// check applies the line cap and the object rule that holds for both appends.
func (w *Writer) check(line []byte) error {
	if len(line) > w.opt.MaxLine {
		return fmt.Errorf("%w: %d bytes, cap %d", ErrLineTooLong, len(line), w.opt.MaxLine)
	}
	if len(line) == 0 || line[0] != '{' {
		return fmt.Errorf("%w: not a JSON object", ErrBadLine)
	}
	return nil
}

// write writes one whole line, with its "\n", in one call.
func (w *Writer) write(b []byte) error {
	n, err := w.f.Write(b)
	w.size += int64(n)
	if err == nil && n < len(b) {
		err = io.ErrShortWrite
	}
	if err != nil {
		return w.fail("append to", err)
	}
	w.dirty = true
	if w.opt.Sync == SyncEvery {
		return w.sync()
	}
	return nil
}

// Sync makes every line appended so far durable. It does nothing when no line
// was appended since the last sync.
func (w *Writer) Sync() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.usable(); err != nil {
		return err
	}
	return w.sync()
}

func (w *Writer) sync() error {
	if !w.dirty {
		return nil
	}
	if err := w.f.Sync(); err != nil {
		return w.fail("sync", err)
	}
	w.dirty = false
	return nil
}

// fail breaks the Writer with err and returns it, named.
func (w *Writer) fail(op string, err error) error {
	err = fmt.Errorf("journal: %s %s: %w", op, w.name, err)
	w.broken = err
	return err
}

// usable returns why the Writer cannot be used, or nil.
func (w *Writer) usable() error {
	switch {
	case w.closed:
		return ErrClosed
	case w.broken != nil:
		return fmt.Errorf("%w: %w", ErrBroken, w.broken)
	}
	return nil
}

// Size is the size of the journal in bytes: the offset the next line will
// start at.
func (w *Writer) Size() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.size
}

// Name is the journal's name in its FS.
func (w *Writer) Name() string { return w.name }

// CloseUnsynced closes the file without syncing the lines appended since
// the last Sync, for a caller that makes them durable another way (a later
// fsync of the file, or a repair from another journal). It releases the
// Exclusive lock too.
func (w *Writer) CloseUnsynced() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	return w.f.Close()
}

// Close syncs lines not yet synced (unless the Writer is broken) and closes
// the file. A broken Writer closes without an error: its error was returned
// already.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	var err error
	if w.broken == nil {
		err = w.sync()
	}
	if cerr := w.f.Close(); err == nil && w.broken == nil {
		err = cerr
	}
	return err
}
