package agentimport

import (
	"encoding/json"
	"time"

	"cairn/engine/internal/convlog"
	"cairn/internal/timefmt"
)

// Source is one source session, or what was added to it since the last
// import, as an importer parsed it.
type Source struct {
	Agent    string // "claude-code", "codex"
	SourceID string // the agent's own session id
	Path     string // the source file
	Offset   int64  // the bytes of Path (and of its sub-agent transcripts) read, this import included
	Dir      string // the session's working directory (its cwd)
	Title    string // "" for none
	Model    string
	Created  time.Time
	Items    []Item
	// Head is the key of the item the session's head is on ("" = the last
	// item of Items).
	Head  string
	Spend convlog.Spend // spend the source recorded for Items
	// Tasks are the sub-agent transcripts of tool calls among Items.
	Tasks []Task
	// DryRun says what the import would do and writes nothing.
	DryRun bool
	// Prior maps keys an earlier read of the source made to the ids the
	// import gave their items where those are not derived from the key
	// alone (Result.Aliases): a read that starts where the last one
	// stopped names those items by key.
	Prior map[string]string
	// Pending is the prompt an agent is submitting as a hook brings its
	// transcript in (see the package doc): when the source's last user
	// item is that prompt, it and what follows are left for the hook.
	Pending *Pending
}

// Item is one item of a source session. Key is unique within the source
// (a line's uuid, a byte offset); ParentKey and CallKey name other items
// of the same source by key ("" = none).
type Item struct {
	Key       string
	ParentKey string
	Type      convlog.ItemType
	At        time.Time
	Text      string
	Tool      string
	CallKey   string
	Status    string
	// ReplacesKeys, on a compaction item, names the first and last item of
	// the stretch it summarises.
	ReplacesKeys []string
	// PromptID, on a user item, is the agent's own id of the prompt, and
	// PromptText what the user typed ("" = Text): how an import finds the
	// prompt a hook already recorded (see the package doc).
	PromptID, PromptText string
	// CallID, on a tool_call item, is the agent's own id of the call (a
	// tool_use id, a call_id): the id the hooks know the call by, from
	// which the item's id is derived (CallItem), so a change record a hook
	// made names the call that made it.
	CallID string
	// Attachments are files the item holds (an image a prompt or a tool
	// result carried), with their bytes in Data: stored as objects.
	Attachments []convlog.Attachment
	// Off is where the source line that made the item starts, in bytes.
	Off int64
}

// Task is a sub-agent's transcript of a source session: the task a
// tool_call item of the session started (CallKey), with its own items.
// Imported, it is a task of the session whose record is settled and whose
// transcript holds Items, keyed as the session's items are.
type Task struct {
	ID      string // the task id: the slug rules' (ids.Valid)
	CallKey string // the key of the tool_call item that started it
	Label   string
	At      time.Time
	Items   []Item
}

// Pending is a prompt an agent is submitting: its text, the agent's id of
// it ("" when the agent sends none), and when it was submitted.
type Pending struct {
	Text, ID string
	At       time.Time
}

// Result says what an import did to one session.
type Result struct {
	Session string `json:"session"`
	Path    string `json:"path"`
	Created bool   `json:"created"`
	Items   int    `json:"items"`   // items added
	Present int    `json:"present"` // items already there, not added again
	// Unlinked counts tool results whose call is not on their path, kept
	// without the link (the source named a call the engine cannot tie).
	Unlinked int `json:"unlinked"`
	// Tasks counts the sub-agent transcripts the session's calls name,
	// TaskItems the items added to them.
	Tasks     int `json:"tasks"`
	TaskItems int `json:"task_items"`
	// Attachments counts the files stored for the items added;
	// Dropped those left out (over storage.max_attachment_mb).
	Attachments int `json:"attachments"`
	Dropped     int `json:"attachments_dropped,omitempty"`
	// Aliases maps the keys of src's user items, and of those whose id is
	// not derived from the key alone (a prompt the hooks recorded, a tool
	// call), to their ids, for the next read's Prior.
	Aliases map[string]string `json:"-"`
	// Cut is where the pending prompt's line starts when the import left
	// it out (Source.Pending), else -1: what was read ends there.
	Cut int64 `json:"-"`
}

// Meta is what a session's meta says of its import.
type Meta struct {
	Agent  string `json:"agent"`
	Source string `json:"source"`
	Path   string `json:"path"`
	Offset int64  `json:"offset"`
	// Spend is the source's spend brought in so far: a later import adds
	// only what the source spent since.
	Spend convlog.Spend `json:"spend"`
}

// MetaOf is what st's meta says of its import.
func MetaOf(st *convlog.State) Meta {
	var m Meta
	if raw, ok := st.Meta["import"]; ok {
		json.Unmarshal(raw, &m)
	}
	return m
}

// Last is the time of the source's newest item, which the lines an import
// writes after the items carry: a session's activity is the source's, not
// the time it was imported.
func (src *Source) Last() timefmt.Time {
	t := src.Created
	for i := range src.Items {
		if src.Items[i].At.After(t) {
			t = src.Items[i].At
		}
	}
	return timefmt.Mk(t)
}
