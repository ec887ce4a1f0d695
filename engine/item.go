package engine

import "cairn/engine/internal/convlog"

// The conversation's types are those of its format, which package convlog
// (engine/internal/convlog) defines, folds and checks: the names below are
// aliases of them, so that a caller of the engine reads and builds them as
// its own while the journal's encoding and its checks live with the fold.

// Item is one entry of a conversation, linked to its Parent; the session's
// head picks the active path through the tree (convlog.Item has its fields).
type Item = convlog.Item

// ItemType is the kind of a conversation item.
type ItemType = convlog.ItemType

// The item types. They are part of the format.
const (
	User       = convlog.User
	Assistant  = convlog.Assistant
	Reasoning  = convlog.Reasoning
	ToolCall   = convlog.ToolCall
	ToolResult = convlog.ToolResult
	Compaction = convlog.Compaction
	Report     = convlog.Report   // a child task's report in its parent's conversation
	Message    = convlog.Message  // a cross-session message queued for the next turn
	Reminder   = convlog.Reminder // a reminder of running background work; it starts no turn
)

// Unavailable says why an item's text could not be read back.
type Unavailable = convlog.Unavailable

// The reasons of Unavailable. They are part of the JSON answers.
const (
	payloadMissing    = convlog.PayloadMissing
	payloadCorrupt    = convlog.PayloadCorrupt
	payloadUnreadable = convlog.PayloadUnreadable
)

// Payload names an item's text stored as an object.
type Payload = convlog.Payload

// ForkRef says where a fork came from (convlog.ForkRef).
type ForkRef = convlog.ForkRef

// payloadInline is the largest text kept in the items journal itself.
const payloadInline = convlog.PayloadInline

// itemLine is one line of <id>.items.jsonl.
type itemLine = convlog.Line

// Line kinds of the items journal (convlog's doc draws them).
const (
	kindItem    = convlog.KindItem
	kindHead    = convlog.KindHead
	kindSession = convlog.KindSession
	kindTitle   = convlog.KindTitle
	kindTurn    = convlog.KindTurn
	kindOpen    = convlog.KindOpen
	kindRepair  = convlog.KindRepair
	kindMeta    = convlog.KindMeta
	kindDraft   = convlog.KindDraft
)
