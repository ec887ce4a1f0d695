package remote

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"sort"

	json "github.com/segmentio/encoding/json"

	"cairn/internal/vfs"
)

// The write side of the sessions journal (statelog.go reads it): a save
// appends the changed sessions' lines, or writes the journal whole again,
// sorted, by an atomic rename.

// saveSessions appends the changed sessions' lines, or writes the journal
// whole, sorted, when it must or when the lines past its sorted part
// would pass tailMax.
func (st *State) saveSessions(fsys vfs.FS, name string) error {
	l := &st.log
	if l.lost != nil {
		return lostErr(l.lost)
	}
	if l.rewrite || l.sorted == nil || l.appended()+len(l.dirty) > l.tailMax() {
		return st.rewriteSessions(fsys, name)
	}
	if len(l.dirty) == 0 {
		return nil
	}
	// An append goes after the lines this state read: the journal must
	// still be the one it read, not one written whole again since.
	f, err := openSorted(fsys, sessionsName(name), l.sorted)
	if err != nil {
		if errors.Is(err, errSortedDamaged) {
			return st.rewriteSessions(fsys, name)
		}
		l.readFailed(err)
		return lostErr(l.lost)
	}
	f.Close()
	ids := make([]string, 0, len(l.dirty))
	for id := range l.dirty {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var buf bytes.Buffer
	for _, id := range ids {
		if err := writeRecord(&buf, st.record(id)); err != nil {
			return err
		}
	}
	if err := appendLines(fsys, sessionsName(name), l.end, buf.Bytes()); err != nil {
		return err
	}
	l.end += int64(buf.Len())
	l.tail += len(ids)
	l.dirty = nil
	return nil
}

// rewriteSessions writes the journal whole: a new mark, then each
// session's line in the order of their ids, those with pending segments
// last, past the sorted part, where a load reads them.
func (st *State) rewriteSessions(fsys vfs.FS, name string) error {
	ids := st.ids()
	if st.log.lost != nil {
		return lostErr(st.log.lost)
	}
	mark := newMark()
	var buf, pending bytes.Buffer
	buf.Write(markLine(mark))
	start := int64(buf.Len())
	npending := 0
	for _, id := range ids {
		w := &buf
		if len(st.Pending[id]) > 0 {
			w = &pending
			npending++
		}
		if err := writeRecord(w, st.record(id)); err != nil {
			return err
		}
	}
	sortedEnd := int64(buf.Len())
	buf.Write(pending.Bytes())
	if err := vfs.WriteFileAtomic(fsys, sessionsName(name), buf.Bytes()); err != nil {
		return err
	}
	st.log = sessionLog{fsys: fsys, name: sessionsName(name), all: true, end: int64(buf.Len()), tail: npending,
		sorted: &SortedPart{Mark: mark, Start: start, End: sortedEnd, Lines: len(ids) - npending, Pending: npending}}
	return nil
}

func writeRecord(buf *bytes.Buffer, rec sessionRecord) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	buf.Write(b)
	buf.WriteByte('\n')
	return nil
}

// appendLines writes b at byte end of the journal name, cutting off what
// lies past end (a torn line), and syncs it; a new journal's folder is
// synced too.
func appendLines(fsys vfs.FS, name string, end int64, b []byte) error {
	_, serr := fsys.Stat(name)
	created := vfs.IsNotExist(serr)
	f, err := fsys.OpenFile(name, os.O_CREATE|os.O_WRONLY, vfs.FilePerm)
	if err != nil {
		return err
	}
	err = func() error {
		fi, err := f.Stat()
		if err != nil {
			return err
		}
		if fi.Size() > end {
			if err := f.Truncate(end); err != nil {
				return err
			}
		}
		if _, err := f.Seek(end, io.SeekStart); err != nil {
			return err
		}
		if _, err := f.Write(b); err != nil {
			return err
		}
		return f.Sync()
	}()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && created {
		err = fsys.SyncDir(path.Dir(name))
	}
	return err
}

// lostErr is the error of a save that could not read what the journal
// held when the state was loaded.
func lostErr(err error) error {
	return fmt.Errorf("%w; nothing was saved (was another sync of the remote running?)", err)
}
