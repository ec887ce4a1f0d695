package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strings"

	"cairn/internal/vfs"
)

// readLogs reads the log entries other machines wrote since the last
// read: one listing of machines/ (a key per machine, not per session),
// then only the heads that changed and the entries past what was read.
// What they name is noted in the state (cards, pending segments,
// forgets); nothing is downloaded but the entries.
func (s *Syncer) readLogs(ctx context.Context) (int, error) {
	type change struct {
		machine string
		e       Entry
	}
	var changed []change
	err := s.Bucket.List(ctx, machinesPref, func(e Entry) error {
		m := strings.TrimSuffix(strings.TrimPrefix(e.Key, machinesPref), ".json")
		if m == s.Machine || !validName(m) || !strings.HasSuffix(e.Key, ".json") {
			return nil
		}
		if ms := s.st.Machines[m]; ms != nil && headSame(ms, e) {
			return nil
		}
		changed = append(changed, change{m, e})
		return nil
	})
	if err != nil {
		return 0, err
	}
	read := 0
	for _, c := range changed {
		data, _, err := s.Bucket.Get(ctx, machineKey(c.machine))
		if err != nil {
			return read, err
		}
		var head machineHead
		if err := json.Unmarshal(data, &head); err != nil {
			s.note("the head of machine %s cannot be read (%v): its log is passed over", c.machine, err)
			continue
		}
		ms := s.st.Machines[c.machine]
		if ms == nil {
			ms = &MachineState{}
			s.st.Machines[c.machine] = ms
		}
		if head.Seq < ms.Seq {
			s.note("machine %s's head went back from %d to %d: read on from %d", c.machine, ms.Seq, head.Seq, ms.Seq)
		}
		from := ms.Seq + 1
		n := int(max(head.Seq-ms.Seq, 0))
		entries := make([]*logEntry, n)
		err = s.each(ctx, n, func(ctx context.Context, i int) error {
			data, _, err := s.Bucket.Get(ctx, logKey(c.machine, from+int64(i)))
			if errors.Is(err, ErrNotFound) {
				return nil // a number a cut push skipped
			}
			if err != nil {
				return err
			}
			var le logEntry
			if err := json.Unmarshal(data, &le); err != nil {
				s.note("log entry %d of machine %s cannot be read (%v): passed over", from+int64(i), c.machine, err)
				return nil
			}
			entries[i] = &le
			return nil
		})
		if err != nil {
			return read, err
		}
		for _, le := range entries {
			if le != nil {
				s.takeEntry(c.machine, ms, le)
				read++
			}
		}
		ms.Seq = max(ms.Seq, head.Seq)
		ms.Size, ms.ModTime, ms.MD5 = c.e.Size, c.e.ModTime, c.e.MD5
	}
	return read, nil
}

// headSame reports whether a machine's head is as it was when read last.
// A listing's time may be whole seconds and a head rewritten within one
// keeps its size (only its number and time change), so size and time
// alone would miss it: the MD5 must match too, and a listing without one
// has the head read again (one small read per machine).
func headSame(ms *MachineState, e Entry) bool {
	return ms.Size == e.Size && ms.ModTime.Equal(e.ModTime) && len(e.MD5) > 0 && bytes.Equal(ms.MD5, e.MD5)
}

// takeEntry notes what one log entry says.
func (s *Syncer) takeEntry(machine string, ms *MachineState, le *logEntry) {
	for _, ls := range le.Sessions {
		if !validID(ls.ID) {
			continue
		}
		s.st.touch(ls.ID)
		if ls.Card != nil {
			c := *ls.Card
			c.ID, c.Machine = ls.ID, machine
			if old := s.st.Cards[ls.ID]; old == nil || old.UpdatedAt <= c.UpdatedAt {
				s.st.Cards[ls.ID] = &c
			}
		}
		for _, seg := range ls.Segments {
			if validFile(seg.File) && seg.Off >= 0 && seg.Size > 0 {
				s.st.Pending[ls.ID] = append(s.st.Pending[ls.ID], seg)
			}
		}
		for _, o := range ls.Outputs {
			if validName(o) {
				s.st.Pending[ls.ID] = append(s.st.Pending[ls.ID], Segment{File: outputMark + o})
			}
		}
	}
	ms.PendingUsage = append(ms.PendingUsage, le.Usage...)
	for _, id := range le.Forgets {
		s.st.touch(id)
		s.st.Forgotten[id] = true
		delete(s.st.Pending, id)
	}
}

// outputMark marks a pending tool output among a session's segments.
const outputMark = "output:"

