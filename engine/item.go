package engine

import "encoding/json"

// ItemType is the kind of a conversation item.
type ItemType string

// The item types (FORMAT.md). They are part of the format.
const (
	User       ItemType = "user"
	Assistant  ItemType = "assistant"
	Reasoning  ItemType = "reasoning"
	ToolCall   ItemType = "tool_call"
	ToolResult ItemType = "tool_result"
	Compaction ItemType = "compaction"
)

func (t ItemType) valid() bool {
	switch t {
	case User, Assistant, Reasoning, ToolCall, ToolResult, Compaction:
		return true
	}
	return false
}

// Item is one entry of a conversation. Parent links items into a tree; the
// session's head picks the active path through it.
type Item struct {
	ID     string   `json:"id"`
	Parent string   `json:"parent,omitempty"`
	Type   ItemType `json:"type"`
	At     Time     `json:"at"`
	Text   string   `json:"text,omitempty"`
	// Tool is the tool's name on a tool_call; Call is the id of the tool_call
	// a tool_result answers.
	Tool string `json:"tool,omitempty"`
	Call string `json:"call,omitempty"`
	// Status of a tool_result: "" (completed) or "unavailable" (supplied by
	// history repair for a call that never completed).
	Status string `json:"status,omitempty"`
	// Quarantined content is never written: only the slot name is kept.
	Quarantined bool   `json:"quarantined,omitempty"`
	Slot        string `json:"slot,omitempty"`
	// Replaces, on a compaction item, names the first and last item of the
	// stretch it summarises in the request view.
	Replaces []string `json:"replaces,omitempty"`
	// Output names retained tool outputs this item refers to.
	Outputs []string `json:"outputs,omitempty"`
}

// payloadInline is the largest text kept in the items journal itself; a
// larger one is stored as an object and the line names it.
const payloadInline = 16 << 10

// Payload names an item's text stored as an object.
type Payload struct {
	OID  string `json:"oid"`
	Size int64  `json:"size"`
}

// Line kinds of the items journal. They are part of the format.
const (
	kindItem    = "item"
	kindHead    = "head"
	kindSession = "session"
	kindTitle   = "title"
	kindTurn    = "turn"
	kindOpen    = "open"
	kindRepair  = "repair"
	kindMeta    = "meta"
)

// itemLine is one line of <id>.items.jsonl. Only the fields of its kind are set.
type itemLine struct {
	V    int    `json:"v"`
	Kind string `json:"kind"`

	// kind "item"
	ID          string   `json:"id,omitempty"`
	Parent      *string  `json:"parent,omitempty"`
	Type        ItemType `json:"type,omitempty"`
	At          *Time    `json:"at,omitempty"`
	Text        *string  `json:"text,omitempty"`
	Payload     *Payload `json:"payload,omitempty"`
	Tool        string   `json:"tool,omitempty"`
	Call        string   `json:"call,omitempty"`
	Status      string   `json:"status,omitempty"`
	Quarantined bool     `json:"quarantined,omitempty"`
	Slot        string   `json:"slot,omitempty"`
	Replaces    []string `json:"replaces,omitempty"`
	Outputs     []string `json:"outputs,omitempty"`

	// kind "head"
	To  *string `json:"to,omitempty"`
	Why string  `json:"why,omitempty"`

	// kind "session": the first line
	Session string   `json:"session,omitempty"`
	Path    string   `json:"path,omitempty"`
	ForkOf  *ForkRef `json:"fork_of,omitempty"`
	Build   string   `json:"build,omitempty"`

	// kind "title"
	Title  string `json:"title,omitempty"`
	Source string `json:"source,omitempty"`

	// kind "turn" (and "open" for branch/build/pid)
	Turn   *TurnState `json:"turn,omitempty"`
	Branch string     `json:"branch,omitempty"`
	PID    int        `json:"pid,omitempty"`

	// kind "meta": settings copied into a fork or set by the runtime
	Meta json.RawMessage `json:"meta,omitempty"`
}

// ForkRef says where a fork came from.
type ForkRef struct {
	Session string `json:"session"`
	Item    string `json:"item,omitempty"`
	N       int    `json:"n"`
}
