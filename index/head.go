package index

import (
	"bufio"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
)

// Head returns the first n entries of the listing as index.json last saved
// it, leaving out those skip (when not nil) reports true for, and the number
// of entries the file holds. It reads only the start of the file: the
// entries are stored newest first, one a line, after a first line that
// gives their count. Nothing is listed, stat'ed or verified, so the answer
// may be out of date (a record deleted or rewritten since): it is for a
// first screen, which a Refresh then replaces.
//
// A missing, unreadable or unsorted file, one of another version or layout,
// or one of an earlier build (without its count) is an error: the caller
// refreshes instead. Head does not use or change what the Index holds.
func (x *Index) Head(n int, skip func(*Entry) bool) ([]Entry, int, error) {
	f, err := x.fsys.OpenFile(x.fileName(), os.O_RDONLY, 0)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	return readHead(bufio.NewReaderSize(f, 64<<10), n, skip)
}

// headPrefix starts the first line of index.json; the count and
// headSuffix follow.
const (
	headPrefix = `{"v":1,"count":`
	headSuffix = `,"entries":[`
)

// readHead reads the first line of an index file and then entry lines until
// it has n entries not skipped or the entries end.
func readHead(r *bufio.Reader, n int, skip func(*Entry) bool) ([]Entry, int, error) {
	first, err := r.ReadString('\n')
	if err != nil {
		return nil, 0, errCache
	}
	num, ok1 := strings.CutPrefix(strings.TrimSuffix(first, "\n"), headPrefix)
	num, ok2 := strings.CutSuffix(num, headSuffix)
	if !ok1 || !ok2 {
		return nil, 0, errCache
	}
	count, err := strconv.Atoi(num)
	if err != nil || count < 0 {
		return nil, 0, errCache
	}
	var out []Entry
	var prev Entry
	for read := 0; len(out) < n; read++ {
		line, err := r.ReadString('\n')
		if strings.HasPrefix(line, "]") {
			if read != count {
				return nil, 0, errCache
			}
			break
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = errCache // a file cut short
			}
			return nil, 0, err
		}
		// Every entry line but the last ends in a comma; the last is
		// followed by "]".
		line = strings.TrimSuffix(line, "\n")
		if body, ok := strings.CutSuffix(line, ","); ok {
			line = body
		} else if read != count-1 {
			return nil, 0, errCache
		}
		var e Entry
		var st statKey
		if !decodeEntryLine(line, &e, &st, 0) || read >= count || read > 0 && compareEntries(&prev, &e) >= 0 {
			return nil, 0, errCache
		}
		prev = e
		if skip == nil || !skip(&e) {
			out = append(out, e)
		}
	}
	return out, count, nil
}
