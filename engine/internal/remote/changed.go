package remote

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"cairn/internal/vfs"
)

// The record of changed sessions lets a sync look at the sessions that
// may have changed since the last one instead of listing every session
// here. It is a journal in numbered files, remotes/changed/<n>.jsonl
// (part of the format), a line each time a process takes a session for
// writing:
//
//	{"ws":"workspaces/<key>","id":"<session>"}
//
// The line is appended and synced before the taker writes anything, so a
// journal change on disk always comes after a line naming its session.
// Each remote's state keeps how far it read (ChangePos) and the sessions
// still held by a writer when it read (State.Watch): a sync looks at the
// sessions the lines past its position name and at the watched ones, and
// nothing else. When the record cannot be followed from the position (a
// file removed or cut, a line that does not decode, a state without a
// position) the sync lists every session instead: a lost record costs a
// slower sync, never a missed push.
//
// The first file's number is the time it was made, in microseconds, so a
// record removed and begun again starts at another number than the one a
// position names. A sync starts a new file once the last one passes changedRotate bytes.
// An appender writes to the highest-numbered file, then looks for the next
// one and writes there too when it appeared meanwhile; the sync reads the
// old file once more after making the new one, so no line falls between.
const (
	changedDir    = "remotes/changed"
	changedRotate = 1 << 20
)

// ChangePos is a position in the record: byte Off of file File (0: none).
type ChangePos struct {
	File int64 `json:"file"`
	Off  int64 `json:"off"`
}

// changedLine is one line of the record.
type changedLine struct {
	WS string `json:"ws"`
	ID string `json:"id"`
}

// firstChanged is the number of a record's first file: the time in
// microseconds, so that a record removed and begun again does not reuse
// the number a remote's position names.
func firstChanged() int64 { return time.Now().UnixMicro() }

func changedName(n int64) string {
	return path.Join(changedDir, fmt.Sprintf("%016d.jsonl", n))
}

