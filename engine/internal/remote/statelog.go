package remote

import (
	"bytes"
	"errors"
	"io"
	"sort"

	json "github.com/segmentio/encoding/json"

	"cairn/internal/vfs"
)

// sessionLog is how a State keeps its sessions on disk: the journal
// remotes/<name>/sessions.jsonl, one line a session each time a save
// found it changed, the last line of a session standing for it. A save
// appends the changed sessions' lines and syncs them, so a turn's sync
// writes a line or two whatever the remote holds; the journal is written
// whole again (atomic rename), sorted by session (statesorted.go), once
// the lines appended past its sorted part pass tailMax, or when what it
// held was dropped.
//
// A load reads the lines past the sorted part and decodes only those a
// pull needs at once (with pending segments or a forget); the others are
// kept as bytes, by the id at the start of each line, or left in the
// file, and decoded when a session is first asked for (want), so a sync
// after one turn reads and decodes a line or two however many sessions
// the remote holds. A journal not found sorted as the head says is read
// whole.
type sessionLog struct {
	fsys    vfs.FS
	name    string            // the journal's name in fsys
	sorted  *SortedPart       // the journal's sorted part, nil when not known
	dirty   map[string]bool   // sessions changed since the load or last save
	raw     map[string][]byte // sessions' last lines past the sorted part, not decoded yet
	seen    map[string]bool   // sessions whose journal state is in memory
	all     bool              // every session's journal state is in memory
	end     int64             // the byte past the last whole line
	tail    int               // whole lines past the sorted part (all lines when none)
	rewrite bool              // write the journal whole at the next save
	lost    error             // why part of the sorted part could not be read since the load
	lookups int               // searches of the sorted part since the load
}

// maxLookups is how many sessions a state finds by a search of the sorted
// part before it reads the sorted part whole instead.
const maxLookups = 256

// tailMax is how many lines a save lets past the sorted part (with a
// sixteenth of the sessions more) before it writes the journal whole.
// The lines of sessions with pending segments that the last whole write
// put there do not count (appended, below).
func (l *sessionLog) tailMax() int {
	if l.sorted == nil {
		return 0
	}
	return 1024 + l.sorted.Lines/16
}

// sessionRecord is one line of the journal: all that the state holds of
// one session. A line with nothing but the id says the state holds
// nothing of it any more.
type sessionRecord struct {
	ID        string        `json:"id"`
	Session   *SessionState `json:"session,omitempty"`
	Card      *Card         `json:"card,omitempty"`
	Pending   []Segment     `json:"pending,omitempty"`
	Forgotten bool          `json:"forgotten,omitempty"`
}

// touch marks session id changed, for the next save. The caller holds
// whatever guards the state.
func (st *State) touch(id string) {
	st.want(id)
	if st.log.dirty == nil {
		st.log.dirty = map[string]bool{}
	}
	st.log.dirty[id] = true
}

// loadSessions folds the journal into the state: the lines past the
// sorted part the head names, or the whole journal when it is not found
// sorted so. A torn last line (a save cut short) is left out and cut off
// by the next append; a whole line that does not start with a session's
// id or, decoded, does not decode means the journal is damaged, and ok is
// false: the caller drops the state and the next sync rebuilds it, as
// when the head names a sorted part and the journal is gone. Lines are
// decoded with segmentio/encoding/json, as the session journals are.
func (st *State) loadSessions(fsys vfs.FS, name string, sorted *SortedPart) (ok bool, err error) {
	jname := sessionsName(name)
	st.log.fsys, st.log.name = fsys, jname
	var (
		b    []byte
		from int64
	)
	if sorted != nil {
		b, err = readTail(fsys, jname, sorted)
		switch {
		case errors.Is(err, errSortedDamaged), errors.Is(err, errSortedChanged):
			sorted = nil // written whole since the head was: read it whole
		case vfs.IsNotExist(err):
			return false, nil
		case err != nil:
			return false, err
		default:
			from = sorted.End
		}
	}
	if sorted == nil {
		st.log.rewrite = true // written sorted at the next save
		b, err = vfs.ReadFile(fsys, jname)
		if vfs.IsNotExist(err) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
	}
	st.log.sorted = sorted
	st.log.raw = make(map[string][]byte, bytes.Count(b, []byte{'\n'}))
	st.log.seen = map[string]bool{}
	off := 0
	for {
		nl := bytes.IndexByte(b[off:], '\n')
		if nl < 0 {
			break // a torn tail, or nothing left
		}
		line := b[off : off+nl]
		off += nl + 1
		id, ok := lineID(line)
		if !ok {
			return false, nil
		}
		if bytes.Contains(line, []byte(pendingMark)) || bytes.Contains(line, []byte(forgottenMark)) {
			var rec sessionRecord
			if json.Unmarshal(line, &rec) != nil || rec.ID != id {
				return false, nil
			}
			delete(st.log.raw, id)
			st.apply(&rec)
			st.log.seen[id] = true
		} else {
			st.apply(&sessionRecord{ID: id}) // an earlier line no longer stands
			st.log.raw[id] = line
		}
		st.log.tail++
	}
	st.log.end = from + int64(off)
	return true, nil
}

