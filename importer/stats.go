package importer

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"maps"
)

// Stats accounts for every line of a source (doc.go).
type Stats struct {
	Lines   map[string]int `json:"lines"`   // complete lines read, by source type
	Made    map[string]int `json:"made"`    // lines that made items, by source type
	Items   map[string]int `json:"items"`   // items made, by cairn item type
	Merged  int            `json:"merged"`  // lines merged into an earlier line's item
	Skipped map[string]int `json:"skipped"` // lines left out, by kind
	Torn    int64          `json:"torn"`    // bytes of a torn last line, not read
}

func newStats() Stats {
	return Stats{Lines: map[string]int{}, Made: map[string]int{}, Items: map[string]int{}, Skipped: map[string]int{}}
}

// Add adds o's counts to s.
func (s *Stats) Add(o Stats) {
	if s.Lines == nil {
		*s = newStats()
	}
	for _, p := range [][2]map[string]int{{s.Lines, o.Lines}, {s.Made, o.Made}, {s.Items, o.Items}, {s.Skipped, o.Skipped}} {
		for k, v := range p[1] {
			p[0][k] += v
		}
	}
	s.Merged += o.Merged
	s.Torn += o.Torn
}

// Clone is a copy of s.
func (s Stats) Clone() Stats {
	return Stats{Lines: maps.Clone(s.Lines), Made: maps.Clone(s.Made), Items: maps.Clone(s.Items), Merged: s.Merged, Skipped: maps.Clone(s.Skipped), Torn: s.Torn}
}

// eachLine calls fn with every complete line of r (without its newline)
// and the byte offset it starts at, counted from base (where r starts in
// its file), and returns the offset after the last complete line read and
// the length of a torn last line. With limit >= 0 it stops before the
// line that starts at limit or after it.
func eachLine(r io.Reader, base, limit int64, fn func(line []byte, off int64)) (read, torn int64, err error) {
	br := bufio.NewReaderSize(r, 1<<20)
	off := base
	for {
		if limit >= 0 && off >= limit {
			return off, 0, nil
		}
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer: gather it whole.
			buf := append([]byte(nil), line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = br.ReadSlice('\n')
				buf = append(buf, line...)
			}
			line = buf
		}
		if errors.Is(err, io.EOF) {
			return off, int64(len(line)), nil
		}
		if err != nil {
			return off, 0, err
		}
		if l := bytes.TrimRight(line[:len(line)-1], "\r"); len(bytes.TrimSpace(l)) > 0 {
			fn(l, off)
		}
		off += int64(len(line))
	}
}
