package objects

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"

	"cairn/internal/vfs"
)

// Info describes a stored object.
type Info struct {
	ID         ID
	Size       int64 // of the content, uncompressed
	Stored     int64 // of the file on disk
	Compressed bool  // stored as a zstd frame (".zst")
	Existed    bool  // Put found the object already stored and wrote nothing
}

// tempStem is the stem of Put's temp names in the store folder
// (vfs.TempName): ".put.<pid>-<random>.cairn-tmp".
const tempStem = "put"

// PutBytes stores content b. See Put.
func (s *Store) PutBytes(ctx context.Context, b []byte) (Info, error) {
	return s.putBytes(ctx, b, s.commit)
}

func (s *Store) putBytes(ctx context.Context, b []byte, commit committer) (Info, error) {
	if len(b) > chunk {
		return s.put(ctx, bytes.NewReader(b), commit)
	}
	if err := ctx.Err(); err != nil {
		return Info{}, err
	}
	return s.putSmall(b, commit)
}

// Put stores the content read from r until io.EOF, and returns its Info once
// it is durable. A content the store holds already is not written again
// (Info.Existed). Memory stays bounded whatever the content's size.
func (s *Store) Put(ctx context.Context, r io.Reader) (Info, error) {
	return s.put(ctx, r, s.commit)
}

func (s *Store) put(ctx context.Context, r io.Reader, commit committer) (Info, error) {
	if err := ctx.Err(); err != nil {
		return Info{}, err
	}
	bp := bufs.Get().(*[]byte)
	defer bufs.Put(bp)
	buf := *bp
	n, err := io.ReadFull(r, buf)
	switch err {
	case nil:
		return s.putLarge(ctx, r, buf, commit)
	case io.EOF, io.ErrUnexpectedEOF:
		return s.putSmall(buf[:n], commit)
	default:
		return Info{}, fmt.Errorf("objects: put: %w", err)
	}
}

// existing returns the Info of id if it is stored already and its entry
// is durable as far as this Store knows. An object this Store renamed into
// place without a successful folder sync since (isUnsynced) is not taken:
// the caller writes it again, and that Put's own rename and folder sync
// make it durable. A sync that failed is never retried as if it had worked.
func (s *Store) existing(id ID, size int64) (Info, bool, error) {
	if s.isUnsynced(id) {
		return Info{}, false, nil
	}
	name, stored, err := s.find(id)
	if errors.Is(err, ErrNotFound) {
		return Info{}, false, nil
	}
	if err != nil {
		return Info{}, false, err
	}
	// Used again now: a prune, which removes only objects untouched for
	// days that no line names, leaves it to the line about to name it.
	// Best effort: an object that cannot be touched is still stored.
	vfs.Touch(s.fsys, name)
	return Info{ID: id, Size: size, Stored: stored, Compressed: name != s.Path(id, false), Existed: true}, true, nil
}

// committer takes a written temp file f of object id to its place: the
// Store's commit (durable when it returns), or a Batch's hold (durable at
// its Commit).
type committer func(f vfs.File, id ID, compressed bool) error

// putSmall stores a content of up to a chunk, held in memory, deciding on
// compression exactly.
func (s *Store) putSmall(b []byte, commit committer) (Info, error) {
	id := Sum(b)
	if info, ok, err := s.existing(id, int64(len(b))); ok || err != nil {
		return info, err
	}
	zp := zbufs.Get().(*[]byte)
	z := allEncoder().EncodeAll(b, (*zp)[:0])
	defer func() { *zp = z[:0]; zbufs.Put(zp) }()
	info := Info{ID: id, Size: int64(len(b)), Stored: int64(len(b))}
	data := b
	if Compressible(int64(len(b)), int64(len(z))) {
		data, info.Compressed, info.Stored = z, true, int64(len(z))
	}
	f, err := s.createTemp()
	if err != nil {
		return Info{}, err
	}
	if _, err := f.Write(data); err != nil {
		s.discard(f)
		return Info{}, fmt.Errorf("objects: put: %w", err)
	}
	if err := commit(f, id, info.Compressed); err != nil {
		return Info{}, err
	}
	return info, nil
}

