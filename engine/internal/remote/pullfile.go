package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"sort"

	"cairn/internal/vfs"
)

// pullFile brings one journal up to its segments. Segments of an older
// generation are dropped; a newer generation (the journal was replaced on
// the other machine, by a trim) replaces the file whole. A segment that
// overlaps what is here must agree with it byte for byte: bytes here that
// never went up and differ from the remote's mean two machines wrote the
// session, and the file is left as it is (ErrConflict). A segment past a
// gap waits for the log entry that fills it.
func (s *Syncer) pullFile(ctx context.Context, ws, id, file string, fs FileState, segs []Segment) (FileState, []Segment, int, error) {
	sort.Slice(segs, func(i, j int) bool {
		if segs[i].Gen != segs[j].Gen {
			return segs[i].Gen < segs[j].Gen
		}
		return segs[i].Off < segs[j].Off
	})
	fsys := s.Local.FS()
	name := LocalName(ws, id, file)
	local := int64(-1)
	if fi, err := fsys.Stat(name); err == nil {
		local = fi.Size()
	} else if !vfs.IsNotExist(err) {
		return fs, segs, 0, err
	}
	if newest := segs[len(segs)-1].Gen; newest > fs.Gen {
		if local > fs.End {
			return fs, segs, 0, fmt.Errorf("%w: %s was replaced on another machine while this one wrote %d bytes to it that never went up; neither copy was changed", ErrConflict, file, local-fs.End)
		}
		return s.replaceFile(ctx, name, id, file, fs, segs, newest)
	}
	var buf bytes.Buffer
	end := max(local, 0)
	var left []Segment
	for _, seg := range segs {
		if seg.Gen < fs.Gen {
			continue
		}
		if seg.Off+seg.Size <= fs.End && seg.Off+seg.Size <= end {
			continue
		}
		if seg.Off > end+int64(buf.Len()) {
			left = append(left, seg)
			continue
		}
		data, err := s.getSegment(ctx, id, seg)
		if err != nil {
			return fs, segs, 0, err
		}
		// The part of the segment the file has already must agree.
		have := end + int64(buf.Len())
		if seg.Off < end {
			n := min(end, seg.Off+seg.Size) - seg.Off
			mine := make([]byte, n)
			if err := readAt(fsys, name, mine, seg.Off); err != nil {
				return fs, segs, 0, err
			}
			if !bytes.Equal(mine, data[:n]) {
				return fs, segs, 0, fmt.Errorf("%w: %s here differs from the remote's at byte %d (this machine wrote it after another took the session over); neither copy was changed", ErrConflict, file, seg.Off)
			}
		}
		if seg.Off+seg.Size > have {
			buf.Write(data[have-seg.Off:])
		}
	}
	if buf.Len() == 0 {
		if end > fs.End {
			fs.End = end
			fs.Tail = tailAtName(fsys, name, end)
		}
		return fs, left, 0, nil
	}
	if err := appendFile(fsys, name, local, buf.Bytes(), file == FileItems); err != nil {
		return fs, segs, 0, err
	}
	fs.End = end + int64(buf.Len())
	fs.Tail = tailAtName(fsys, name, fs.End)
	s.mu.Lock()
	s.rep.Pulled.Bytes += int64(buf.Len())
	s.mu.Unlock()
	return fs, left, buf.Len(), nil
}

// replaceFile writes generation gen of a journal whole, from its
// segments, in place of the file (atomic rename).
func (s *Syncer) replaceFile(ctx context.Context, name, id, file string, fs FileState, segs []Segment, gen int) (FileState, []Segment, int, error) {
	var buf bytes.Buffer
	var left []Segment
	for _, seg := range segs {
		if seg.Gen != gen {
			continue
		}
		if seg.Off != int64(buf.Len()) {
			if seg.Off < int64(buf.Len()) {
				continue
			}
			left = append(left, seg)
			continue
		}
		data, err := s.getSegment(ctx, id, seg)
		if err != nil {
			return fs, segs, 0, err
		}
		buf.Write(data)
	}
	if buf.Len() == 0 {
		return fs, left, 0, nil
	}
	fsys := s.Local.FS()
	if err := vfs.MkdirAllDurable(fsys, path.Dir(name), vfs.DirPerm); err != nil {
		return fs, segs, 0, err
	}
	if err := vfs.WriteFileAtomic(fsys, name, buf.Bytes()); err != nil {
		return fs, segs, 0, err
	}
	return FileState{Gen: gen, End: int64(buf.Len()), Tail: tailOf(buf.Bytes())}, left, buf.Len(), nil
}

// getSegment downloads one segment and checks its size.
func (s *Syncer) getSegment(ctx context.Context, id string, seg Segment) ([]byte, error) {
	s.addTotal("pull", seg.Size)
	data, _, err := s.Bucket.Get(ctx, segmentKey(id, seg.File, seg.Gen, seg.Off))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) != seg.Size || len(data) == 0 || data[len(data)-1] != '\n' {
		return nil, fmt.Errorf("remote: segment %s of session %s at byte %d is %d bytes, not the %d its log says, or not whole lines: storage fsck --remote names it", seg.File, id, seg.Off, len(data), seg.Size)
	}
	s.addDone("pull", seg.Size)
	s.mu.Lock()
	s.rep.Pulled.Segments++
	s.mu.Unlock()
	return data, nil
}

func readAt(fsys vfs.FS, name string, b []byte, off int64) error {
	f, err := fsys.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.ReadAt(b, off)
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return err
}

func tailAtName(fsys vfs.FS, name string, end int64) string {
	start := max(end-tailLen, 0)
	b := make([]byte, end-start)
	if readAt(fsys, name, b, start) != nil {
		return ""
	}
	return tailOf(b)
}

// appendFile adds b to the end of journal name, whose size was size (-1:
// absent), and syncs it. A new items journal is written whole under a
// temp name and renamed into place, as a session comes into being here.
func appendFile(fsys vfs.FS, name string, size int64, b []byte, items bool) error {
	if size < 0 {
		if err := vfs.MkdirAllDurable(fsys, path.Dir(name), vfs.DirPerm); err != nil {
			return err
		}
		if items {
			return vfs.WriteFileAtomic(fsys, name, b)
		}
	}
	f, err := fsys.OpenFile(name, os.O_CREATE|os.O_WRONLY, vfs.FilePerm)
	if err != nil {
		return err
	}
	if _, err := f.Seek(max(size, 0), io.SeekStart); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if size < 0 {
		return fsys.SyncDir(path.Dir(name))
	}
	return nil
}
