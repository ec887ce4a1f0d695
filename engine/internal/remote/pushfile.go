package remote

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"

	"cairn/internal/vfs"
)

func tailOf(b []byte) string {
	if len(b) > tailLen {
		b = b[len(b)-tailLen:]
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// pushFile sends a journal's complete lines past what the remote has, as
// segments. Only bytes made durable here leave the machine: the file is
// synced first, so a crash here cannot take back a line a remote holds.
// A journal that no longer extends what went up (replaced by a trim)
// starts the next generation from its first byte.
func (s *Syncer) pushFile(ctx context.Context, ref SessionRef, file string, fs FileState) ([]Segment, FileState, error) {
	fsys := s.Local.FS()
	f, err := fsys.OpenFile(LocalName(ref.WS, ref.ID, file), os.O_RDONLY, 0)
	if vfs.IsNotExist(err) {
		return nil, fs, nil
	}
	if err != nil {
		return nil, fs, fmt.Errorf("remote: push %s: %w", ref.ID, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fs, err
	}
	size := fi.Size()
	if size == fs.End {
		return nil, fs, nil
	}
	if size < fs.End || !s.tailHolds(f, fs) {
		fs = FileState{Gen: fs.Gen + 1}
		s.note("%s of session %s was rewritten here (a trim) since it went up: generation %d goes up whole", file, ref.ID, fs.Gen)
	}
	if err := f.Sync(); err != nil {
		return nil, fs, fmt.Errorf("remote: push %s: sync %s: %w", ref.ID, file, err)
	}
	var segs []Segment
	for fs.End < size {
		n := min(size-fs.End, maxSegment)
		buf := make([]byte, n)
		if _, err := f.ReadAt(buf, fs.End); err != nil && !errors.Is(err, io.EOF) {
			return segs, fs, err
		}
		cut := bytes.LastIndexByte(buf, '\n')
		if cut < 0 {
			if n == maxSegment {
				return segs, fs, fmt.Errorf("remote: push %s: %s has a line over %d bytes", ref.ID, file, maxSegment)
			}
			break // a torn tail, or a line being written: it never leaves
		}
		buf = buf[:cut+1]
		seg := Segment{File: file, Gen: fs.Gen, Off: fs.End, Size: int64(len(buf))}
		if err := s.pushObjects(ctx, ref, buf); err != nil {
			return segs, fs, err
		}
		if err := s.putSegment(ctx, ref.ID, seg, buf); err != nil {
			return segs, fs, err
		}
		segs = append(segs, seg)
		fs.End += seg.Size
		fs.Tail = tailOf(buf)
		if len(buf) < tailLen && seg.Off > 0 {
			fs.Tail = s.tailAt(f, fs.End)
		}
	}
	return segs, fs, nil
}

// tailHolds reports whether f still ends, at fs.End, as it did.
func (s *Syncer) tailHolds(f vfs.File, fs FileState) bool {
	if fs.End == 0 {
		return true
	}
	return s.tailAt(f, fs.End) == fs.Tail
}

func (s *Syncer) tailAt(f vfs.File, end int64) string {
	start := max(end-tailLen, 0)
	b := make([]byte, end-start)
	if _, err := f.ReadAt(b, start); err != nil && !errors.Is(err, io.EOF) {
		return ""
	}
	return tailOf(b)
}

// putSegment writes a segment once. One there already (a push cut short
// after it went up, or run twice) is fine when it holds the same bytes;
// other bytes mean another machine wrote this journal past the point both
// shared: nothing is overwritten, and the session is skipped.
func (s *Syncer) putSegment(ctx context.Context, id string, seg Segment, data []byte) error {
	key := segmentKey(id, seg.File, seg.Gen, seg.Off)
	s.addTotal("push", seg.Size)
	err := putBytes(ctx, s.Bucket, key, data, Cond{IfAbsent: true})
	if errors.Is(err, ErrExists) {
		there, _, gerr := s.Bucket.Get(ctx, key)
		if gerr != nil {
			return gerr
		}
		if !bytes.Equal(there, data) {
			return fmt.Errorf("%w: %s at byte %d differs from the remote's (another machine wrote this session after it left here); neither copy was changed", ErrConflict, seg.File, seg.Off)
		}
		s.note("segment %s was on the remote already (sent before and not recorded): kept", key)
		err = nil
	}
	if err != nil {
		return err
	}
	s.addDone("push", seg.Size)
	s.mu.Lock()
	s.rep.Pushed.Segments++
	s.rep.Pushed.Bytes += seg.Size
	s.mu.Unlock()
	return nil
}
