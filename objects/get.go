package objects

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"sync"

	"github.com/klauspost/compress/zstd"

	"cairn/internal/vfs"
)

// Get opens object id for reading. The reader verifies: at the end of the
// content it returns io.EOF only if what it returned hashes to id, and an
// error wrapping ErrMismatch otherwise (also for a compressed file that does
// not decode). A missing object is an error wrapping ErrNotFound. Reads fail
// with ctx's error once ctx is done. Close the reader.
func (s *Store) Get(ctx context.Context, id ID) (io.ReadCloser, error) {
	rc, err := s.get(ctx, id)
	if errors.Is(err, ErrNotFound) {
		if ok, ferr := s.fetch(ctx, id); ferr != nil {
			return nil, ferr
		} else if ok {
			return s.get(ctx, id)
		}
	}
	return rc, err
}

// get opens object id from the folder alone.
func (s *Store) get(ctx context.Context, id ID) (io.ReadCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, z := range [2]bool{false, true} {
		f, err := s.fsys.OpenFile(s.Path(id, z), os.O_RDONLY, 0)
		if vfs.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("objects: %w", err)
		}
		r := &reader{ctx: ctx, id: id, f: f, h: sha256.New()}
		r.src = f
		if z {
			r.fr = &errReader{r: f}
			d, err := getDecoder(r.fr)
			if err != nil {
				f.Close()
				return nil, mismatch(id, err)
			}
			r.dec, r.src = d, d
		}
		return r, nil
	}
	return nil, notFound(id)
}

// reader is the verifying reader Get returns.
type reader struct {
	ctx context.Context
	id  ID
	f   vfs.File
	fr  *errReader    // f as the decoder sees it, compressed only
	dec *zstd.Decoder // compressed only
	src io.Reader     // f or dec
	h   hash.Hash
	err error // sticky: the end (io.EOF or a mismatch) or a failure
}

func (r *reader) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	if err := r.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := r.src.Read(p)
	r.h.Write(p[:n])
	switch {
	case err == nil:
	case errors.Is(err, io.EOF):
		var got ID
		if r.h.Sum(got[:0]); got != r.id {
			err = mismatch(r.id, nil)
		}
		r.err = err
	case r.dec != nil && r.fr.err == nil:
		// The decoder failed, not the file: the frame is corrupt.
		err = mismatch(r.id, err)
		r.err = err
	case r.dec != nil:
		err = fmt.Errorf("objects: %s: %w", r.id, r.fr.err)
		r.err = err
	default:
		err = fmt.Errorf("objects: %s: %w", r.id, err)
		r.err = err
	}
	return n, err
}

func (r *reader) Close() error {
	if r.dec != nil {
		putDecoder(r.dec)
		r.dec = nil
	}
	if r.err == nil {
		r.err = errors.New("objects: read after close")
	}
	return r.f.Close()
}

// errReader remembers the first error of a file other than io.EOF, to tell
// a failing disk from a corrupt frame.
type errReader struct {
	r   io.Reader
	err error
}

func (e *errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) && e.err == nil {
		e.err = err
	}
	return n, err
}

