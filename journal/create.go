package journal

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"cairn/internal/vfs"
)

// Create makes a new journal name holding lines, each encoded as Append
// encodes it, and opens it for appending. The file appears whole or not at
// all: it is written under a temp name, synced, renamed into place and its
// folder synced (vfs.WriteAtomic). So a journal whose existence means
// something (a session's items journal) is never seen empty or half made,
// even after a crash or a full disk. A value that does not encode to a JSON
// object within the line cap writes nothing.
//
// name must not exist yet: Create does not check, and the rename would
// replace it.
func Create(fsys vfs.FS, name string, lines []any, opt Options) (*Writer, error) {
	if opt.MaxLine <= 0 {
		opt.MaxLine = MaxLine
	}
	// The lines go to the temp file as they are encoded (a session imported
	// whole is hundreds of megabytes: no buffer of it all).
	var one bytes.Buffer
	var bad error // a value that is no line: refused, nothing written
	enc := json.NewEncoder(&one)
	err := vfs.WriteAtomic(fsys, name, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		for _, v := range lines {
			one.Reset()
			if err := enc.Encode(v); err != nil { // json.Marshal's bytes and "\n"
				bad = fmt.Errorf("journal: create %s: %w", name, err)
				return bad
			}
			line := one.Bytes()
			if n := len(line) - 1; n > opt.MaxLine {
				bad = fmt.Errorf("%w: %d bytes, cap %d", ErrLineTooLong, n, opt.MaxLine)
				return bad
			}
			if line[0] != '{' {
				bad = fmt.Errorf("%w: not a JSON object", ErrBadLine)
				return bad
			}
			if _, err := bw.Write(line); err != nil {
				return err
			}
		}
		return bw.Flush()
	})
	if bad != nil {
		return nil, bad
	}
	if err != nil {
		return nil, fmt.Errorf("journal: create %s: %w", name, err)
	}
	w, _, err := OpenWriter(fsys, name, opt)
	return w, err
}
