package objects

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"syscall"
	"testing"

	"github.com/klauspost/compress/zstd"

	"cairn/internal/vfs"
)

// storedForm is the stored form of content b as a store keeps it: whether
// it is compressed, and the file's bytes.
func storedForm(t *testing.T, b []byte) (bool, []byte) {
	t.Helper()
	m := vfs.NewMem()
	s := New(m, "src")
	info, err := s.PutBytes(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	f, err := vfs.ReadFile(m, s.Path(info.ID, info.Compressed))
	if err != nil {
		t.Fatal(err)
	}
	return info.Compressed, f
}

// otherEncoding compresses b as no Put would: the default level, and no
// content size in the header.
func otherEncoding(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	e, err := zstd.NewWriter(&out, zstd.WithEncoderLevel(zstd.SpeedDefault))
	if err != nil {
		t.Fatal(err)
	}
	e.Write(b)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// putStoredForms are stored forms PutStored keeps byte for byte: each
// shape of Put's, and a frame no Put of this store writes.
func putStoredForms(t *testing.T) map[string]struct {
	content, form []byte
	compressed    bool
} {
	out := map[string]struct {
		content, form []byte
		compressed    bool
	}{}
	contents := crashContents()
	contents["empty"] = nil
	for name, b := range contents {
		z, form := storedForm(t, b)
		out[name] = struct {
			content, form []byte
			compressed    bool
		}{b, form, z}
	}
	b := textish(21, 3*chunk)
	out["another encoder's frame"] = struct {
		content, form []byte
		compressed    bool
	}{b, otherEncoding(t, b), true}
	return out
}

// TestPutStoredKeepsTheBytesAsTheyCame: an object stored from its stored
// form (as a remote keeps it) is the same file, byte for byte, in the
// store and in a batch; it reads back as its content; a second PutStored
// finds it there.
func TestPutStoredKeepsTheBytesAsTheyCame(t *testing.T) {
	for name, c := range putStoredForms(t) {
		for _, batch := range []bool{false, true} {
			what := fmt.Sprintf("%s batch=%v", name, batch)
			m := vfs.NewMem()
			s := New(m, "w/objects")
			id := Sum(c.content)
			var info Info
			var err error
			if batch {
				b := s.Batch()
				info, err = b.PutStored(ctx, id, c.compressed, onlyReader{bytes.NewReader(c.form)})
				if err == nil {
					err = b.Commit()
				}
			} else {
				info, err = s.PutStored(ctx, id, c.compressed, onlyReader{bytes.NewReader(c.form)})
			}
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			want := Info{ID: id, Size: int64(len(c.content)), Stored: int64(len(c.form)), Compressed: c.compressed}
			if info != want {
				t.Errorf("%s: %+v, want %+v", what, info, want)
			}
			got, err := vfs.ReadFile(m, s.Path(id, c.compressed))
			if err != nil || !bytes.Equal(got, c.form) {
				t.Errorf("%s: the stored file is not the bytes that came (%d bytes, %v)", what, len(got), err)
			}
			if back := mustGet(t, s, id); !bytes.Equal(back, c.content) {
				t.Errorf("%s: reads back different", what)
			}
			again, err := s.PutStored(ctx, id, c.compressed, onlyReader{bytes.NewReader(c.form)})
			want.Existed = true
			if err != nil || again != want {
				t.Errorf("%s: again: %+v %v, want %+v", what, again, err, want)
			}
		}
	}
}

// failingReader returns its bytes, then err.
type failingReader struct {
	b   []byte
	err error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if len(f.b) == 0 {
		return 0, f.err
	}
	n := copy(p, f.b)
	f.b = f.b[n:]
	return n, nil
}

// TestPutStoredRefusesWhatIsNotTheObject: a stored form whose content is
// not the object's, a torn one, one that does not decode and one with
// bytes after its frame are refused as a mismatch; a read that fails
// returns its error. Either way nothing is stored under the object's name
// and no temp file is left, and the right form is stored after.
func TestPutStoredRefusesWhatIsNotTheObject(t *testing.T) {
	content := textish(31, 3*chunk)
	small := textish(32, 5000)
	_, zform := storedForm(t, content)
	_, zsmall := storedForm(t, small)
	_, other := storedForm(t, textish(33, 3*chunk))
	readErr := errors.New("connection reset")
	cases := []struct {
		name       string
		content    []byte
		compressed bool
		r          io.Reader
		want       error
	}{
		{"another object's frame", content, true, bytes.NewReader(other), ErrMismatch},
		{"another content raw", small, false, bytes.NewReader(textish(34, 5000)), ErrMismatch},
		{"a frame torn in half", content, true, bytes.NewReader(zform[:len(zform)/2]), ErrMismatch},
		{"a small frame torn", small, true, bytes.NewReader(zsmall[:len(zsmall)-1]), ErrMismatch},
		{"raw content torn", small, false, bytes.NewReader(small[:len(small)-10]), ErrMismatch},
		{"raw content too long", small, false, bytes.NewReader(append(bytes.Clone(small), 'x')), ErrMismatch},
		{"nothing", small, true, bytes.NewReader(nil), ErrMismatch},
		{"not zstd", small, true, bytes.NewReader(small), ErrMismatch},
		{"bytes after the frame", small, true, bytes.NewReader(append(bytes.Clone(zsmall), "tail"...)), ErrMismatch},
		{"a frame taken for raw", small, false, bytes.NewReader(zsmall), ErrMismatch},
		{"a read that fails", content, true, &failingReader{b: zform[:len(zform)/2], err: readErr}, readErr},
		{"a raw read that fails", small, false, &failingReader{b: small[:100], err: readErr}, readErr},
	}
	for _, c := range cases {
		for _, batch := range []bool{false, true} {
			what := fmt.Sprintf("%s batch=%v", c.name, batch)
			m := vfs.NewMem()
			s := New(m, "w/objects")
			id := Sum(c.content)
			var err error
			if batch {
				b := s.Batch()
				_, err = b.PutStored(ctx, id, c.compressed, c.r)
				if err == nil {
					err = b.Commit()
				} else {
					b.Abort()
				}
			} else {
				_, err = s.PutStored(ctx, id, c.compressed, c.r)
			}
			if !errors.Is(err, c.want) {
				t.Errorf("%s: %v, want %v", what, err, c.want)
			}
			if c.want != ErrMismatch && errors.Is(err, ErrMismatch) {
				t.Errorf("%s: a failed read taken for a wrong object: %v", what, err)
			}
			if files := storedFiles(t, m, "w/objects"); len(files) > 0 {
				t.Errorf("%s: left %v", what, files)
			}
			_, form := storedForm(t, c.content)
			z, _ := storedForm(t, c.content)
			if _, err := s.PutStored(ctx, id, z, bytes.NewReader(form)); err != nil {
				t.Errorf("%s: the right form after: %v", what, err)
			}
			if err := s.Verify(ctx, id); err != nil {
				t.Errorf("%s: %v", what, err)
			}
		}
	}
	// A cancelled context stops it too.
	m := vfs.NewMem()
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := New(m, "o").PutStored(cctx, Sum(content), true, bytes.NewReader(zform)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if files := storedFiles(t, m, "o"); len(files) > 0 {
		t.Errorf("cancelled: left %v", files)
	}
}

// TestPutStoredKeepsOnlyTheStoresForms: a compressed form this store
// would not keep (two frames, or a frame that saves less than an eighth)
// is stored raw, and reads back as its content.
func TestPutStoredKeepsOnlyTheStoresForms(t *testing.T) {
	a, b := textish(41, 3000), textish(42, 2*chunk)
	noise := random(43, 5000)
	enc := func(p []byte) []byte { return allEncoder().EncodeAll(p, nil) }
	cases := map[string]struct{ content, form []byte }{
		"two frames":                 {append(bytes.Clone(a), b...), append(enc(a), enc(b)...)},
		"a frame that does not save": {noise, enc(noise)},
	}
	for name, c := range cases {
		m := vfs.NewMem()
		s := New(m, "objects")
		id := Sum(c.content)
		info, err := s.PutStored(ctx, id, true, bytes.NewReader(c.form))
		if err != nil || info.Compressed || info.Stored != int64(len(c.content)) || info.Size != int64(len(c.content)) {
			t.Errorf("%s: %+v %v, want it stored raw", name, info, err)
		}
		got, err := vfs.ReadFile(m, s.Path(id, false))
		if err != nil || !bytes.Equal(got, c.content) {
			t.Errorf("%s: the raw file is not the content (%v)", name, err)
		}
		if files := storedFiles(t, m, "objects"); len(files) != 1 {
			t.Errorf("%s: files %v", name, files)
		}
	}
}

// TestCheckStored: the check of a stored form without storing it agrees
// with PutStored.
func TestCheckStored(t *testing.T) {
	b := textish(51, 2*chunk)
	z, form := storedForm(t, b)
	info, err := CheckStored(Sum(b), z, bytes.NewReader(form))
	if err != nil || info.Size != int64(len(b)) || info.Stored != int64(len(form)) {
		t.Errorf("%+v %v", info, err)
	}
	if _, err := CheckStored(Sum(b), z, bytes.NewReader(form[:len(form)-3])); !errors.Is(err, ErrMismatch) {
		t.Errorf("torn: %v", err)
	}
}

// TestPutStoredCrashAtEverySyncPoint stops PutStored, alone and in a
// batch, at each of its sync points in turn and loses power (cleanly, and
// with a random share of the unsynced changes kept): what is left under
// an object's name verifies, and an acknowledged object survives.
func TestPutStoredCrashAtEverySyncPoint(t *testing.T) {
	forms := putStoredForms(t)
	for name, c := range forms {
		id := Sum(c.content)
		for _, batch := range []bool{false, true} {
			for n := 0; ; n++ {
				if n > 20 {
					t.Fatalf("%s: PutStored never finished", name)
				}
				done := false
				for seed := range 3 {
					m := vfs.NewMem()
					dir := "w/objects"
					m.FailAfterSyncs(n)
					s := New(m, dir)
					var err error
					if batch {
						b := s.Batch()
						if _, err = b.PutStored(ctx, id, c.compressed, bytes.NewReader(c.form)); err == nil {
							err = b.Commit()
						} else {
							b.Abort()
						}
					} else {
						_, err = s.PutStored(ctx, id, c.compressed, bytes.NewReader(c.form))
					}
					if err != nil && !errors.Is(err, vfs.ErrCrashed) {
						t.Fatalf("%s batch=%v: stopped after %d syncs: %v", name, batch, n, err)
					}
					done = err == nil
					if seed == 0 {
						m.Crash()
					} else {
						m.CrashPartial(rand.New(rand.NewPCG(uint64(n), uint64(seed))))
					}
					present := checkAfterCrash(t, m, dir, id, c.content)
					if done && !present {
						t.Fatalf("%s batch=%v: acknowledged after %d syncs, lost in the crash", name, batch, n)
					}
				}
				if done {
					break
				}
			}
		}
	}
}

// TestPutStoredFaults fails each write, sync, rename, create and mkdir of
// a PutStored in turn: it returns the error, leaves no temp file and no
// object (but for a failed shard folder sync, which keeps it whole), and
// once the fault is gone stores the object.
func TestPutStoredFaults(t *testing.T) {
	forms := putStoredForms(t)
	for _, op := range []vfs.Op{vfs.OpWrite, vfs.OpSync, vfs.OpRename, vfs.OpCreate, vfs.OpMkdir, vfs.OpRead} {
		for name, c := range forms {
			id := Sum(c.content)
			put := func(s *Store) (Info, error) {
				return s.PutStored(ctx, id, c.compressed, bytes.NewReader(c.form))
			}
			for _, made := range []bool{false, true} {
				faultEachCallOf(t, op, syscall.EIO, name, id, made, put)
			}
		}
	}
}
