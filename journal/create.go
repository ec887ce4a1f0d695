package journal

import (
	"bytes"
	"encoding/json"
	"fmt"

	"cairn/internal/vfs"
)

// Create makes a new journal name holding lines, each encoded as Append
// encodes it, and opens it for appending. The file appears whole or not at
// all: it is written under a temp name, synced, renamed into place and its
// folder synced (vfs.WriteFileAtomic). So a journal whose existence means
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
	var buf, one bytes.Buffer
	enc := json.NewEncoder(&one)
	for _, v := range lines {
		one.Reset()
		if err := enc.Encode(v); err != nil { // json.Marshal's bytes and "\n"
			return nil, fmt.Errorf("journal: create %s: %w", name, err)
		}
		line := one.Bytes()
		if n := len(line) - 1; n > opt.MaxLine {
			return nil, fmt.Errorf("%w: %d bytes, cap %d", ErrLineTooLong, n, opt.MaxLine)
		}
		if line[0] != '{' {
			return nil, fmt.Errorf("%w: not a JSON object", ErrBadLine)
		}
		buf.Write(line)
	}
	if err := vfs.WriteFileAtomic(fsys, name, buf.Bytes()); err != nil {
		return nil, fmt.Errorf("journal: create %s: %w", name, err)
	}
	w, _, err := OpenWriter(fsys, name, opt)
	return w, err
}