// pull reads the log, then brings every session's journals up to what the
// remote holds (objects come on demand when read), then the other
// machines' usage ledgers.
func (s *Syncer) pull(ctx context.Context) error {
	if _, err := s.readLogs(ctx); err != nil {
		s.st.Save(s.Local.FS(), s.Name)
		return err
	}
	ids := make([]string, 0, len(s.st.Pending))
	for id := range s.st.Pending {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	err := s.each(ctx, len(ids), func(ctx context.Context, i int) error {
		return s.pullSession(ctx, ids[i])
	})
	if err == nil {
		err = s.pullUsage(ctx)
	}
	if serr := s.st.Save(s.Local.FS(), s.Name); serr != nil && err == nil {
		err = serr
	}
	return err
}

// pullSession applies the segments pending for session id under its
// ownership here: an owner here (a session open) keeps them pending.
func (s *Syncer) pullSession(ctx context.Context, id string) error {
	s.mu.Lock()
	s.st.touch(id)
	pending := append([]Segment(nil), s.st.Pending[id]...)
	if s.st.Forgotten[id] {
		delete(s.st.Pending, id)
		s.mu.Unlock()
		return nil
	}
	ss := s.st.Sessions[id]
	ws := ""
	if ss != nil {
		ws = ss.WS
	}
	card := s.st.Cards[id]
	s.mu.Unlock()
	if ws == "" {
		if card == nil || card.Path == "" {
			s.skip(id, "the remote's log does not say which directory it belongs to")
			return nil
		}
		var err error
		if ws, err = s.Local.Place(ctx, card.Path); err != nil {
			s.skip(id, fmt.Sprintf("no workspace here for %s: %v", card.Path, err))
			return nil
		}
	}
	release, err := s.Local.Hold(ctx, ws, id)
	if err != nil {
		s.skip(id, fmt.Sprintf("not pulled: %v; the next sync pulls it", err))
		return nil
	}
	defer release()
	s.mu.Lock()
	ss = s.st.session(id, ws)
	files := map[string]FileState{}
	for f, fs := range ss.Files {
		files[f] = *fs
	}
	s.mu.Unlock()

	byFile := map[string][]Segment{}
	var outputs []string
	for _, seg := range pending {
		if o, ok := strings.CutPrefix(seg.File, outputMark); ok {
			outputs = append(outputs, o)
			continue
		}
		byFile[seg.File] = append(byFile[seg.File], seg)
	}
	names := make([]string, 0, len(byFile))
	for f := range byFile {
		names = append(names, f)
	}
	sort.Slice(names, func(i, j int) bool {
		if (names[i] == FileItems) != (names[j] == FileItems) {
			return names[j] == FileItems
		}
		return names[i] < names[j]
	})
	var left []Segment
	wrote := false
	for _, file := range names {
		fs, rest, n, err := s.pullFile(ctx, ws, id, file, files[file], byFile[file])
		if errors.Is(err, ErrConflict) {
			s.skip(id, err.Error())
			s.mu.Lock()
			s.st.Pending[id] = pending
			s.mu.Unlock()
			return nil
		}
		if err != nil {
			return err
		}
		wrote = wrote || n > 0
		left = append(left, rest...)
		s.mu.Lock()
		f := fs
		ss.Files[file] = &f
		s.mu.Unlock()
	}
	for _, o := range outputs {
		if err := s.pullOutput(ctx, ws, id, o); err != nil {
			return err
		}
		s.mu.Lock()
		ss.Outputs[o] = true
		s.mu.Unlock()
	}
	if wrote {
		s.Local.Settle(ctx, ws, id)
		s.mu.Lock()
		s.rep.Pulled.Sessions++
		s.mu.Unlock()
	}
	s.mu.Lock()
	if len(left) > 0 {
		s.st.Pending[id] = left
	} else {
		delete(s.st.Pending, id)
	}
	s.mu.Unlock()
	return nil
}

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

// pullOutput downloads a retained tool output.
func (s *Syncer) pullOutput(ctx context.Context, ws, id, name string) error {
	fsys := s.Local.FS()
	dst := path.Join(outputsDir(ws, id), name)
	if _, err := fsys.Stat(dst); err == nil {
		return nil
	}
	data, _, err := s.Bucket.Get(ctx, outputKey(id, name))
	if errors.Is(err, ErrNotFound) {
		s.note("tool output %s of session %s is named by the log but not on the remote", name, id)
		return nil
	}
	if err != nil {
		return err
	}
	if err := vfs.MkdirAllDurable(fsys, outputsDir(ws, id), vfs.DirPerm); err != nil {
		return err
	}
	s.mu.Lock()
	s.rep.Pulled.Outputs++
	s.rep.Pulled.Bytes += int64(len(data))
	s.mu.Unlock()
	return vfs.WriteFileAtomic(fsys, dst, data)
}

// pullUsage copies each other machine's usage ledger lines to
// remotes/<name>/usage/<machine>.jsonl.
func (s *Syncer) pullUsage(ctx context.Context) error {
	fsys := s.Local.FS()
	for m, ms := range s.st.Machines {
		if len(ms.PendingUsage) == 0 {
			continue
		}
		name := usageName(s.Name, m)
		segs := ms.PendingUsage
		sort.Slice(segs, func(i, j int) bool {
			if segs[i].Gen != segs[j].Gen {
				return segs[i].Gen < segs[j].Gen
			}
			return segs[i].Off < segs[j].Off
		})
		var left []Segment
		for _, seg := range segs {
			if seg.Gen > ms.Usage.Gen {
				ms.Usage = FileState{Gen: seg.Gen}
				fsys.Remove(name)
			}
			if seg.Gen < ms.Usage.Gen || seg.Off < ms.Usage.End {
				continue
			}
			if seg.Off > ms.Usage.End {
				left = append(left, seg)
				continue
			}
			data, _, err := s.Bucket.Get(ctx, usageKey(m, seg.Gen, seg.Off))
			if err != nil {
				return err
			}
			size := ms.Usage.End
			if seg.Off == 0 {
				size = -1
				fsys.Remove(name)
			}
			if err := appendFile(fsys, name, size, data, false); err != nil {
				return err
			}
			ms.Usage.End += int64(len(data))
		}
		ms.PendingUsage = left
	}
	return nil
}
