package outputs

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"sync"
	"time"

	"github.com/klauspost/compress/zstd"

	"cairn/engine/ids"
	"cairn/engine/internal/durable"
	"cairn/engine/internal/layout"
	"cairn/internal/vfs"
)

// Format constants of tool outputs.
const (
	// Grace is how long an orphan output folder is kept.
	Grace  = 7 * 24 * time.Hour
	Suffix = ".zst"
	// window bounds the memory of an output's encoder and decoder.
	window = 2 << 20
	// maxWindow is the largest window a reader accepts.
	maxWindow = 64 << 20
	// MaxMatchText is the most bytes of a matching line Search returns.
	MaxMatchText = 4 << 10
)

// Dir is the outputs folder of workspace folder ws, SessionDir that of
// session, Name that of output id.
func Dir(ws string) string                 { return path.Join(ws, layout.Outputs) }
func SessionDir(ws, session string) string { return path.Join(ws, layout.Outputs, session) }
func Name(ws, session, id string) string {
	return path.Join(ws, layout.Outputs, session, id+Suffix)
}

// Write stores what r holds as output name, one zstd frame written whole
// by atomic rename, durable when it returns. Over limit bytes it stores
// nothing and returns tooLarge.
func Write(ctx context.Context, fsys vfs.FS, name string, r io.Reader, limit int64, tooLarge error) error {
	return vfs.WriteAtomic(fsys, name, func(f io.Writer) error {
		enc, err := zstd.NewWriter(f, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderCRC(true),
			zstd.WithWindowSize(window), zstd.WithEncoderConcurrency(1), zstd.WithLowerEncoderMem(true),
			zstd.WithZeroFrames(true))
		if err != nil {
			return err
		}
		if _, err := copyCapped(ctx, enc, r, limit, tooLarge); err != nil {
			enc.Close()
			return err
		}
		return enc.Close()
	})
}

// copyCapped copies r to w, checking ctx between reads, and fails with
// tooLarge once more than limit bytes arrive.
func copyCapped(ctx context.Context, w io.Writer, r io.Reader, limit int64, tooLarge error) (int64, error) {
	buf := make([]byte, 256<<10)
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		k, err := r.Read(buf)
		if k > 0 {
			if n+int64(k) > limit {
				return n, tooLarge
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

// NewReader decompresses output id read from f, and refuses to produce
// more than limit bytes (an error wrapping badInput), so a hostile file
// cannot expand without bound. Closing it closes f.
func NewReader(f vfs.File, id string, limit int64, badInput error) (io.ReadCloser, error) {
	d, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(maxWindow),
		zstd.WithDecoderLowmem(true))
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("engine: read output %s: %w", id, err)
	}
	return &reader{d: d, f: f, left: limit, id: id, badInput: badInput}, nil
}

type reader struct {
	d        *zstd.Decoder
	f        vfs.File
	left     int64
	id       string
	badInput error
}

func (o *reader) Read(p []byte) (int, error) {
	if o.left <= 0 {
		var one [1]byte
		if n, _ := o.d.Read(one[:]); n > 0 {
			return 0, fmt.Errorf("%w: output %s decompresses past the cap", o.badInput, o.id)
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

func (o *reader) Close() error {
	o.d.Close()
	return o.f.Close()
}

// Match is a line of an output that holds the searched text.
type Match struct {
	Line int    `json:"line"` // 1-based
	Text string `json:"text"` // the line without its end, cut to MaxMatchText bytes
	Cut  bool   `json:"cut,omitempty"`
}

// Search scans r line by line ("\n" ends a line, a "\r" before it is
// dropped) for the lines holding needle. A line is held whole while it is
// searched, so memory is bounded by the longest line, itself bounded by
// the output cap.
func Search(ctx context.Context, r io.Reader, needle []byte) ([]Match, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var (
		out  []Match
		line []byte
		n    int
	)
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if len(line) > 0 {
			n++
			l := bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
			if bytes.Contains(l, needle) {
				m := Match{Line: n}
				if len(l) > MaxMatchText {
					l, m.Cut = l[:MaxMatchText], true
				}
				m.Text = string(l)
				out = append(out, m)
			}
			line = line[:0]
			if n%4096 == 0 {
				if cerr := ctx.Err(); cerr != nil {
					return nil, cerr
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// Copy copies outputs ids from session from into session to of workspace
// folder ws under the same ids (a fork keeps the references on its path
// usable). The stored frames are copied as they are; an output to already
// has is left alone. open opens one of from's outputs; the ids it finds
// missing (missing(err)) are returned, after the others are copied.
func Copy(ctx context.Context, fsys vfs.FS, ws, to string, ids []string, open func(id string) (vfs.File, error), isMissing func(error) bool) (missing []string, err error) {
	made := false
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		dst := Name(ws, to, id)
		if _, err := fsys.Lstat(dst); err == nil {
			continue
		}
		f, err := open(id)
		if err != nil {
			if isMissing(err) {
				missing = append(missing, id)
				continue
			}
			return nil, err
		}
		if !made {
			if err := durable.EnsureDir(fsys, SessionDir(ws, to), layout.Workspaces); err != nil {
				f.Close()
				return nil, fmt.Errorf("engine: output folder: %w", err)
			}
			made = true
		}
		err = vfs.WriteAtomic(fsys, dst, func(wr io.Writer) error {
			_, err := io.Copy(wr, f)
			return err
		})
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("engine: copy output %s: %w", id, err)
		}
	}
	return missing, nil
}

// Names holds the output names being written, so two writers of a session
// never pick the same id. Its zero value is ready; it guards its map with
// its own mutex (a leaf).
type Names struct {
	mu       sync.Mutex
	reserved map[string]bool
}

// Put stores the output of producer (a tool name or a shell label) read
// from r in session's folder of workspace folder ws and returns its id:
// ids.OutputHandle of producer with a collision suffix, reserved in n
// while it is written. Over limit bytes it stores nothing and returns
// tooLarge.
func (n *Names) Put(ctx context.Context, fsys vfs.FS, ws, session, producer string, r io.Reader, limit int64, tooLarge error) (string, error) {
	if err := durable.EnsureDir(fsys, SessionDir(ws, session), layout.Workspaces); err != nil {
		return "", fmt.Errorf("engine: output folder: %w", err)
	}
	n.mu.Lock()
	if n.reserved == nil {
		n.reserved = map[string]bool{}
	}
	id := ids.Unique(ids.OutputHandle(producer), func(c string) bool {
		if n.reserved[Name(ws, session, c)] {
			return true
		}
		_, err := fsys.Lstat(Name(ws, session, c))
		return !vfs.IsNotExist(err)
	})
	name := Name(ws, session, id)
	n.reserved[name] = true
	n.mu.Unlock()
	defer func() {
		n.mu.Lock()
		delete(n.reserved, name)
		n.mu.Unlock()
	}()
	if err := Write(ctx, fsys, name, r, limit, tooLarge); err != nil {
		if errors.Is(err, tooLarge) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return "", err
		}
		return "", fmt.Errorf("engine: store output: %w", err)
	}
	return id, nil
}
