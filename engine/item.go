package engine

import (
	"encoding/json"
	"fmt"
)

// ItemType is the kind of a conversation item.
type ItemType string

// The item types (doc.go). They are part of the format.
const (
	User       ItemType = "user"
	Assistant  ItemType = "assistant"
	Reasoning  ItemType = "reasoning"
	ToolCall   ItemType = "tool_call"
	ToolResult ItemType = "tool_result"
	Compaction ItemType = "compaction"
	// Report is a child task's report_to_parent in its parent's
	// conversation: Text the message, with Title, Blocked and Task.
	Report ItemType = "report"
	// Message is a cross-session message queued for the next turn: Text,
	// and From, the sending session ("" for a script).
	Message ItemType = "message"
)

func (t ItemType) valid() bool {
	switch t {
	case User, Assistant, Reasoning, ToolCall, ToolResult, Compaction, Report, Message:
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
	// Attachments are the files attached to the item (attach.go).
	Attachments []Attachment `json:"attachments,omitempty"`
	// Task, on a "task" tool_call, is the id of the sub-agent task it
	// started or continued (task.go).
	Task string `json:"task,omitempty"`
	// Title and Blocked, on a report item: its one-line title and whether
	// the child stopped for want of something (background.go).
	Title   string `json:"title,omitempty"`
	Blocked bool   `json:"blocked,omitempty"`
	// From, on a message item, is the session that sent it; "" for a
	// script (messages.go).
	From string `json:"from,omitempty"`
	// Unavailable is set when the item's text is stored as an object that
	// could not be read back; Text is empty then.
	Unavailable *Unavailable `json:"unavailable,omitempty"`
}

// Unavailable says why an item's text, stored as an object, could not be
// read back: the object is missing, corrupt (it does not hash to its name),
// or unreadable. Only that item is affected; the rest of its session loads
// and works. Its journal line is kept as it is, so putting the object file
// back brings the text back.
type Unavailable struct {
	OID    string `json:"oid"`
	Size   int64  `json:"size"`   // of the text, as the line says
	Reason string `json:"reason"` // missing | corrupt | unreadable
	Error  string `json:"error"`
}

// The reasons of Unavailable. They are part of the JSON answers.
const (
	PayloadMissing    = "missing"
	PayloadCorrupt    = "corrupt"
	PayloadUnreadable = "unreadable"
)

// String is the placeholder shown instead of the text:
// "[payload unavailable: object <oid> missing]".
func (u *Unavailable) String() string {
	if u.Reason == PayloadUnreadable {
		return fmt.Sprintf("[payload unavailable: object %s unreadable: %s]", u.OID, u.Error)
	}
	return fmt.Sprintf("[payload unavailable: object %s %s]", u.OID, u.Reason)
}

// payloadInline is the largest text kept in the items journal itself; a
// larger one is stored as an object and the line names it.
const payloadInline = 16 << 10

// Payload names an item's text stored as an object.
type Payload struct {
	OID  string `json:"oid"`
	Size int64  `json:"size"`
}

// Line kinds of the items journal. They are part of the format. A new kind
// is also one fsck knows (package fsck, items.go).
const (
	kindItem    = "item"
	kindHead    = "head"
	kindSession = "session"
	kindTitle   = "title"
	kindTurn    = "turn"
	kindOpen    = "open"
	kindRepair  = "repair"
	kindMeta    = "meta"
	kindDraft   = "draft" // draft.go
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
	// Attachments and Task: attach.go, task.go.
	Attachments []Attachment `json:"attachments,omitempty"`
	Task        string       `json:"task,omitempty"`
	// Blocked and From: a report's and a message's (Title is the
	// title line's field, used by a report item too).
	Blocked bool   `json:"blocked,omitempty"`
	From    string `json:"from,omitempty"`
	// unavailable is set by a load whose payload object could not be read
	// back; it is never written.
	unavailable *Unavailable

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
	Turn   *turnState `json:"turn,omitempty"`
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
