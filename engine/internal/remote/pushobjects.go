package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"

	"cairn/internal/vfs"
	"cairn/objects"
)

// pushObjects sends the objects the lines of b name, before the segment
// that names them: on the remote too an object is there before a line
// naming it.
func (s *Syncer) pushObjects(ctx context.Context, ref SessionRef, b []byte) error {
	named := map[objects.ID]bool{}
	namedObjects(b, named)
	for id := range named {
		s.mu.Lock()
		known := s.pushed.ids[id]
		s.mu.Unlock()
		if known {
			continue
		}
		if err := s.pushObject(ctx, ref, id); err != nil {
			return err
		}
	}
	return nil
}

// askFirst is the size past which a push that has not read the list of
// objects sent asks the remote for an object before uploading it.
const askFirst = 1 << 20

func (s *Syncer) pushObject(ctx context.Context, ref SessionRef, id objects.ID) error {
	fsys := s.Local.FS()
	store := objects.New(fsys, objectsDir(ref.WS))
	var f vfs.File
	var compressed bool
	for _, z := range [2]bool{false, true} {
		g, err := fsys.OpenFile(store.Path(id, z), os.O_RDONLY, 0)
		if err == nil {
			f, compressed = g, z
			break
		}
		if !vfs.IsNotExist(err) {
			return fmt.Errorf("remote: push object %s: %w", id, err)
		}
	}
	if f == nil {
		// Not here: a session pulled before, whose object was never
		// needed here. The remote should have it.
		if _, err := s.objectAttrs(ctx, id); err == nil {
			s.markPushed(id)
			return nil
		}
		s.note("object %s named by session %s is neither here nor on the remote (storage fsck names it)", id, ref.ID)
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if s.pushed.partial && fi.Size() > askFirst {
		// Without the list of what went up, a large object is asked
		// for before its bytes are sent again.
		if _, err := s.objectAttrs(ctx, id); err == nil {
			s.mu.Lock()
			s.rep.Pushed.ObjectsThere++
			s.mu.Unlock()
			s.markPushed(id)
			return nil
		}
	}
	s.addTotal("push", fi.Size())
	err = s.Bucket.Put(ctx, objectKey(id, compressed), f, fi.Size(), Cond{IfAbsent: true})
	s.addDone("push", fi.Size())
	s.mu.Lock()
	switch {
	case err == nil:
		s.rep.Pushed.Objects++
		s.rep.Pushed.Bytes += fi.Size()
	case errors.Is(err, ErrExists):
		s.rep.Pushed.ObjectsThere++
		err = nil
	}
	s.mu.Unlock()
	if err != nil {
		return err
	}
	s.markPushed(id)
	return nil
}

func (s *Syncer) markPushed(id objects.ID) {
	s.mu.Lock()
	if !s.pushed.ids[id] {
		s.pushed.ids[id] = true
		s.pushed.added = append(s.pushed.added, id)
	}
	s.mu.Unlock()
}

// objectAttrs finds object id on the remote, compressed or raw.
func (s *Syncer) objectAttrs(ctx context.Context, id objects.ID) (string, error) {
	for _, z := range [2]bool{true, false} {
		_, err := s.Bucket.Attrs(ctx, objectKey(id, z))
		if err == nil {
			return objectKey(id, z), nil
		}
		if !errors.Is(err, ErrNotFound) {
			return "", err
		}
	}
	return "", ErrNotFound
}

// pushOutputs sends the session's retained tool outputs not sent yet.
func (s *Syncer) pushOutputs(ctx context.Context, ref SessionRef, ss *SessionState) ([]string, error) {
	fsys := s.Local.FS()
	dir := outputsDir(ref.WS, ref.ID)
	ents, err := fsys.ReadDir(dir)
	if err != nil {
		return nil, nil
	}
	var sent []string
	for _, e := range ents {
		name := e.Name()
		s.mu.Lock()
		done := ss.Outputs[name]
		s.mu.Unlock()
		if done || !e.Type().IsRegular() || !validName(name) || strings.HasPrefix(name, ".") {
			continue
		}
		b, err := vfs.ReadFile(fsys, path.Join(dir, name))
		if err != nil {
			return sent, err
		}
		s.addTotal("push", int64(len(b)))
		err = putBytes(ctx, s.Bucket, outputKey(ref.ID, name), b, Cond{IfAbsent: true})
		if err != nil && !errors.Is(err, ErrExists) {
			return sent, err
		}
		s.addDone("push", int64(len(b)))
		s.mu.Lock()
		s.st.touch(ref.ID)
		ss.Outputs[name] = true
		s.rep.Pushed.Outputs++
		s.mu.Unlock()
		sent = append(sent, name)
	}
	return sent, nil
}

// pushUsage sends this machine's usage ledger's new lines, under its own
// name: each machine's ledger is its own, and the sum is read across.
func (s *Syncer) pushUsage(ctx context.Context) ([]Segment, error) {
	fsys := s.Local.FS()
	f, err := fsys.OpenFile("usage.jsonl", os.O_RDONLY, 0)
	if vfs.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	fs := s.st.Usage
	if fi.Size() == fs.End {
		return nil, nil
	}
	if fi.Size() < fs.End || !s.tailHolds(f, fs) {
		// The ledger was rewritten (a migrate's merge): its lines go up
		// again under their new offsets; a reader sums a machine's latest
		// whole copy, so nothing is counted twice.
		fs = FileState{Gen: fs.Gen + 1}
	}
	if err := f.Sync(); err != nil {
		return nil, err
	}
	var segs []Segment
	for fs.End < fi.Size() {
		n := min(fi.Size()-fs.End, maxSegment)
		buf := make([]byte, n)
		if _, err := f.ReadAt(buf, fs.End); err != nil && !errors.Is(err, io.EOF) {
			return segs, err
		}
		cut := bytes.LastIndexByte(buf, '\n')
		if cut < 0 {
			break
		}
		buf = buf[:cut+1]
		seg := Segment{File: "usage.jsonl", Gen: fs.Gen, Off: fs.End, Size: int64(len(buf))}
		key := usageKey(s.Machine, fs.Gen, fs.End)
		err := putBytes(ctx, s.Bucket, key, buf, Cond{IfAbsent: true})
		if err != nil && !errors.Is(err, ErrExists) {
			return segs, err
		}
		segs = append(segs, seg)
		fs.End += seg.Size
		fs.Tail = s.tailAt(f, fs.End)
	}
	s.st.Usage = fs
	return segs, nil
}
