package convlog

import (
	"encoding/json"
	"fmt"

	"cairn/internal/vfs"
)

// Record is a session's summary, <id>.json: what the picker shows and what a
// resume needs. It is derived from the journals, written whole by atomic
// rename at the end of each turn, and rebuilt when missing, unreadable or
// older than the journals (Journals records the sizes it reflects).
type Record struct {
	V               int              `json:"v"`
	ID              string           `json:"id"`
	Path            string           `json:"path"`
	Title           string           `json:"title"`
	TitleSource     string           `json:"title_source"`
	CreatedAt       Time             `json:"created_at"`
	UpdatedAt       Time             `json:"updated_at"`
	OpenedAt        Time             `json:"opened_at"`
	Head            string           `json:"head"`
	Branch          string           `json:"branch"`
	Build           string           `json:"build"`
	Model           string           `json:"model,omitempty"`
	Plan            json.RawMessage  `json:"plan"`
	Spend           Spend            `json:"spend"`
	Trust           *Trust           `json:"trust"`
	AllowedCommands []string         `json:"allowed_commands"`
	ForkOf          *ForkRef         `json:"fork_of"`
	Tier            string           `json:"tier"`
	Pinned          bool             `json:"pinned"`
	Counts          Counts           `json:"counts"`
	PendingRevert   json.RawMessage  `json:"pending_revert,omitempty"`
	Draft           *Draft           `json:"draft,omitempty"` // the composer's text (engine/draft.go)
	Journals        map[string]int64 `json:"journals"`
	// Remote is the remote workspace the session's files are on
	// (engine/remote_workspace.go), absent for a local session.
	Remote *RemoteWorkspace `json:"remote,omitempty"`

	// SettledTurn is the turn through which the trail and the usage ledger
	// are known durable (engine/turn_settle.go); derived, 0 when not known.
	SettledTurn int `json:"settled_turn,omitempty"`
}

// Counts are a record's sizes.
type Counts struct {
	Items int   `json:"items"`
	Turns int   `json:"turns"`
	Bytes int64 `json:"bytes"`
}

// RecordOf summarises st; remote is its binding to a remote workspace
// (nil for a local session).
func RecordOf(st *State, journals map[string]int64, remote *RemoteWorkspace) *Record {
	plan := st.Plan
	if plan == nil {
		plan = json.RawMessage("null")
	}
	allowed := st.Allowed
	if allowed == nil {
		allowed = []string{}
	}
	return &Record{
		V: 1, ID: st.ID, Path: st.Path, Title: st.Title, TitleSource: st.TitleSource,
		CreatedAt: st.Created, UpdatedAt: st.Updated, OpenedAt: st.Opened, Head: st.Head,
		Branch: st.Branch, Build: st.Build, Model: st.Model, Plan: plan, Spend: st.Spend,
		Trust: st.Trust, AllowedCommands: allowed, ForkOf: st.ForkOf, Tier: st.Tier,
		Pinned: st.Pinned, Counts: Counts{Items: st.Len(), Turns: st.Turns, Bytes: st.Bytes},
		Journals: journals, Draft: st.Draft, SettledTurn: st.Settled, Remote: remote,
	}
}

// RemoteWorkspace is the remote workspace a session's files are on (cairn --ssh):
// the conversation is this session's, the files, their snapshots and
// change records are on Host, in the host's state folder. Identity and
// Generation are what the host gave the workspace when the session bound
// it; every connect checks all four (package remotews, beside the engine). SSHCommand and
// CairnPath are the --ssh-command and --cairn-path the session was started
// with, so that a resume reaches the host the same way ("" the default).
type RemoteWorkspace struct {
	Host       string `json:"host"`
	Path       string `json:"path"`
	Identity   string `json:"identity"`
	Generation int64  `json:"generation"`
	SSHCommand string `json:"ssh_command,omitempty"`
	CairnPath  string `json:"cairn_path,omitempty"`
}

// String is host:path, as a listing shows it.
func (r *RemoteWorkspace) String() string { return r.Host + ":" + r.Path }

// Place is where a call that changes files lies in a conversation: Call,
// the tool_call or user item it belongs to (a change line's "call"), and
// Item, the conversation's newest item when it ran ("item"; "" when it has
// none yet). A remote workspace's client gives the host session the Place
// of each call, since the conversation that places it is the client's
// (the engine's SessionOptions.Elsewhere).
type Place struct {
	Call string `json:"call,omitempty"`
	Item string `json:"item,omitempty"`
}

// ReadRecord reads session id's record, file name. A record is only
// trusted for listing and showing; opening a session always folds its
// journal.
func ReadRecord(fsys vfs.FS, name, id string) (*Record, error) {
	b, err := vfs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("engine: record %s: %w", id, err)
	}
	if r.V != 1 || r.ID != id {
		return nil, fmt.Errorf("engine: record %s: wrong version or id", id)
	}
	return &r, nil
}
