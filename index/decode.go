package index

import (
	"encoding/json"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"
)

// decodeCache reads index.json. The strings of the cache share memory with
// data, which must not be modified afterwards. It is a small hand-written reader, because
// decoding 100,000 entries with reflection costs more than the whole listing
// may. Unknown fields are skipped; anything that is not a version 1 index is
// errCache, and the caller rebuilds.
func decodeCache(data []byte) (*cache, error) {
	// Every unescaped string is a slice of data: no allocation or copy per
	// field. data is never modified after this (see above).
	s := &scanner{b: unsafe.String(unsafe.SliceData(data), len(data))}
	n := strings.Count(s.b, "\n") + 1 // one entry a line, as written
	c := &cache{entries: make([]Entry, 0, n), stats: make([]statKey, 0, n)}
	version, count := int64(-1), int64(-1)
	s.object(func(key string) {
		switch key {
		case "v":
			version = s.int()
		case "count":
			count = s.int()
		case "entries":
			if s.entriesParallel(c) {
				return
			}
			s.array(func() {
				var e Entry
				var st statKey
				s.object(func(key string) { s.entryField(key, &e, &st) })
				if e.ID == "" {
					s.fail()
				}
				st = journalKnown(&e, st)
				c.entries = append(c.entries, e)
				c.stats = append(c.stats, st)
			})
		default:
			s.cacheField(key, c)
		}
	})
	s.ws()
	if s.bad || s.i != len(s.b) || version != formatVersion || count >= 0 && count != int64(len(c.entries)) {
		return nil, errCache
	}
	c.counted = count >= 0
	return c, nil
}

// cacheField reads the value of the index's field key other than "v",
// "count" and "entries" into c (an unknown field is skipped), and reports
// false, having read nothing, for those three.
func (s *scanner) cacheField(key string, c *cache) bool {
	switch key {
	case "v", "count", "entries":
		return false
	case "problems":
		s.array(func() {
			var p Problem
			var st statKey
			s.object(func(key string) {
				switch key {
				case "name":
					p.Name = s.str()
				case "err":
					p.Err = s.str()
				case "stat":
					st = s.stat()
				default:
					s.skip()
				}
			})
			if p.Name == "" || st == (statKey{}) {
				s.fail()
			}
			c.problems = append(c.problems, p)
			c.pstats = append(c.pstats, st)
		})
	case "folder":
		c.folder = s.stat()
	case "listed_ns":
		c.listedNS = s.int()
	case "unrecorded":
		s.array(func() { c.unrecorded = append(c.unrecorded, s.str()) })
	default:
		s.skip()
	}
	return true
}

func (s *scanner) entryField(key string, e *Entry, st *statKey) {
	switch key {
	case "id":
		e.ID = s.str()
	case "title":
		e.Title = s.str()
	case "title_source":
		e.TitleSource = s.str()
	case "created_at":
		e.CreatedAt = s.time()
	case "updated_at":
		e.UpdatedAt = s.time()
	case "opened_at":
		e.OpenedAt = s.time()
	case "items":
		e.Items = int(s.int())
	case "bytes":
		e.Bytes = s.int()
	case "branch":
		e.Branch = s.str()
	case "tier":
		e.Tier = s.str()
	case "pinned":
		e.Pinned = s.boolean()
	case "fork_of":
		e.ForkOf = s.str()
	case "path":
		e.Path = s.str()
	case "remote":
		e.Remote = s.str()
	case "journal":
		e.Journal = s.int()
	case "stat":
		*st = s.stat()
	default:
		s.skip()
	}
}

// scanner reads JSON from b. The first error sets bad; every later call is
// then a no-op, so callers check bad once at the end.
type scanner struct {
	b     string
	i     int
	bad   bool
	depth int
}

// maxDepth bounds nesting, so a hostile file cannot exhaust the stack.
const maxDepth = 64

func (s *scanner) fail() { s.bad = true; s.i = len(s.b) }

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek skips white space and returns the next byte, or 0 at the end.
func (s *scanner) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *scanner) expect(c byte) {
	if s.peek() != c {
		s.fail()
		return
	}
	s.i++
}

// object calls field for each key, with the scanner at the key's value;
// field must consume the value.
func (s *scanner) object(field func(key string)) {
	s.expect('{')
	if s.depth++; s.depth > maxDepth {
		s.fail()
	}
	defer func() { s.depth-- }()
	if s.peek() == '}' {
		s.i++
		return
	}
	for !s.bad {
		key := s.rawString()
		s.expect(':')
		if s.bad {
			return
		}
		field(key)
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return
		default:
			s.fail()
		}
	}
}

// array calls elem for each element; elem must consume it.
func (s *scanner) array(elem func()) {
	s.expect('[')
	if s.depth++; s.depth > maxDepth {
		s.fail()
	}
	defer func() { s.depth-- }()
	if s.peek() == ']' {
		s.i++
		return
	}
	for !s.bad {
		elem()
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return
		default:
			s.fail()
		}
	}
}

// rawString returns a string, its escapes undone. It shares memory with b
// when there are none.
func (s *scanner) rawString() string {
	if s.peek() != '"' {
		s.fail()
		return ""
	}
	start := s.i + 1
	if j := strings.IndexByte(s.b[start:], '"'); j >= 0 && strings.IndexByte(s.b[start:start+j], '\\') < 0 {
		// The common case: no escapes. (A raw control character, which
		// JSON does not allow, is let through.)
		s.i = start + j + 1
		return s.b[start : start+j]
	}
	for j := start; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '\\':
			j++
		case c == '"':
			s.i = j + 1
			var v string
			if json.Unmarshal([]byte(s.b[start-1:j+1]), &v) != nil {
				s.fail()
				return ""
			}
			return v
		}
	}
	s.fail()
	return ""
}

