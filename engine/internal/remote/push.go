package remote

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strings"

	"cairn/internal/vfs"
	"cairn/objects"
)

// maxSegment is the most a segment holds: a journal's new bytes past it go
// up as several, each cut at a line end.
const maxSegment = 32 << 20

// logEntry is what one push added, written once at log/<machine>/<seq>.json:
//
//	{"v":1,"machine":M,"seq":N,"at":T,"sessions":[{"id":ID,"card":{...},
//	 "segments":[{"file","gen","off","size"}],"outputs":[NAME,...]}],
//	 "usage":[{"off","size"}],"forgets":[ID,...]}
type logEntry struct {
	V        int          `json:"v"`
	Machine  string       `json:"machine"`
	Seq      int64        `json:"seq"`
	At       string       `json:"at"`
	Sessions []logSession `json:"sessions,omitempty"`
	Usage    []Segment    `json:"usage,omitempty"`
	Forgets  []string     `json:"forgets,omitempty"`
}

type logSession struct {
	ID       string    `json:"id"`
	Card     *Card     `json:"card,omitempty"`
	Segments []Segment `json:"segments,omitempty"`
	Outputs  []string  `json:"outputs,omitempty"`
}

// machineHead is machines/<machine>.json: the machine's last log entry.
type machineHead struct {
	V       int    `json:"v"`
	Machine string `json:"machine"`
	Seq     int64  `json:"seq"`
	At      string `json:"at"`
}

func putBytes(ctx context.Context, b Bucket, key string, data []byte, c Cond) error {
	return b.Put(ctx, key, bytes.NewReader(data), int64(len(data)), c)
}

// push sends every session's new journal bytes, the objects they name and
// their new tool outputs, then this machine's usage ledger, then a log
// entry naming it all, then the machine's head. The caller saves the
// state (once a sync, after its pull: it is a cache, and a push whose
// state was not saved is found on the remote next time). Each piece is written
// once under a name of its own (create-if-absent): a push cut short and
// run again finds what it sent there, and says so.
func (s *Syncer) push(ctx context.Context) error {
	refs, err := s.Local.Sessions(ctx)
	if err != nil {
		return err
	}
	s.pushed = loadPushed(s.Local.FS(), s.Name)
	entries := make([]*logSession, len(refs))
	err = s.each(ctx, len(refs), func(ctx context.Context, i int) error {
		ls, err := s.pushSession(ctx, refs[i])
		if err != nil {
			return err
		}
		entries[i] = ls
		return nil
	})
	// What went up is recorded even when a later session failed: the log
	// names it, and the state keeps it from being offered again.
	var log logEntry
	for _, ls := range entries {
		if ls != nil {
			log.Sessions = append(log.Sessions, *ls)
		}
	}
	if err == nil {
		var useg []Segment
		useg, err = s.pushUsage(ctx)
		log.Usage = useg
	}
	if len(log.Sessions) > 0 || len(log.Usage) > 0 {
		if lerr := s.writeLog(ctx, &log); lerr != nil && err == nil {
			err = lerr
		}
	}
	if serr := s.pushed.save(s.Local.FS(), s.Name); serr != nil && err == nil {
		err = serr
	}
	s.rep.Pushed.Sessions = len(log.Sessions)
	return err
}

// writeLog writes this push's log entry under the next free number, then
// the machine's head naming it.
func (s *Syncer) writeLog(ctx context.Context, log *logEntry) error {
	log.V, log.Machine, log.At = 1, s.Machine, s.now().Format("2006-01-02T15:04:05.000Z")
	for {
		s.st.Seq++
		log.Seq = s.st.Seq
		b, err := json.Marshal(log)
		if err != nil {
			return err
		}
		err = putBytes(ctx, s.Bucket, logKey(s.Machine, log.Seq), b, Cond{IfAbsent: true})
		if errors.Is(err, ErrExists) {
			// A push cut short after its log entry: that number is taken,
			// and what it names is on the remote.
			s.note("log entry %d of %s was there already (an earlier push cut short); this one is %d", log.Seq, s.Machine, log.Seq+1)
			continue
		}
		if err != nil {
			s.st.Seq--
			return err
		}
		break
	}
	head, _ := json.Marshal(machineHead{V: 1, Machine: s.Machine, Seq: log.Seq, At: log.At})
	return putBytes(ctx, s.Bucket, machineKey(s.Machine), head, Cond{})
}

// pushSession sends one session's new bytes. It returns nil when nothing
// was new.
func (s *Syncer) pushSession(ctx context.Context, ref SessionRef) (*logSession, error) {
	s.mu.Lock()
	forgotten := s.st.Forgotten[ref.ID]
	ss := s.st.session(ref.ID, ref.WS)
	files := map[string]FileState{}
	for f, fs := range ss.Files {
		files[f] = *fs
	}
	s.mu.Unlock()
	if forgotten || unchanged(ref, files) {
		return nil, nil
	}
	names := append([]string{}, sessionFiles...)
	names = append(names, s.taskFiles(ref)...)
	// The items journal goes last, as on a pull.
	sort.SliceStable(names, func(i, j int) bool { return names[j] == FileItems && names[i] != FileItems })
	ls := &logSession{ID: ref.ID}
	for _, file := range names {
		fs := files[file]
		segs, nfs, err := s.pushFile(ctx, ref, file, fs)
		if errors.Is(err, ErrConflict) {
			s.skip(ref.ID, err.Error())
			break
		}
		if err != nil {
			return nil, err
		}
		if nfs != fs {
			s.mu.Lock()
			s.st.touch(ref.ID)
			f := nfs
			ss.Files[file] = &f
			s.mu.Unlock()
		}
		ls.Segments = append(ls.Segments, segs...)
	}
	if len(ls.Segments) == 0 {
		return nil, nil
	}
	outs, err := s.pushOutputs(ctx, ref, ss)
	if err != nil {
		return nil, err
	}
	ls.Outputs = outs
	c := s.Local.Card(ctx, ref.WS, ref.ID)
	c.Machine = s.Machine
	ls.Card = &c
	s.mu.Lock()
	s.st.touch(ref.ID)
	s.st.Cards[ref.ID] = &c
	s.mu.Unlock()
	return ls, nil
}

// unchanged reports, from the sizes a listing saw, that none of a
// session's journals grew or shrank since it went up: the same test
// pushFile makes once it opened each file, made without opening any.
func unchanged(ref SessionRef, files map[string]FileState) bool {
	if ref.Sizes == nil || ref.Tasks {
		return false
	}
	for _, f := range sessionFiles {
		size, ok := ref.Sizes[f]
		if ok && size != files[f].End {
			return false
		}
	}
	return true
}

// taskFiles are the journals of a session's tasks folder.
func (s *Syncer) taskFiles(ref SessionRef) []string {
	ents, err := s.Local.FS().ReadDir(path.Join(ref.WS, "tasks", ref.ID))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		f := taskFolder + e.Name()
		if e.Type().IsRegular() && validFile(f) {
			out = append(out, f)
		}
	}
	return out
}

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