// ReadAll reads and verifies object id whole. An object larger than limit
// bytes is refused with an error wrapping ErrTooLarge.
func (s *Store) ReadAll(ctx context.Context, id ID, limit int64) ([]byte, error) {
	// A payload is most often stored compressed: its frame is opened
	// straight away, without looking for the raw name first (find walks
	// the path twice). Where both names exist they hold the same content,
	// which is verified either way.
	// A compressed copy that fails its check is not the last word: Get
	// reads the raw name first, so a good raw copy beside it is read here
	// too (find looks at the raw name first).
	if b, done, err := s.readFrame(ctx, id, limit); done && !errors.Is(err, ErrMismatch) {
		return b, err
	}
	name, stored, err := s.find(id)
	if errors.Is(err, ErrNotFound) {
		if ok, ferr := s.fetch(ctx, id); ferr != nil {
			return nil, ferr
		} else if ok {
			name, stored, err = s.find(id)
		}
	}
	if err != nil {
		return nil, err
	}
	info, err := s.statFile(id, name, stored, false)
	if err != nil {
		return nil, err
	}
	if info.Size > limit {
		return nil, fmt.Errorf("objects: %s: %w (%d bytes, at most %d)", id, ErrTooLarge, info.Size, limit)
	}
	if !info.Compressed && stored <= wholeMax {
		return s.readWhole(ctx, id, name, stored, info)
	}
	rc, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b := make([]byte, 0, max(info.Size, 512)+1) // the size, or unknown (-1)
	for {
		if int64(len(b)) > limit {
			return nil, fmt.Errorf("objects: %s: %w (more than %d bytes)", id, ErrTooLarge, limit)
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := rc.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if errors.Is(err, io.EOF) {
			if int64(len(b)) > limit {
				return nil, fmt.Errorf("objects: %s: %w (more than %d bytes)", id, ErrTooLarge, limit)
			}
			return b, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// Verify reads object id whole and checks it hashes to id. It returns nil,
// an error wrapping ErrMismatch or ErrNotFound, or the error of the read.
func (s *Store) Verify(ctx context.Context, id ID) error {
	rc, err := s.Get(ctx, id)
	if err != nil {
		return err
	}
	defer rc.Close()
	bp := bufs.Get().(*[]byte)
	defer bufs.Put(bp)
	_, err = io.CopyBuffer(io.Discard, struct{ io.Reader }{rc}, *bp)
	return err
}

// wholeMax is the largest stored file ReadAll reads in one go and decodes
// with one DecodeAll call, which is several times faster than streaming;
// larger ones stream.
const wholeMax = 64 << 20

// allDecoders decode whole frames (DecodeAll) without goroutines of their own.
var allDecoders = sync.Pool{New: func() any {
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(maxWindow))
	if err != nil {
		panic(err)
	}
	return d
}}

// readWhole reads a raw stored file whole and verifies it against id.
func (s *Store) readWhole(ctx context.Context, id ID, name string, stored int64, info Info) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := s.fsys.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("objects: %w", err)
	}
	defer f.Close()
	b := make([]byte, stored)
	if _, err := io.ReadFull(f, b); err != nil {
		return nil, mismatch(id, err)
	}
	return b, verifyWhole(id, b, info.Size)
}

// readFrame reads id's compressed file whole, with one open: its size from
// the frame header read from the buffer, checked against limit, then
// decoded with one DecodeAll call and verified against id. done is false,
// with nothing read back, when there is no such regular file, when it is
// over wholeMax, or when the header gives no content size: ReadAll then
// goes the general way.
func (s *Store) readFrame(ctx context.Context, id ID, limit int64) (b []byte, done bool, err error) {
	if err := ctx.Err(); err != nil {
		return nil, true, err
	}
	f, err := s.fsys.OpenFile(s.Path(id, true), os.O_RDONLY, 0)
	if err != nil {
		return nil, false, nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > wholeMax {
		return nil, false, nil
	}
	stored := fi.Size()
	// The frame is read into a reused buffer: only the content is kept,
	// so a resume that reads a gigabyte of payloads leaves no frames
	// behind for the collector.
	rp := frameBuf(stored)
	defer putFrameBuf(rp)
	raw := (*rp)[:stored]
	if _, err := io.ReadFull(f, raw); err != nil {
		return nil, true, mismatch(id, err)
	}
	var h zstd.Header
	if err := h.Decode(raw[:min(len(raw), zstd.HeaderMaxSize)]); err != nil {
		return nil, true, mismatch(id, err)
	}
	if !h.HasFCS {
		return nil, false, nil
	}
	size := int64(h.FrameContentSize)
	if size > limit {
		return nil, true, fmt.Errorf("objects: %s: %w (%d bytes, at most %d)", id, ErrTooLarge, size, limit)
	}
	d := allDecoders.Get().(*zstd.Decoder)
	// A little room past the content lets the decoder use its fast
	// copies to the very end (it copies in 16-byte strides).
	b, err = d.DecodeAll(raw, make([]byte, 0, size+decodeSlack))
	allDecoders.Put(d)
	if err != nil {
		return nil, true, mismatch(id, err)
	}
	return b, true, verifyWhole(id, b, size)
}

// verifyWhole checks a content read whole against its size and ID.
func verifyWhole(id ID, b []byte, size int64) error {
	if int64(len(b)) != size || Sum(b) != id {
		return mismatch(id, nil)
	}
	return nil
}

// frameBufs hold the stored frames readWhole decodes. A buffer over
// frameBufMax is not kept, so the pool holds a few MiB at most.
var frameBufs sync.Pool

const frameBufMax = 4 << 20

func frameBuf(n int64) *[]byte {
	if p, ok := frameBufs.Get().(*[]byte); ok && int64(cap(*p)) >= n {
		return p
	}
	b := make([]byte, n) // one too small is dropped: the sizes in use take over
	return &b
}

func putFrameBuf(p *[]byte) {
	if cap(*p) <= frameBufMax {
		frameBufs.Put(p)
	}
}

// decodeSlack is the spare capacity given to DecodeAll's output.
const decodeSlack = 64
