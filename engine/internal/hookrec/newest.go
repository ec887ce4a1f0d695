package hookrec

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"

	"cairn/internal/vfs"
)

// TailChunk is how much of the end of an items journal NewestItem reads
// at a time.
const TailChunk = 64 << 10

// NewestItem is the id of the item written last to the items journal
// name ("" when it holds none), read from the journal's end: the last
// complete line of kind item. A torn last line is not one.
func NewestItem(fsys vfs.FS, name string) (string, error) {
	f, err := fsys.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	end := fi.Size()
	var carry []byte // the start of a line whose end was read already
	for end > 0 {
		start := max(0, end-TailChunk)
		buf := make([]byte, end-start, end-start+int64(len(carry)))
		if _, err := f.ReadAt(buf, start); err != nil && !errors.Is(err, io.EOF) {
			return "", err
		}
		buf = append(buf, carry...)
		if end == fi.Size() {
			// What follows the last newline is a torn line: not read.
			i := bytes.LastIndexByte(buf, '\n')
			if i < 0 {
				buf = buf[:0]
			} else {
				buf = buf[:i+1]
			}
		}
		lines := bytes.Split(bytes.TrimSuffix(buf, []byte("\n")), []byte("\n"))
		first := 0
		if start > 0 {
			first = 1 // its start is in the chunk before
		}
		for i := len(lines) - 1; i >= first; i-- {
			var l struct {
				V    int    `json:"v"`
				Kind string `json:"kind"`
				ID   string `json:"id"`
			}
			if json.Unmarshal(lines[i], &l) == nil && l.V == 1 && l.Kind == "item" && l.ID != "" {
				return l.ID, nil
			}
		}
		if start == 0 {
			return "", nil
		}
		carry = append([]byte(nil), lines[0]...)
		end = start
	}
	return "", nil
}