// createTemp creates a temp file in the store folder, making the folder
// first when needed. A Store lives as long as its caller keeps it, so a
// store folder removed since it made it is made again.
func (s *Store) createTemp() (vfs.File, error) {
	if err := s.ensureStore(); err != nil {
		return nil, err
	}
	f, err := vfs.CreateTemp(s.fsys, s.dir, tempStem)
	if vfs.IsNotExist(err) {
		s.mu.Lock()
		s.ready, s.shards = false, [256]bool{}
		s.mu.Unlock()
		if err := s.ensureStore(); err != nil {
			return nil, err
		}
		f, err = vfs.CreateTemp(s.fsys, s.dir, tempStem)
	}
	if err != nil {
		return nil, fmt.Errorf("objects: put: %w", err)
	}
	return f, nil
}

// putLarge stores a content of more than a chunk: first holds its first
// chunk+1 bytes, the rest is streamed from r.
func (s *Store) putLarge(ctx context.Context, r io.Reader, first []byte, commit committer) (Info, error) {
	size := int64(-1) // content size, when r knows it
	if l, ok := r.(interface{ Len() int }); ok {
		size = int64(len(first) + l.Len())
	}
	h := sha256.New()
	h.Write(first)

	// Estimate from the first chunk whether the content compresses: start
	// the frame in memory, and keep it only if that share makes the rule.
	zp := zbufs.Get().(*[]byte)
	sw := &switchWriter{buf: (*zp)[:0]}
	defer func() { *zp = sw.buf[:0]; zbufs.Put(zp) }()
	enc := getStreamEncoder(sw, size)
	// enc is released once: here on every early return, or where it is
	// done with (enc set to nil).
	defer func() {
		if enc != nil {
			putStreamEncoder(enc)
		}
	}()
	_, err := enc.Write(first)
	if err == nil {
		err = enc.Flush()
	}
	compress := err == nil && Compressible(int64(len(first)), int64(len(sw.buf)))
	if !compress {
		putStreamEncoder(enc)
		enc = nil
	}

	f, err := s.createTemp()
	if err != nil {
		return Info{}, err
	}
	// Gather the encoder's blocks into fewer, larger writes.
	bw := getBufWriter(f)
	defer putBufWriter(bw)
	var w io.Writer = bw
	if compress {
		bw.Write(sw.buf)
		sw.w, w = bw, enc
	} else {
		bw.Write(first)
	}
	fail := func(err error) (Info, error) {
		s.discard(f)
		return Info{}, err
	}
	n := int64(len(first))
	for {
		if err := ctx.Err(); err != nil {
			return fail(err)
		}
		m, err := io.ReadFull(r, first)
		if m > 0 {
			h.Write(first[:m])
			if _, werr := w.Write(first[:m]); werr != nil {
				return fail(fmt.Errorf("objects: put: %w", werr))
			}
			n += int64(m)
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return fail(fmt.Errorf("objects: put: %w", err))
		}
	}
	if enc != nil {
		err := enc.Close()
		putStreamEncoder(enc)
		enc = nil
		if err != nil {
			return fail(fmt.Errorf("objects: put: %w", err))
		}
	}
	if err := bw.Flush(); err != nil {
		return fail(fmt.Errorf("objects: put: %w", err))
	}
	var id ID
	h.Sum(id[:0])
	stored, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return fail(fmt.Errorf("objects: put: %w", err))
	}
	if compress && !Compressible(n, stored) {
		// The estimate was wrong: store it raw, so every .zst object
		// saves an eighth.
		if f, err = s.decompressTemp(f, id, first); err != nil {
			return Info{}, err
		}
		compress, stored = false, n
	}
	if info, ok, err := s.existing(id, n); ok || err != nil {
		s.discard(f)
		return info, err
	}
	if err := commit(f, id, compress); err != nil {
		return Info{}, err
	}
	return Info{ID: id, Size: n, Stored: stored, Compressed: compress}, nil
}