// changedFiles lists the numbers of the record's files, lowest first.
func changedFiles(fsys vfs.FS) ([]int64, error) {
	names, err := vfs.ReadDirNames(fsys, changedDir)
	if vfs.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []int64
	for _, n := range names {
		num, ok := strings.CutSuffix(n, ".jsonl")
		if !ok || len(num) != 16 {
			continue
		}
		if v, err := strconv.ParseInt(num, 10, 64); err == nil && v > 0 {
			out = append(out, v)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out, nil
}

// Noting says whether takers of sessions note them in the record: when a
// remote is configured here (or that cannot be told).
func Noting(fsys vfs.FS) bool {
	_, err := fsys.Stat(configName)
	return !vfs.IsNotExist(err)
}

// NoteChanged records that session id of workspace folder ws is taken for
// writing. It returns once the line is synced.
func NoteChanged(fsys vfs.FS, ws, id string) error {
	line, err := json.Marshal(changedLine{WS: ws, ID: id})
	if err != nil {
		return err
	}
	line = append(line, '\n')
	files, err := changedFiles(fsys)
	if err != nil {
		return fmt.Errorf("remote: record of changed sessions: %w", err)
	}
	n := firstChanged()
	if len(files) > 0 {
		n = files[len(files)-1]
	} else if err := vfs.MkdirAllDurable(fsys, changedDir, vfs.DirPerm); err != nil {
		return fmt.Errorf("remote: record of changed sessions: %w", err)
	}
	return noteFrom(fsys, n, line)
}

// noteFrom appends line to file n of the record, then to each file after
// it that exists.
func noteFrom(fsys vfs.FS, n int64, line []byte) error {
	for {
		if err := appendSynced(fsys, changedName(n), line); err != nil {
			return fmt.Errorf("remote: record of changed sessions: %w", err)
		}
		// A sync that started file n+1 before this line was written may
		// have read file n for the last time: the line goes there too.
		if _, err := fsys.Stat(changedName(n + 1)); err != nil {
			if vfs.IsNotExist(err) {
				return nil
			}
			return fmt.Errorf("remote: record of changed sessions: %w", err)
		}
		n++
	}
}

// appendSynced appends b to file name and syncs it, and its folder when
// the file is new.
func appendSynced(fsys vfs.FS, name string, b []byte) error {
	_, serr := fsys.Stat(name)
	created := vfs.IsNotExist(serr)
	f, err := fsys.OpenFile(name, os.O_CREATE|os.O_WRONLY|os.O_APPEND, vfs.FilePerm)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && created {
		err = fsys.SyncDir(path.Dir(name))
	}
	return err
}

// readChanged reads the record from position from to its end: the
// sessions its lines name (one entry each, by id), and the position after
// its last whole line. errLostRecord says it cannot be followed from
// there; the caller lists every session.
func readChanged(fsys vfs.FS, from ChangePos) (map[string]string, ChangePos, error) {
	if from.File <= 0 {
		return nil, from, errLostRecord
	}
	files, err := changedFiles(fsys)
	if err != nil {
		return nil, from, err
	}
	i := sort.Search(len(files), func(i int) bool { return files[i] >= from.File })
	if i == len(files) || files[i] != from.File {
		return nil, from, errLostRecord
	}
	seen := map[string]string{}
	pos := from
	for ; i < len(files); i++ {
		off := int64(0)
		if files[i] == from.File {
			off = from.Off
		}
		end, err := readChangedFile(fsys, files[i], off, seen)
		if err != nil {
			return nil, from, err
		}
		pos = ChangePos{File: files[i], Off: end}
	}
	return seen, pos, nil
}

// readChangedFile reads file n of the record from byte off into seen and
// returns the byte after its last whole line. A line cut short at the end
// is left for the next read (it is being written, or a crash cut it and
// the next line after it will not decode).
func readChangedFile(fsys vfs.FS, n, off int64, seen map[string]string) (int64, error) {
	f, err := fsys.OpenFile(changedName(n), os.O_RDONLY, 0)
	if vfs.IsNotExist(err) {
		return 0, errLostRecord
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if fi.Size() < off {
		return 0, errLostRecord
	}
	b := make([]byte, fi.Size()-off)
	if _, err := f.ReadAt(b, off); err != nil && !errors.Is(err, io.EOF) {
		return 0, err
	}
	at := 0
	for {
		nl := bytes.IndexByte(b[at:], '\n')
		if nl < 0 {
			break
		}
		var l changedLine
		if json.Unmarshal(b[at:at+nl], &l) != nil || !validID(l.ID) || !strings.HasPrefix(l.WS, "workspaces/") || strings.Contains(l.WS, "..") {
			return 0, errLostRecord
		}
		seen[l.ID] = l.WS
		at += nl + 1
	}
	return off + int64(at), nil
}

// changedEnd is the position at the record's end: where a sync that lists
// every session starts reading next time. It is taken before the listing,
// so a line written during the listing is read again next time.
func changedEnd(fsys vfs.FS) (ChangePos, error) {
	files, err := changedFiles(fsys)
	if err != nil {
		return ChangePos{}, err
	}
	if len(files) == 0 {
		// The first file, made empty, so that the position names a file
		// that exists.
		if err := vfs.MkdirAllDurable(fsys, changedDir, vfs.DirPerm); err != nil {
			return ChangePos{}, err
		}
		n := firstChanged()
		if err := appendSynced(fsys, changedName(n), nil); err != nil {
			return ChangePos{}, err
		}
		return ChangePos{File: n}, nil
	}
	last := files[len(files)-1]
	fi, err := fsys.Stat(changedName(last))
	if err != nil {
		return ChangePos{}, err
	}
	return ChangePos{File: last, Off: fi.Size()}, nil
}

// rotateChanged starts a new file when the one at pos (the record's end
// as a sync read it) has grown past changedRotate: it makes the next file,
// reads the old one once more from pos into seen (a line an appender wrote
// before it saw the new file), and returns the position at the start of
// the new file. Files before the old one go: a remote that had not read
// them lists every session at its next sync.
func rotateChanged(fsys vfs.FS, pos ChangePos, seen map[string]string) (ChangePos, error) {
	if pos.Off < changedRotate {
		return pos, nil
	}
	next := pos.File + 1
	if err := appendSynced(fsys, changedName(next), nil); err != nil {
		return pos, err
	}
	if _, err := readChangedFile(fsys, pos.File, pos.Off, seen); err != nil {
		return pos, err
	}
	if files, err := changedFiles(fsys); err == nil {
		for _, n := range files {
			if n < pos.File {
				fsys.Remove(changedName(n))
			}
		}
	}
	return ChangePos{File: next}, nil
}
