package remote

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"time"

	"cairn/internal/vfs"
	"cairn/objects"
)

// State is what this machine knows of one remote, kept in the state
// folder under remotes/<name>/: what concerns the remote as a whole
// (its log's number, the usage ledger, how far each machine's log was
// read) in state.json, written whole by atomic rename after each sync,
// and what concerns each session in sessions.jsonl, an append-only
// journal with a line per session a sync changed (statelog.go): a turn's
// sync writes what changed, not what the remote holds. It is a cache:
// lost, the next sync reads the remote's logs again and finds each
// segment and object already there, at the cost of a full push.
type State struct {
	V   int    `json:"v"`
	URL string `json:"url"`
	// Seq is the number of this machine's last log entry.
	Seq int64 `json:"seq"`
	// Sessions holds, per session, how far each journal is on both sides.
	// It, Cards, Pending and Forgotten are kept in sessions.jsonl; a
	// state.json of the first format held them too, and is read as such.
	Sessions map[string]*SessionState `json:"sessions,omitempty"`
	// Usage is how far this machine's usage ledger went up.
	Usage FileState `json:"usage"`
	// Machines is how far each other machine's log was read.
	Machines map[string]*MachineState `json:"machines"`
	// Cards describe the remote's sessions, as the log last said.
	Cards map[string]*Card `json:"cards,omitempty"`
	// Pending are segments the log named that are not applied here yet.
	Pending map[string][]Segment `json:"pending,omitempty"`
	// Forgotten are the sessions a remote forget ended.
	Forgotten map[string]bool `json:"forgotten,omitempty"`
	// Changes is how far the last push read the record of changed
	// sessions (changed.go), Watch the sessions (id to workspace folder)
	// that a writer held then or that a push left, which the next push
	// looks at again, and Scanned when a push last listed every session.
	Changes ChangePos         `json:"changes"`
	Watch   map[string]string `json:"watch,omitempty"`
	Scanned time.Time         `json:"scanned"`
	// Sorted is where sessions.jsonl's sorted part ends (statesorted.go),
	// as the last save wrote it; a load reads the journal past it.
	Sorted *SortedPart `json:"sorted,omitempty"`

	log sessionLog // the sessions journal as loaded, and what changed since
}

// SessionState is one session's side of a remote.
type SessionState struct {
	WS      string                `json:"ws"` // its workspace folder here
	Files   map[string]*FileState `json:"files"`
	Outputs map[string]bool       `json:"outputs,omitempty"`
}

// FileState says a journal's bytes [0, End) of generation Gen are both
// here and on the remote. Tail is the SHA-256 of the bytes just before
// End (tailLen at most): a journal replaced since (a trim) no longer ends
// so, and goes up as the next generation.
type FileState struct {
	Gen  int    `json:"gen"`
	End  int64  `json:"end"`
	Tail string `json:"tail,omitempty"`
}

// MachineState is how far another machine's log was read, and what its
// head looked like in the listing then.
type MachineState struct {
	Seq     int64     `json:"seq"`
	Size    int64     `json:"size"`
	ModTime time.Time `json:"mod_time"`
	MD5     []byte    `json:"md5,omitempty"`
	// Usage is how far its usage ledger was copied here
	// (remotes/<name>/usage/<machine>.jsonl); PendingUsage what its log
	// named past that.
	Usage        FileState `json:"usage"`
	PendingUsage []Segment `json:"pending_usage,omitempty"`
}

// Card describes a session on the remote, without its payloads.
type Card struct {
	ID        string `json:"id"`
	Path      string `json:"path"`
	Title     string `json:"title"`
	CreatedAt string `json:"created_at,omitempty"`
	UpdatedAt string `json:"updated_at,omitempty"`
	Items     int    `json:"items"`
	Bytes     int64  `json:"bytes"`
	Machine   string `json:"machine"`
}

// Segment names a piece of a journal on the remote: bytes [Off,
// Off+Size) of generation Gen of a session's File.
type Segment struct {
	File string `json:"file"`
	Gen  int    `json:"gen"`
	Off  int64  `json:"off"`
	Size int64  `json:"size"`
}

const tailLen = 256

// StateDir is the folder of a remote's state in the state folder.
func StateDir(name string) string { return path.Join("remotes", name) }

func stateName(name string) string    { return path.Join(StateDir(name), "state.json") }
func sessionsName(name string) string { return path.Join(StateDir(name), "sessions.jsonl") }
func pushedName(name string) string   { return path.Join(StateDir(name), "objects.txt") }
func usageDir(name string) string     { return path.Join(StateDir(name), "usage") }
func usageName(name, m string) string { return path.Join(usageDir(name), m+".jsonl") }

// stateVersion is the format of state.json: 2 keeps the sessions in
// sessions.jsonl.
const stateVersion = 2

