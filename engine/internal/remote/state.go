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
// folder at remotes/<name>/state.json (written whole by atomic rename
// after each sync). It is a cache: lost, the next sync finds each segment
// and object already there and rebuilds it, at the cost of a full push.
type State struct {
	V   int    `json:"v"`
	URL string `json:"url"`
	// Seq is the number of this machine's last log entry.
	Seq int64 `json:"seq"`
	// Sessions holds, per session, how far each journal is on both sides.
	Sessions map[string]*SessionState `json:"sessions"`
	// Usage is how far this machine's usage ledger went up.
	Usage FileState `json:"usage"`
	// Machines is how far each other machine's log was read.
	Machines map[string]*MachineState `json:"machines"`
	// Cards describe the remote's sessions, as the log last said.
	Cards map[string]*Card `json:"cards"`
	// Pending are segments the log named that are not applied here yet.
	Pending map[string][]Segment `json:"pending,omitempty"`
	// Forgotten are the sessions a remote forget ended.
	Forgotten map[string]bool `json:"forgotten,omitempty"`
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
func pushedName(name string) string   { return path.Join(StateDir(name), "objects.txt") }
func usageDir(name string) string     { return path.Join(StateDir(name), "usage") }
func usageName(name, m string) string { return path.Join(usageDir(name), m+".jsonl") }

// LoadState reads remote name's state; a missing one is empty.
func LoadState(fsys vfs.FS, name, url string) (*State, error) {
	st := &State{V: 1, URL: url}
	b, err := vfs.ReadFile(fsys, stateName(name))
	switch {
	case vfs.IsNotExist(err):
	case err != nil:
		return nil, fmt.Errorf("remote: read state of %s: %w", name, err)
	default:
		if err := json.Unmarshal(b, st); err != nil {
			// A damaged cache is rebuilt: every segment is found there.
			st = &State{V: 1, URL: url}
		}
	}
	if st.URL != url {
		// The remote's name now points elsewhere: nothing known holds.
		st = &State{V: 1, URL: url}
	}
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
	return st, nil
}

// Save writes the state whole.
func (st *State) Save(fsys vfs.FS, name string) error {
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	if err := vfs.MkdirAllDurable(fsys, StateDir(name), vfs.DirPerm); err != nil {
		return fmt.Errorf("remote: state of %s: %w", name, err)
	}
	if err := vfs.WriteFileAtomic(fsys, stateName(name), b); err != nil {
		return fmt.Errorf("remote: state of %s: %w", name, err)
	}
	return nil
}

// session returns id's state, made when missing.
func (st *State) session(id, ws string) *SessionState {
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
