package engine

import (
	"encoding/json"
	"fmt"
	"path"

	"cairn/engine/internal/convlog"
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
	Draft           *Draft           `json:"draft,omitempty"` // the composer's text (draft.go)
	Journals        map[string]int64 `json:"journals"`
	// Remote is the remote workspace the session's files are on
	// (remote.go), absent for a local session.
	Remote *RemoteWorkspace `json:"remote,omitempty"`

	// SettledTurn is the turn through which the trail and the usage ledger
	// are known durable (turn_settle.go); derived, 0 when not known.
	SettledTurn int `json:"settled_turn,omitempty"`
}

// Counts are a record's sizes.
type Counts struct {
	Items int   `json:"items"`
	Turns int   `json:"turns"`
	Bytes int64 `json:"bytes"`
}

func recordName(dir, id string) string { return path.Join(dir, "sessions", id+".json") }
func itemsName(dir, id string) string  { return path.Join(dir, "sessions", id+".items.jsonl") }
func auditName(dir, id string) string  { return path.Join(dir, "sessions", id+".audit.jsonl") }
func lockName(dir, id string) string   { return path.Join(dir, "sessions", id+".lock") }

// recordOf summarises the state.
func recordOf(st *state, journals map[string]int64) *Record {
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
		Pinned: st.Pinned, Counts: Counts{Items: len(st.Items), Turns: st.Turns, Bytes: st.Bytes},
		Journals: journals, Draft: st.Draft, SettledTurn: st.Settled, Remote: remoteOf(st),
	}
}

// writeRecord replaces <id>.json atomically and durably.
func writeRecord(fsys vfs.FS, dir string, r *Record) error {
	return convlog.WriteRecord(fsys, recordName(dir, r.ID), r, true)
}

// replaceRecord replaces <id>.json atomically for readers, without syncing:
// a crash may leave the old record or an unreadable one, which the engine
// rebuilds from the journal (the record is derived).
func replaceRecord(fsys vfs.FS, dir string, r *Record) error {
	return convlog.WriteRecord(fsys, recordName(dir, r.ID), r, false)
}

// readRecord reads <id>.json. A record is only trusted for listing and
// showing; opening a session always folds its journal.
func readRecord(fsys vfs.FS, dir, id string) (*Record, error) {
	b, err := vfs.ReadFile(fsys, recordName(dir, id))
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