func (s *scanner) str() string {
	if s.peek() == 'n' {
		s.null()
		return ""
	}
	return s.rawString()
}

func (s *scanner) null() {
	if !strings.HasPrefix(s.b[s.i:], "null") {
		s.fail()
		return
	}
	s.i += 4
}

func (s *scanner) boolean() bool {
	switch {
	case s.peek() == 't' && strings.HasPrefix(s.b[s.i:], "true"):
		s.i += 4
		return true
	case s.peek() == 'f' && strings.HasPrefix(s.b[s.i:], "false"):
		s.i += 5
		return false
	}
	s.fail()
	return false
}

func (s *scanner) int() int64 {
	s.ws()
	j := s.i
	if j < len(s.b) && s.b[j] == '-' {
		j++
	}
	for j < len(s.b) && '0' <= s.b[j] && s.b[j] <= '9' {
		j++
	}
	n, err := strconv.ParseInt(s.b[s.i:j], 10, 64)
	if err != nil {
		s.fail()
		return 0
	}
	s.i = j
	return n
}

func (s *scanner) uint() uint64 {
	s.ws()
	j := s.i
	for j < len(s.b) && '0' <= s.b[j] && s.b[j] <= '9' {
		j++
	}
	n, err := strconv.ParseUint(s.b[s.i:j], 10, 64)
	if err != nil {
		s.fail()
		return 0
	}
	s.i = j
	return n
}

func (s *scanner) time() (t time.Time) {
	raw := s.rawString()
	if s.bad {
		return t
	}
	v, err := parseTime(raw)
	if err != nil {
		s.fail()
		return t
	}
	return v
}

func (s *scanner) stat() (st statKey) {
	s.object(func(key string) {
		switch key {
		case "size":
			st.size = s.int()
		case "mtime_ns":
			st.mtime = s.int()
		case "ino":
			st.ino = s.uint()
		default:
			s.skip()
		}
	})
	return st
}

// skip consumes one value of any kind.
func (s *scanner) skip() {
	switch c := s.peek(); {
	case c == '{':
		s.object(func(string) { s.skip() })
	case c == '[':
		s.array(s.skip)
	case c == '"':
		s.rawString()
	case c == 't' || c == 'f':
		s.boolean()
	case c == 'n':
		s.null()
	case c == '-' || '0' <= c && c <= '9':
		j := s.i + 1
		for j < len(s.b) && strings.IndexByte("0123456789.eE+-", s.b[j]) >= 0 {
			j++
		}
		if !json.Valid([]byte(s.b[s.i:j])) {
			s.fail()
			return
		}
		s.i = j
	default:
		s.fail()
	}
}

// entriesParallel decodes the entries array on every core when it has the
// layout cairn writes (one entry a line; JSON strings hold no raw newline,
// so "\n]" can only end the array). It reports false, having consumed
// nothing, when the layout is not that or the array is small; the caller
// then decodes it in order.
func (s *scanner) entriesParallel(c *cache) bool {
	if s.peek() != '[' {
		return false
	}
	end := strings.Index(s.b[s.i:], "\n]")
	if end < 0 {
		return false
	}
	body := s.b[s.i+1 : s.i+end]
	lines := strings.Split(strings.TrimPrefix(body, "\n"), "\n")
	if len(lines) < 4096 {
		return false
	}
	entries := make([]Entry, len(lines))
	stats := make([]statKey, len(lines))
	workers := min(runtime.GOMAXPROCS(0), 8)
	chunk := (len(lines) + workers - 1) / workers
	bad := make([]bool, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*chunk, min((w+1)*chunk, len(lines))
		wg.Go(func() {
			for i := lo; i < hi; i++ {
				line := strings.TrimSuffix(lines[i], ",")
				if i < len(lines)-1 && len(line) == len(lines[i]) {
					bad[w] = true // every line but the last ends in a comma
					return
				}
				if !decodeEntryLine(line, &entries[i], &stats[i], s.depth+1) {
					bad[w] = true
					return
				}
			}
		})
	}
	wg.Wait()
	for _, b := range bad {
		if b {
			return false
		}
	}
	if len(c.entries) == 0 {
		// Taken as they are: a copy would hold the listing twice.
		c.entries, c.stats = entries, stats
	} else {
		c.entries = append(c.entries, entries...)
		c.stats = append(c.stats, stats...)
	}
	s.i += end + 2
	return true
}

// decodeEntryLine decodes one entry line (without its comma) into e and st,
// fastEntry's way when the line is as cairn writes it, else the scanner's,
// at nesting depth depth. It reports false when the line is no entry.
func decodeEntryLine(line string, e *Entry, st *statKey, depth int) bool {
	if fastEntry(line, e, st) {
		*st = journalKnown(e, *st)
		return true
	}
	*e, *st = Entry{}, statKey{}
	sub := &scanner{b: line, depth: depth}
	sub.object(func(key string) { sub.entryField(key, e, st) })
	sub.ws()
	*st = journalKnown(e, *st)
	return !sub.bad && sub.i == len(line) && e.ID != ""
}

// journalKnown is st, or no stat key when entry e has no "journal" (0): an
// index an earlier build wrote kept none, so its record is read again by
// the next Refresh, once.
func journalKnown(e *Entry, st statKey) statKey {
	if e.Journal == 0 {
		return statKey{}
	}
	return st
}
