package remote

import (
	"bytes"
	"io"
	"os"

	"github.com/google/uuid"

	"cairn/internal/vfs"
)

// A save that writes the sessions journal whole writes it sorted: a first
// line that names no session (its mark, a random id), then one line a
// session in the order of their ids, then the lines of the sessions with
// pending segments (which a pull reads all of), as if appended. The head
// (state.json, written after the journal) names the mark and where the
// sorted lines end. A load that finds the journal so reads only the lines
// past the sorted part, and finds a session's line in the sorted part
// when it is asked for, by a binary search over the file's bytes: a sync
// after one turn reads a few kilobytes of the journal however many
// sessions it holds.
//
// The sorted part is derived data with nothing to rebuild: a journal
// whose first line is not the mark the head names (written whole again
// after the head, by a save cut short or by an older cairn) is read whole
// as before, and written sorted at the next save.

// SortedPart describes the sorted part of a sessions journal.
type SortedPart struct {
	Mark  string `json:"mark"`  // the id on the journal's first line
	Start int64  `json:"start"` // the byte past the mark's line
	End   int64  `json:"end"`   // the byte past the last sorted line
	Lines int    `json:"lines"` // sorted lines (sessions)
	// Pending is how many lines of sessions with pending segments the
	// write put past the sorted part: they count for no save's tail.
	Pending int `json:"pending,omitempty"`
}

func markLine(mark string) []byte { return []byte(`{"id":"` + mark + `"}` + "\n") }

func newMark() string { return uuid.NewString() }

// findWindow is the most of the sorted part a search reads at once: below
// it, the rest is read whole and searched in memory.
const findWindow = 4 << 10

// openSorted opens the journal for a search of its sorted part, checking
// that it still begins with the mark and that the part ends at a line end.
func openSorted(fsys vfs.FS, name string, p *SortedPart) (vfs.File, error) {
	f, err := fsys.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	if err := p.check(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// check reports errSortedChanged unless f begins with p's mark line and
// is long enough to hold p's sorted lines (the journal was written again
// since p was), and errSortedDamaged unless those lines end as p says.
func (p *SortedPart) check(f vfs.File) error {
	want := markLine(p.Mark)
	if p.Start != int64(len(want)) || p.End < p.Start || (p.End == p.Start) != (p.Lines == 0) {
		return errSortedDamaged
	}
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if fi.Size() < p.End {
		return errSortedChanged
	}
	got := make([]byte, p.Start)
	if _, err := f.ReadAt(got, 0); err != nil {
		return errSortedChanged
	}
	if !bytes.Equal(got, want) {
		return errSortedChanged
	}
	if p.End > p.Start {
		var last [1]byte
		if _, err := f.ReadAt(last[:], p.End-1); err != nil || last[0] != '\n' {
			return errSortedDamaged
		}
	}
	return nil
}

// find returns session id's line in p's sorted part of f (without its
// newline), or nil when the part holds none.
func (p *SortedPart) find(f io.ReaderAt, id string) ([]byte, error) {
	// The line of id, if any, starts in [lo, hi); lo is a line start.
	lo, hi := p.Start, p.End
	for hi-lo > findWindow {
		mid := lo + (hi-lo)/2
		s, line, err := probe(f, mid, hi, p.End)
		if err != nil {
			return nil, err
		}
		if s >= hi {
			hi = mid
			continue
		}
		lid, ok := lineID(line)
		if !ok {
			return nil, errSortedDamaged
		}
		switch {
		case lid == id:
			return line, nil
		case lid < id:
			lo = s + int64(len(line)) + 1
		default:
			hi = s
		}
	}
	if lo >= hi {
		return nil, nil
	}
	// The rest is small: read it, with the end of its last line.
	buf := make([]byte, min(hi+4096, p.End)-lo)
	if _, err := f.ReadAt(buf, lo); err != nil {
		return nil, errSortedDamaged
	}
	for off := int64(0); lo+off < hi; {
		nl := bytes.IndexByte(buf[off:], '\n')
		var line []byte
		if nl < 0 {
			var err error
			if line, err = readLine(f, lo+off, p.End); err != nil {
				return nil, err
			}
		} else {
			line = buf[off : off+int64(nl)]
		}
		lid, ok := lineID(line)
		if !ok {
			return nil, errSortedDamaged
		}
		if lid == id {
			return bytes.Clone(line), nil
		}
		if lid > id {
			return nil, nil
		}
		off += int64(len(line)) + 1
	}
	return nil, nil
}

// probe returns the first line that starts at or after mid (past a
// newline at mid-1 or later), without its newline, and where it starts;
// or hi when none starts below hi. Lines end before end.
func probe(f io.ReaderAt, mid, hi, end int64) (int64, []byte, error) {
	var buf [1024]byte
	for at := mid - 1; at < hi; at += int64(len(buf)) {
		n := min(int64(len(buf)), end-at)
		if _, err := f.ReadAt(buf[:n], at); err != nil {
			return 0, nil, errSortedDamaged
		}
		i := bytes.IndexByte(buf[:n], '\n')
		if i < 0 {
			continue
		}
		s := at + int64(i) + 1
		if s >= hi {
			return hi, nil, nil
		}
		if j := bytes.IndexByte(buf[i+1:n], '\n'); j >= 0 {
			return s, bytes.Clone(buf[i+1 : i+1+j]), nil
		}
		line, err := readLine(f, s, end)
		return s, line, err
	}
	return hi, nil, nil
}

// readLine reads the line that starts at off, without its newline; the
// line ends before end.
func readLine(f io.ReaderAt, off, end int64) ([]byte, error) {
	var line []byte
	chunk := make([]byte, 1024)
	for at := off; at < end; {
		n := min(int64(len(chunk)), end-at)
		if _, err := f.ReadAt(chunk[:n], at); err != nil {
			return nil, errSortedDamaged
		}
		if i := bytes.IndexByte(chunk[:n], '\n'); i >= 0 {
			return append(line, chunk[:i]...), nil
		}
		line = append(line, chunk[:n]...)
		at += n
		if len(chunk) < 64<<10 {
			chunk = make([]byte, 2*len(chunk))
		}
	}
	return nil, errSortedDamaged
}

// lookup finds session id's line in the journal's sorted part.
func (l *sessionLog) lookup(id string) ([]byte, error) {
	f, err := openSorted(l.fsys, l.name, l.sorted)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return l.sorted.find(f, id)
}
