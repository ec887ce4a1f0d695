package index

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
	"strings"
	"unsafe"
)

// streamBlock is how much of index.json decodeStream holds at a time;
// streamBatch is how many entries it hands its batch function at a time
// (under LstatNames's threshold for threads of its own).
const (
	streamBlock = 256 << 10
	streamBatch = 500
)

// decodeStream reads index.json as cairn writes it (a first line with the
// count, then one entry a line) a block at a time, decoding each entry line
// as it comes and keeping only its strings, and reads the rest of the file
// (problems, the folder's key, unrecorded sessions) with the scanner. It
// reports false, for any other layout (which decodeCache reads) or anything
// it cannot read; it then has read from r.
//
// It gives what decodeCache gives the same bytes, for a fraction of the
// memory: at 100,000 sessions the file is 40 MB, read whole into memory
// never touched before (a page fault a page), where the strings an entry
// keeps are a quarter of its line, and the path, tier and title source are
// most often its neighbour's.
//
// batch, when not nil, is handed the entries read so far that it has not
// been handed yet, every streamBatch of them and at the end, for work done
// beside the decoding (see verifyAlong); it must not keep them past the
// call's end nor change them.
func decodeStream(r io.Reader, size int64, batch func([]Entry, []statKey)) (*cache, bool) {
	br := bufio.NewReaderSize(r, streamBlock)
	line, err := br.ReadSlice('\n')
	if err != nil {
		return nil, false
	}
	num, ok1 := strings.CutPrefix(string(line), headPrefix)
	num, ok2 := strings.CutSuffix(num, headSuffix+"\n")
	if !ok1 || !ok2 {
		return nil, false
	}
	count, err := strconv.Atoi(num)
	if err != nil || count < 0 {
		return nil, false
	}
	// The count is the file's word: no more entries than lines can fit.
	n := min(count, int(size/32)+1)
	c := &cache{entries: make([]Entry, 0, n), stats: make([]statKey, 0, n), counted: true}
	var a arena
	var prev Entry
	lastComma, handed := false, 0
	for {
		line, err = br.ReadSlice('\n')
		if err != nil {
			return nil, false // a line longer than a block, or a file cut short
		}
		if line[0] == ']' {
			break
		}
		b := unsafe.String(unsafe.SliceData(line), len(line)-1) // valid until the next read
		body, comma := strings.CutSuffix(b, ",")
		if len(c.entries) > 0 && !lastComma {
			return nil, false // only the last entry line goes without a comma
		}
		lastComma = comma
		var e Entry
		var st statKey
		if !decodeEntryLine(body, &e, &st, 2) {
			return nil, false
		}
		e.ID, e.Title, e.ForkOf = a.own(e.ID), a.own(e.Title), a.own(e.ForkOf)
		e.TitleSource = a.ownLike(e.TitleSource, prev.TitleSource)
		e.Branch = a.ownLike(e.Branch, prev.Branch)
		e.Tier = a.ownLike(e.Tier, prev.Tier)
		e.Path = a.ownLike(e.Path, prev.Path)
		c.entries = append(c.entries, e)
		c.stats = append(c.stats, st)
		prev = e
		if batch != nil && len(c.entries)-handed == streamBatch {
			batch(c.entries[handed:], c.stats[handed:])
			handed = len(c.entries)
		}
	}
	if batch != nil && len(c.entries) > handed {
		batch(c.entries[handed:], c.stats[handed:])
	}
	if len(c.entries) != count || lastComma {
		return nil, false
	}
	// The rest: the entries' "]", then the object's other fields. Read
	// as an object of its own, from where the comma after "]" stands.
	rest, err := io.ReadAll(br)
	if err != nil {
		return nil, false
	}
	tail := bytes.TrimLeft(append(line[1:len(line):len(line)], rest...), " \t\r\n")
	switch {
	case len(tail) > 0 && tail[0] == ',':
		if t := bytes.TrimLeft(tail[1:], " \t\r\n"); len(t) > 0 && t[0] == '}' {
			return nil, false // a comma and no field after it
		}
		tail[0] = '{'
	case len(tail) > 0 && tail[0] == '}':
		tail = append([]byte{'{'}, tail...)
	default:
		return nil, false
	}
	s := &scanner{b: unsafe.String(unsafe.SliceData(tail), len(tail))}
	s.object(func(key string) {
		if !s.cacheField(key, c) {
			s.fail() // "v", "count" or "entries" twice: decodeCache's to judge
		}
	})
	s.ws()
	if s.bad || s.i != len(s.b) {
		return nil, false
	}
	return c, true
}

// arena holds the strings decodeStream keeps, in blocks that are only ever
// appended to.
type arena struct{ block []byte }

// own returns a copy of s in the arena.
func (a *arena) own(s string) string {
	switch {
	case s == "":
		return ""
	case len(s) > 4<<10:
		return strings.Clone(s)
	case cap(a.block)-len(a.block) < len(s):
		a.block = make([]byte, 0, 64<<10)
	}
	start := len(a.block)
	a.block = append(a.block, s...)
	return unsafe.String(&a.block[start], len(s))
}

// ownLike returns like when s is the same string, else a copy of s.
func (a *arena) ownLike(s, like string) string {
	if s == like {
		return like
	}
	return a.own(s)
}
