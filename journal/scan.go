package journal

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	json "github.com/segmentio/encoding/json"
	"io"
	"os"

	"cairn/internal/vfs"
)

// Stats says what a read of a journal found.
type Stats struct {
	// Lines is the number of complete lines handed to the callback.
	Lines int
	// Bad lists the complete lines that were skipped.
	Bad []BadLine
	// Torn is the number of bytes after the last complete line.
	Torn int64
	// End is the offset just after the last complete line (good or bad):
	// where the next line will start once a Writer has cut the torn tail.
	End int64
}

// BadLine is a complete line that readers skip: not a JSON object, or over
// the line cap.
type BadLine struct {
	// Line is the 1-based number of the line among the complete lines read
	// (counted from the starting offset for ReadFrom).
	Line int
	// Offset is the byte offset of the line's first byte in the file.
	Offset int64
	// Err says what is wrong with it.
	Err string
}

// readBuf is the initial size of the read buffer; a longer line grows a
// buffer of its own, up to the line cap.
const readBuf = 64 << 10

// Scan reads journal lines from r and calls fn with each complete line that
// holds a JSON object, without its "\n". The slice is only valid during the
// call: copy it to keep it. Bad lines are skipped and listed in Stats.Bad; a
// final line without "\n" is ignored and counted in Stats.Torn. Memory stays
// bounded by limit (the line cap; <= 0 means MaxLine): a longer line is read
// past and counted as bad.
//
// An error from fn stops the scan and is returned as is, with the Stats so
// far. A read error of r is returned too.
func Scan(r io.Reader, limit int, fn func(line []byte) error) (Stats, error) {
	if limit <= 0 {
		limit = MaxLine
	}
	br := bufio.NewReaderSize(r, min(max(limit+1, 16), readBuf))
	var (
		st      Stats
		start   int64  // offset of the line being read
		pending int64  // bytes of it read so far
		long    []byte // the line so far, when it outgrows br's buffer
		tooLong bool   // the line is over limit: read past it
		lineNo  int
	)
	for {
		chunk, err := br.ReadSlice('\n')
		pending += int64(len(chunk))
		switch {
		case err == nil:
		case errors.Is(err, bufio.ErrBufferFull):
			if !tooLong {
				if len(long)+len(chunk) > limit {
					tooLong, long = true, nil
				} else {
					long = append(long, chunk...)
				}
			}
			continue
		case errors.Is(err, io.EOF):
			st.Torn = pending
			return st, nil
		default:
			return st, err
		}

		// A complete line.
		lineNo++
		off := start
		start += pending
		pending = 0
		st.End = start
		line := chunk[:len(chunk)-1]
		if len(long) > 0 {
			long = append(long, line...)
			line = long
			long = long[:0]
		}
		if tooLong || len(line) > limit {
			tooLong = false
			st.Bad = append(st.Bad, BadLine{Line: lineNo, Offset: off, Err: fmt.Sprintf("line over %d bytes", limit)})
			continue
		}
		if msg := checkLine(line); msg != "" {
			st.Bad = append(st.Bad, BadLine{Line: lineNo, Offset: off, Err: msg})
			continue
		}
		if err := fn(line); err != nil {
			return st, err
		}
		st.Lines++
	}
}

// checkLine says what is wrong with a line, or "" when it is one JSON object.
func checkLine(line []byte) string {
	if !json.Valid(line) {
		var v json.RawMessage
		if err := json.Unmarshal(line, &v); err != nil {
			return "invalid JSON: " + err.Error()
		}
		return "invalid JSON"
	}
	if t := bytes.TrimLeft(line, " \t\r"); len(t) == 0 || t[0] != '{' {
		return "not a JSON object"
	}
	return ""
}

// Read scans the whole journal name (see Scan) with the default line cap.
// A missing file gives the FS's not-exist error (vfs.IsNotExist).
func Read(fsys vfs.FS, name string, fn func(line []byte) error) (Stats, error) {
	return ReadFrom(fsys, name, 0, fn)
}

// ReadFrom scans the journal name from byte offset off, which should be the
// start of a line (Stats.End of an earlier read, or Writer.Size). Offsets in
// the Stats are offsets in the file; line numbers count from off.
func ReadFrom(fsys vfs.FS, name string, off int64, fn func(line []byte) error) (Stats, error) {
	f, err := fsys.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return Stats{}, err
	}
	defer f.Close()
	return scanAt(f, off, MaxLine, fn)
}

// scanAt scans f from off and makes the Stats' offsets absolute.
func scanAt(f vfs.File, off int64, limit int, fn func(line []byte) error) (Stats, error) {
	if off < 0 {
		return Stats{}, fmt.Errorf("journal: read %s: negative offset %d", f.Name(), off)
	}
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return Stats{}, err
	}
	st, err := Scan(f, limit, fn)
	st.End += off
	for i := range st.Bad {
		st.Bad[i].Offset += off
	}
	return st, err
}