// LoadState reads remote name's state; a missing one is empty. A damaged
// one is dropped whole and rebuilt by the next sync.
func LoadState(fsys vfs.FS, name, url string) (*State, error) {
	st := newState(url)
	b, err := vfs.ReadFile(fsys, stateName(name))
	switch {
	case vfs.IsNotExist(err):
		// Without its head, the sessions journal is not trusted either:
		// it may belong to a remote this name no longer points at.
		st.log.rewrite = true
	case err != nil:
		return nil, fmt.Errorf("remote: read state of %s: %w", name, err)
	default:
		if err := json.Unmarshal(b, st); err != nil || st.URL != url {
			// A damaged cache is rebuilt: every segment is found there. A
			// name that now points elsewhere keeps nothing either.
			st = newState(url)
			st.log.rewrite = true
		}
	}
	st.fill()
	if st.log.rewrite {
		return st, nil
	}
	if st.V < stateVersion {
		// The first format: its sessions move to the journal, written
		// whole at the next save.
		st.log.rewrite = true
		return st, nil
	}
	sorted := st.Sorted
	st.Sorted = nil // the journal's own, in st.log once loaded
	ok, err := st.loadSessions(fsys, name, sorted)
	if err != nil {
		return nil, err
	}
	if !ok {
		st = newState(url)
		st.fill()
		st.log.rewrite = true
	}
	return st, nil
}

func newState(url string) *State { return &State{V: stateVersion, URL: url} }

// fill makes the maps a loaded state may lack.
func (st *State) fill() {
	if st.Sessions == nil {
		st.Sessions = map[string]*SessionState{}
	}
	if st.Machines == nil {
		st.Machines = map[string]*MachineState{}
	}
	if st.Cards == nil {
		st.Cards = map[string]*Card{}
	}
	if st.Pending == nil {
		st.Pending = map[string][]Segment{}
	}
	if st.Forgotten == nil {
		st.Forgotten = map[string]bool{}
	}
}

// Save writes what changed: the sessions journal first (the lines of the
// sessions changed since the last save), then state.json. In that order a
// crash between the two leaves a head that reads the remote's logs again
// from where it was, which notes again what the journal holds already.
func (st *State) Save(fsys vfs.FS, name string) error {
	if err := vfs.MkdirAllDurable(fsys, StateDir(name), vfs.DirPerm); err != nil {
		return fmt.Errorf("remote: state of %s: %w", name, err)
	}
	if err := st.saveSessions(fsys, name); err != nil {
		return fmt.Errorf("remote: state of %s: %w", name, err)
	}
	head := *st
	head.V = stateVersion
	head.Sessions, head.Cards, head.Pending, head.Forgotten = nil, nil, nil, nil
	head.Sorted = st.log.sorted
	b, err := json.Marshal(&head)
	if err != nil {
		return err
	}
	if err := vfs.WriteFileAtomic(fsys, stateName(name), b); err != nil {
		return fmt.Errorf("remote: state of %s: %w", name, err)
	}
	return nil
}

// session returns id's state, made when missing.
func (st *State) session(id, ws string) *SessionState {
	st.want(id)
	ss := st.Sessions[id]
	if ss == nil {
		ss = &SessionState{WS: ws, Files: map[string]*FileState{}}
		st.Sessions[id] = ss
	}
	if ss.Files == nil {
		ss.Files = map[string]*FileState{}
	}
	if ss.Outputs == nil {
		ss.Outputs = map[string]bool{}
	}
	return ss
}

// pushedSet is the objects this machine knows the remote holds: a file of
// ids, one a line, appended after each push. Lost or short, objects are
// offered again and found there.
type pushedSet struct {
	ids   map[objects.ID]bool
	added []objects.ID
	// partial says ids holds only what this push sent, not the file.
	partial bool
}

func loadPushed(fsys vfs.FS, name string) *pushedSet {
	p := &pushedSet{ids: map[objects.ID]bool{}}
	b, err := vfs.ReadFile(fsys, pushedName(name))
	if err != nil {
		return p
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if id, err := objects.ParseID(sc.Text()); err == nil {
			p.ids[id] = true
		}
	}
	return p
}

func (p *pushedSet) save(fsys vfs.FS, name string) error {
	if len(p.added) == 0 {
		return nil
	}
	if err := vfs.MkdirAllDurable(fsys, StateDir(name), vfs.DirPerm); err != nil {
		return err
	}
	f, err := fsys.OpenFile(pushedName(name), os.O_CREATE|os.O_WRONLY|os.O_APPEND, vfs.FilePerm)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	for _, id := range p.added {
		buf.WriteString(id.String())
		buf.WriteByte('\n')
	}
	_, err = f.Write(buf.Bytes())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	p.added = nil
	return err
}
