package objects

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
)

// PutStored stores object id from its stored form read from r until io.EOF:
// a zstd frame of the content when compressed is set (what another store
// keeps as "<id>.zst"), else the content itself. This is how a copy fetched
// from a remote is kept: the bytes go to disk as they came, not compressed
// again, while they are decoded and hashed on the way. A stored form that
// does not decode, or whose content does not hash to id, is refused with
// an error wrapping ErrMismatch, and nothing is left under id's name; an
// error reading r is returned as it is, with the same result. The object
// is durable when PutStored returns, as with Put; one the store holds
// already is not written again (Info.Existed).
//
// A compressed form is kept only if it is one frame (when its header
// gives the content's size, that size is checked) and meets the store's
// rule (Compressible); one that does not is stored raw.
func (s *Store) PutStored(ctx context.Context, id ID, compressed bool, r io.Reader) (Info, error) {
	return s.putStored(ctx, id, compressed, r, s.commit)
}

// PutStored stores object id from its stored form, as Store.PutStored,
// durable once Commit returns nil.
func (b *Batch) PutStored(ctx context.Context, id ID, compressed bool, r io.Reader) (Info, error) {
	b.start()
	return b.s.putStored(ctx, id, compressed, r, b.hold)
}

// CheckStored reads the stored form of object id from r until io.EOF, as
// PutStored would store it, and returns its Info without storing
// anything (Existed false): a remote's check of the copies it holds.
func CheckStored(id ID, compressed bool, r io.Reader) (Info, error) {
	bp := bufs.Get().(*[]byte)
	defer bufs.Put(bp)
	size, stored, _, err := copyStored(io.Discard, id, compressed, r, *bp)
	if err != nil {
		return Info{}, err
	}
	return Info{ID: id, Size: size, Stored: stored, Compressed: compressed}, nil
}

func (s *Store) putStored(ctx context.Context, id ID, compressed bool, r io.Reader, commit committer) (Info, error) {
	if err := ctx.Err(); err != nil {
		return Info{}, err
	}
	if info, ok, err := s.existingStored(id); ok || err != nil {
		return info, err
	}
	f, err := s.createTemp()
	if err != nil {
		return Info{}, err
	}
	fail := func(err error) (Info, error) {
		s.discard(f)
		return Info{}, err
	}
	bp := bufs.Get().(*[]byte)
	defer bufs.Put(bp)
	bw := getBufWriter(f)
	defer putBufWriter(bw)
	size, stored, keep, err := copyStored(bw, id, compressed, &ctxReader{ctx: ctx, r: r}, *bp)
	if err == nil {
		if err = bw.Flush(); err != nil {
			err = fmt.Errorf("objects: put: %w", err)
		}
	}
	if err != nil {
		return fail(err)
	}
	if compressed && !keep {
		// Not a form this store keeps compressed: store the content raw.
		if f, err = s.decompressTemp(f, id, *bp); err != nil {
			return Info{}, err
		}
		compressed, stored = false, size
	}
	// Unlike Put, the object's name was known, and looked for, before
	// anything was read: a writer that stored it since wrote the same
	// content, and the rename replaces its file with an equal one (or
	// puts the other form beside it, as two Puts at once may).
	if err := commit(f, id, compressed); err != nil {
		return Info{}, err
	}
	return Info{ID: id, Size: size, Stored: stored, Compressed: compressed}, nil
}

// existingStored is existing for an object whose content size is not
// known before it is read: the Info has the size the stored file gives.
func (s *Store) existingStored(id ID) (Info, bool, error) {
	info, ok, err := s.existing(id, -1)
	if !ok || err != nil || !info.Compressed {
		if ok {
			info.Size = info.Stored
		}
		return info, ok, err
	}
	st, err := s.statFile(id, s.Path(id, true), info.Stored, true)
	if err != nil {
		// A damaged file under the name: write it again.
		return Info{}, false, nil
	}
	info.Size = st.Size
	return info, true, nil
}

// copyStored copies the stored form of object id from r to w until io.EOF,
// decoding it (compressed) and hashing the content on the way. It returns
// the content's size, the stored size, and, for a compressed form, whether
// the store keeps it as it is (one frame, saving an eighth). A form that
// does not decode or hash to id is an error wrapping ErrMismatch; an
// error of r or w is returned wrapped as it is. buf is scratch space.
func copyStored(w io.Writer, id ID, compressed bool, r io.Reader, buf []byte) (size, stored int64, keep bool, err error) {
	src := &storedReader{r: r}
	tee := io.TeeReader(src, &errWriter{w: w, src: src})
	h := sha256.New()
	if compressed {
		d, derr := getDecoder(tee)
		if derr == nil {
			// struct{ io.Writer } hides the hash's ReadFrom, so the decoder
			// writes its blocks straight into it.
			size, derr = d.WriteTo(struct{ io.Writer }{h})
			putDecoder(d)
		}
		if derr == nil {
			// The decoder stops at the end of its last frame: anything
			// after it is not a stored form.
			var n int
			n, derr = tee.Read(buf[:1])
			if n > 0 {
				derr = errors.New("data after the end of the frame")
			} else if errors.Is(derr, io.EOF) {
				derr = nil
			}
		}
		if derr != nil {
			if src.err != nil {
				return 0, 0, false, fmt.Errorf("objects: %s: %w", id, src.err)
			}
			return 0, 0, false, mismatch(id, derr)
		}
	} else {
		// struct{ io.Reader } hides TeeReader's lack of WriteTo and keeps
		// CopyBuffer on buf.
		size, err = io.CopyBuffer(h, struct{ io.Reader }{tee}, buf)
		if err != nil {
			return 0, 0, false, fmt.Errorf("objects: %s: %w", id, err)
		}
	}
	if src.err != nil {
		return 0, 0, false, fmt.Errorf("objects: %s: %w", id, src.err)
	}
	var got ID
	if h.Sum(got[:0]); got != id {
		return 0, 0, false, mismatch(id, fmt.Errorf("the content hashes to %s", got))
	}
	if compressed {
		var hdr zstd.Header
		if err := hdr.Decode(src.head[:src.nhead]); err != nil {
			return 0, 0, false, mismatch(id, err)
		}
		// A header whose size is not the content's starts a frame that
		// is not the whole: more than one frame.
		keep = (!hdr.HasFCS || int64(hdr.FrameContentSize) == size) && Compressible(size, src.n)
	}
	return size, src.n, keep, nil
}

// storedReader counts what it reads, keeps its first bytes (a frame's
// header) and remembers the first error other than io.EOF, of r or of
// the writer the bytes are copied to: a failure to read or store is told
// from a stored form that is wrong.
type storedReader struct {
	r     io.Reader
	n     int64
	head  [zstd.HeaderMaxSize]byte
	nhead int
	err   error
}

func (s *storedReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if s.nhead < len(s.head) {
		s.nhead += copy(s.head[s.nhead:], p[:n])
	}
	s.n += int64(n)
	if err != nil && !errors.Is(err, io.EOF) && s.err == nil {
		s.err = err
	}
	return n, err
}

// errWriter passes writes to w and records a failure in src.
type errWriter struct {
	w   io.Writer
	src *storedReader
}

func (e *errWriter) Write(p []byte) (int, error) {
	n, err := e.w.Write(p)
	if err != nil && e.src.err == nil {
		e.src.err = fmt.Errorf("put: %w", err)
	}
	return n, err
}

// ctxReader fails with ctx's error once ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