// readTail reads the journal past its sorted part, once it checked that
// the journal begins with that part.
func readTail(fsys vfs.FS, name string, p *SortedPart) ([]byte, error) {
	f, err := openSorted(fsys, name, p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	b := make([]byte, fi.Size()-p.End)
	n, err := f.ReadAt(b, p.End)
	if errors.Is(err, io.EOF) {
		err = nil // cut meanwhile: its torn line is left out
	}
	return b[:n], err
}

// What marks a line to decode at load: a pull reads every session's
// pending segments and forgets. (Within a JSON string a quote is escaped,
// so these bytes appear only as keys; an output named so is decoded at
// load too, which is harmless.)
const (
	pendingMark   = `"pending":[`
	forgottenMark = `"forgotten":true`
)

// lineID reads the session id a journal line starts with ({"id":"<id>",
// as writeRecord writes it).
func lineID(line []byte) (string, bool) {
	const head = `{"id":"`
	if len(line) < len(head)+36+1 || string(line[:len(head)]) != head || line[len(head)+36] != '"' {
		return "", false
	}
	id := string(line[len(head) : len(head)+36])
	return id, validID(id)
}

// want decodes what the journal holds of session id, when it was not
// decoded yet: its last line past the sorted part, else its line in the
// sorted part. A line that does not decode, or a sorted part that cannot
// be searched, leaves the session unknown (a cache miss: the next push
// finds its segments on the remote) and has the journal written whole at
// the next save. A journal that cannot be read as it was at the load
// (written whole again since, by another process) leaves the session
// unknown too, and the save fails (readFailed).
func (st *State) want(id string) {
	l := &st.log
	if line, ok := l.raw[id]; ok {
		delete(l.raw, id)
		l.see(id)
		st.decode(id, line)
		return
	}
	if l.all || l.sorted == nil || l.seen[id] {
		return
	}
	if l.lookups++; l.lookups > maxLookups {
		// A sync that looks at many sessions (a large pull) reads the
		// sorted part once rather than searching it for each.
		st.wantAll()
		return
	}
	l.see(id)
	line, err := l.lookup(id)
	if err != nil {
		l.readFailed(err)
		return
	}
	if line != nil {
		st.decode(id, line)
	}
}

// readFailed notes that the sorted part could not be read. A damaged line
// in it is a cache miss, and the journal is written whole at the next
// save with what else it holds. Any other failure (the journal written
// whole again since the load, gone, or not readable) leaves sessions
// unknown that the journal may hold: writing it whole, or appending to
// it, would drop them, so the next save fails and writes nothing.
func (l *sessionLog) readFailed(err error) {
	if errors.Is(err, errSortedDamaged) {
		l.rewrite = true
		return
	}
	if l.lost == nil {
		l.lost = err
	}
}

// appended is how many lines saves appended since the journal was last
// written whole.
func (l *sessionLog) appended() int {
	if l.sorted == nil {
		return l.tail
	}
	return l.tail - l.sorted.Pending
}

func (l *sessionLog) see(id string) {
	if l.seen == nil {
		l.seen = map[string]bool{}
	}
	l.seen[id] = true
}

func (st *State) decode(id string, line []byte) {
	var rec sessionRecord
	if json.Unmarshal(line, &rec) != nil || rec.ID != id {
		st.log.rewrite = true
		return
	}
	st.apply(&rec)
}

// wantAll decodes every line not decoded yet, the sorted part's included.
func (st *State) wantAll() {
	l := &st.log
	if l.all {
		return
	}
	if l.sorted != nil {
		err := l.eachSorted(func(id string, line []byte) {
			if _, later := l.raw[id]; !later && !l.seen[id] {
				if l.raw == nil {
					l.raw = map[string][]byte{}
				}
				l.raw[id] = line
			}
		})
		if err != nil {
			l.readFailed(err)
		}
	}
	for id := range l.raw {
		st.want(id)
	}
	l.all = true
}

// eachSorted calls fn with each line of the sorted part and its id. A
// line without an id is passed over, and reported once all are read.
func (l *sessionLog) eachSorted(fn func(id string, line []byte)) error {
	f, err := openSorted(l.fsys, l.name, l.sorted)
	if err != nil {
		return err
	}
	defer f.Close()
	b := make([]byte, l.sorted.End-l.sorted.Start)
	if _, err := f.ReadAt(b, l.sorted.Start); err != nil {
		return err
	}
	var bad error
	for len(b) > 0 {
		nl := bytes.IndexByte(b, '\n')
		if nl < 0 {
			break
		}
		if id, ok := lineID(b[:nl]); ok {
			fn(id, b[:nl])
		} else {
			bad = errSortedDamaged
		}
		b = b[nl+1:]
	}
	return bad
}

// apply sets what the state holds of a session to what rec says.
func (st *State) apply(rec *sessionRecord) {
	id := rec.ID
	if rec.Session != nil {
		st.Sessions[id] = rec.Session
	} else {
		delete(st.Sessions, id)
	}
	if rec.Card != nil {
		st.Cards[id] = rec.Card
	} else {
		delete(st.Cards, id)
	}
	if len(rec.Pending) > 0 {
		st.Pending[id] = rec.Pending
	} else {
		delete(st.Pending, id)
	}
	if rec.Forgotten {
		st.Forgotten[id] = true
	} else {
		delete(st.Forgotten, id)
	}
}

// record is what the state holds of session id, as a journal line.
func (st *State) record(id string) sessionRecord {
	return sessionRecord{ID: id, Session: st.Sessions[id], Card: st.Cards[id],
		Pending: st.Pending[id], Forgotten: st.Forgotten[id]}
}

// ids are the sessions the state holds anything of, sorted.
func (st *State) ids() []string {
	st.wantAll()
	seen := map[string]bool{}
	for _, m := range []map[string]bool{keys(st.Sessions), keys(st.Cards), keys(st.Pending), st.Forgotten} {
		for id := range m {
			seen[id] = true
		}
	}
	out := make([]string, 0, len(seen))
	for id := range seen {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

func keys[V any](m map[string]V) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}
