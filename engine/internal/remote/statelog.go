package remote

import (
	"bytes"
	"io"
	"os"
	"path"
	"sort"

	json "github.com/segmentio/encoding/json"

	"cairn/internal/vfs"
)

// sessionLog is how a State keeps its sessions on disk: the journal
// remotes/<name>/sessions.jsonl, one line a session each time a save
// found it changed, the last line of a session standing for it. A save
// appends the changed sessions' lines and syncs them, so a turn's sync
// writes a line or two whatever the remote holds; the journal is written
// whole again (atomic rename) once it holds twice as many lines as
// sessions, or when what it held was dropped.
//
// A load decodes only the lines a pull needs at once (those with pending
// segments or a forget); the others are kept as bytes, by the id at the
// start of each line, and decoded when a session is first asked for
// (want), so a sync after one turn decodes a line or two however many
// sessions the remote holds.
type sessionLog struct {
	dirty   map[string]bool   // sessions changed since the load or last save
	raw     map[string][]byte // sessions' last lines, not decoded yet
	end     int64             // the byte past the last whole line
	lines   int               // whole lines in the journal
	rewrite bool              // write the journal whole at the next save
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

// loadSessions folds the journal into the state. A torn last line (a
// save cut short) is left out and cut off by the next append; a whole
// line that does not start with a session's id or, decoded, does not
// decode means the journal is damaged, and ok is false: the caller drops
// the state and the next sync rebuilds it. Lines are decoded with
// segmentio/encoding/json, as the session journals are.
func (st *State) loadSessions(fsys vfs.FS, name string) (ok bool, err error) {
	b, err := vfs.ReadFile(fsys, sessionsName(name))
	if vfs.IsNotExist(err) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	st.log.raw = make(map[string][]byte, bytes.Count(b, []byte{'\n'}))
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
		} else {
			st.apply(&sessionRecord{ID: id}) // an earlier line no longer stands
			st.log.raw[id] = line
		}
		st.log.lines++
	}
	st.log.end = int64(off)
	return true, nil
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
// decoded yet. A line that does not decode leaves the session unknown (a
// cache miss: the next push finds its segments on the remote) and has the
// journal written whole at the next save.
func (st *State) want(id string) {
	line, ok := st.log.raw[id]
	if !ok {
		return
	}
	delete(st.log.raw, id)
	var rec sessionRecord
	if json.Unmarshal(line, &rec) != nil || rec.ID != id {
		st.log.rewrite = true
		return
	}
	st.apply(&rec)
}

// wantAll decodes every line not decoded yet.
func (st *State) wantAll() {
	for id := range st.log.raw {
		st.want(id)
	}
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

// saveSessions appends the changed sessions' lines, or writes the journal
// whole when it must or when it grew to twice the lines it needs.
func (st *State) saveSessions(fsys vfs.FS, name string) error {
	// Roughly the sessions held: the threshold needs no exact count.
	live := max(len(st.Sessions), len(st.Cards), len(st.Pending)) + len(st.Forgotten) + len(st.log.raw)
	if st.log.rewrite || st.log.lines+len(st.log.dirty) > 2*live+1024 {
		return st.rewriteSessions(fsys, name)
	}
	if len(st.log.dirty) == 0 {
		return nil
	}
	ids := make([]string, 0, len(st.log.dirty))
	for id := range st.log.dirty {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var buf bytes.Buffer
	for _, id := range ids {
		if err := writeRecord(&buf, st.record(id)); err != nil {
			return err
		}
	}
	if err := appendLines(fsys, sessionsName(name), st.log.end, buf.Bytes()); err != nil {
		return err
	}
	st.log.end += int64(buf.Len())
	st.log.lines += len(ids)
	st.log.dirty = nil
	return nil
}

func (st *State) rewriteSessions(fsys vfs.FS, name string) error {
	ids := st.ids()
	var buf bytes.Buffer
	for _, id := range ids {
		if err := writeRecord(&buf, st.record(id)); err != nil {
			return err
		}
	}
	if err := vfs.WriteFileAtomic(fsys, sessionsName(name), buf.Bytes()); err != nil {
		return err
	}
	st.log = sessionLog{end: int64(buf.Len()), lines: len(ids)}
	return nil
}

func writeRecord(buf *bytes.Buffer, rec sessionRecord) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	buf.Write(b)
	buf.WriteByte('\n')
	return nil
}

// appendLines writes b at byte end of the journal name, cutting off what
// lies past end (a torn line), and syncs it; a new journal's folder is
// synced too.
func appendLines(fsys vfs.FS, name string, end int64, b []byte) error {
	_, serr := fsys.Stat(name)
	created := vfs.IsNotExist(serr)
	f, err := fsys.OpenFile(name, os.O_CREATE|os.O_WRONLY, vfs.FilePerm)
	if err != nil {
		return err
	}
	err = func() error {
		fi, err := f.Stat()
		if err != nil {
			return err
		}
		if fi.Size() > end {
			if err := f.Truncate(end); err != nil {
				return err
			}
		}
		if _, err := f.Seek(end, io.SeekStart); err != nil {
			return err
		}
		if _, err := f.Write(b); err != nil {
			return err
		}
		return f.Sync()
	}()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && created {
		err = fsys.SyncDir(path.Dir(name))
	}
	return err
}