// decompressTemp decodes temp file zf into a new temp file, checks it hashes
// to id, discards zf and returns the new one. buf is scratch space.
func (s *Store) decompressTemp(zf vfs.File, id ID, buf []byte) (vfs.File, error) {
	defer s.discard(zf)
	if _, err := zf.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("objects: put: %w", err)
	}
	f, err := vfs.CreateTemp(s.fsys, s.dir, tempStem)
	if err != nil {
		return nil, fmt.Errorf("objects: put: %w", err)
	}
	d, err := getDecoder(zf)
	if err != nil {
		s.discard(f)
		return nil, fmt.Errorf("objects: put: %w", err)
	}
	defer putDecoder(d)
	h := sha256.New()
	// struct{ io.Reader } hides the decoder's WriteTo, so CopyBuffer uses
	// buf rather than the decoder's own buffers.
	if _, err := io.CopyBuffer(io.MultiWriter(f, h), struct{ io.Reader }{d}, buf); err != nil {
		s.discard(f)
		return nil, fmt.Errorf("objects: put: %w", err)
	}
	var got ID
	if h.Sum(got[:0]); got != id {
		s.discard(f)
		return nil, mismatch(id, errors.New("decompressing a temp file"))
	}
	return f, nil
}

// commit makes temp file f durable as object id: sync, close, rename into
// the shard, sync the shard folder. On an error before the rename f is
// removed and the object's name untouched. When the folder sync fails the
// object stays: another writer (another process) may have stored the same
// content under that name already, and a journal may name it; this Store
// remembers the entry is not known durable and the next Put of the content
// writes it again.
func (s *Store) commit(f vfs.File, id ID, compressed bool) error {
	tmp := f.Name()
	defer vfs.ReleaseTemp(tmp)
	if err := f.Sync(); err != nil {
		s.discard(f)
		return fmt.Errorf("objects: put: %w", err)
	}
	if err := f.Close(); err != nil {
		s.fsys.Remove(tmp)
		return fmt.Errorf("objects: put: %w", err)
	}
	if err := s.place(tmp, id, compressed); err != nil {
		return err
	}
	if err := s.fsys.SyncDir(s.shardDir(id)); err != nil {
		// The entry may not be durable, but the file stays (see above):
		// id is left marked unsynced.
		return fmt.Errorf("objects: put: %w", err)
	}
	s.synced(id)
	return nil
}

// place renames temp file tmp, closed and its data durable, into its
// shard as object id. The entry is durable once the shard folder is synced:
// until then id is marked unsynced. On an error tmp is removed.
func (s *Store) place(tmp string, id ID, compressed bool) error {
	if err := s.ensureShard(id); err != nil {
		s.fsys.Remove(tmp)
		return err
	}
	name := s.Path(id, compressed)
	// Until the folder sync succeeds, a Put of the same content in this
	// Store (another goroutine) must not take the entry as durable.
	s.markUnsynced(id)
	err := s.fsys.Rename(tmp, name)
	if vfs.IsNotExist(err) {
		// The shard folder went away under us (a prune removed it empty):
		// make it again.
		s.forgetShard(id)
		if err = s.ensureShard(id); err == nil {
			err = s.fsys.Rename(tmp, name)
		}
	}
	if err != nil {
		s.fsys.Remove(tmp)
		return fmt.Errorf("objects: put: %w", err)
	}
	return nil
}

// discard closes and removes a temp file.
func (s *Store) discard(f vfs.File) {
	f.Close()
	s.fsys.Remove(f.Name())
	vfs.ReleaseTemp(f.Name())
}

// switchWriter collects what is written to it in memory until w is set,
// then passes it on to w.
type switchWriter struct {
	buf []byte
	w   io.Writer
}

func (s *switchWriter) Write(p []byte) (int, error) {
	if s.w != nil {
		return s.w.Write(p)
	}
	s.buf = append(s.buf, p...)
	return len(p), nil
}
