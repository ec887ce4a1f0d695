package convlog

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"cairn/engine/internal/errs"
	"cairn/internal/timefmt"
)

// Time is how every time of the format is written (package timefmt).
type Time = timefmt.Time

// ItemType is the kind of a conversation item.
type ItemType string

// The item types. They are part of the format.
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
	// Reminder is a reminder of the session's running background work,
	// made by cairn after a compaction and every
	// agent.background_reminder_turns turns: Text names the work. It
	// starts no turn.
	Reminder ItemType = "reminder"
)

// Valid reports whether t is one of the item types.
func (t ItemType) Valid() bool { return TypeNamed(string(t)) != "" }

// TypeNamed is the item type named s, "" when none is: the type's own
// string, not s (which may be a part of a larger one).
func TypeNamed(s string) ItemType {
	switch t := ItemType(s); t {
	case User:
		return User
	case Assistant:
		return Assistant
	case Reasoning:
		return Reasoning
	case ToolCall:
		return ToolCall
	case ToolResult:
		return ToolResult
	case Compaction:
		return Compaction
	case Report:
		return Report
	case Message:
		return Message
	case Reminder:
		return Reminder
	}
	return ""
}

// WithArticle is the type with its indefinite article, for messages: "an
// assistant item", "a user item".
func (t ItemType) WithArticle() string {
	if t != "" && strings.ContainsRune("aeiou", rune(t[0])) {
		return "an " + string(t) + " item"
	}
	return "a " + string(t) + " item"
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
	// Attachments are the files attached to the item.
	Attachments []Attachment `json:"attachments,omitempty"`
	// Task, on a "task" tool_call, is the id of the sub-agent task it
	// started or continued.
	Task string `json:"task,omitempty"`
	// Title and Blocked, on a report item: its one-line title and whether
	// the child stopped for want of something.
	Title   string `json:"title,omitempty"`
	Blocked bool   `json:"blocked,omitempty"`
	// From, on a message item, is the session that sent it; "" for a
	// script.
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

// PayloadInline is the largest text kept in the items journal itself; a
// larger one is stored as an object and the line names it.
const PayloadInline = 16 << 10

// Payload names an item's text stored as an object.
type Payload struct {
	OID  string `json:"oid"`
	Size int64  `json:"size"`
}

// Line kinds of the items journal. They are part of the format. A new kind
// is also one fsck knows (engine/fsck.go).
const (
	KindItem    = "item"
	KindHead    = "head"
	KindSession = "session"
	KindTitle   = "title"
	KindTurn    = "turn"
	KindOpen    = "open"
	KindRepair  = "repair"
	KindMeta    = "meta"
	KindDraft   = "draft"
)

// Line is one line of <id>.items.jsonl (doc.go draws them). Only the
// fields of its kind are set.
type Line struct {
	V    int    `json:"v"`
	Kind string `json:"kind"`

	// kind "item"
	ID          string       `json:"id,omitempty"`
	Parent      *string      `json:"parent,omitempty"`
	Type        ItemType     `json:"type,omitempty"`
	At          *Time        `json:"at,omitempty"`
	Text        *string      `json:"text,omitempty"`
	Payload     *Payload     `json:"payload,omitempty"`
	Tool        string       `json:"tool,omitempty"`
	Call        string       `json:"call,omitempty"`
	Status      string       `json:"status,omitempty"`
	Quarantined bool         `json:"quarantined,omitempty"`
	Slot        string       `json:"slot,omitempty"`
	Replaces    []string     `json:"replaces,omitempty"`
	Outputs     []string     `json:"outputs,omitempty"`
	Attachments []Attachment `json:"attachments,omitempty"`
	Task        string       `json:"task,omitempty"`
	// Blocked and From: a report's and a message's (Title is the
	// title line's field, used by a report item too).
	Blocked bool   `json:"blocked,omitempty"`
	From    string `json:"from,omitempty"`
	// Unavailable is set by a load whose payload object could not be read
	// back; it is never written.
	Unavailable *Unavailable `json:"-"`

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

// Attachment is a file attached to an item: an object of the workspace's
// store, or a live-only one whose bytes were never written.
type Attachment struct {
	OID       string `json:"oid,omitempty"`
	Name      string `json:"name"`
	MediaType string `json:"media_type"`
	Size      int64  `json:"size"`
	// LiveOnly: the bytes were held for the live session only and never
	// written; URL and Pages say where they came from and how long they were.
	LiveOnly bool   `json:"live_only,omitempty"`
	URL      string `json:"url,omitempty"`
	Pages    int    `json:"pages,omitempty"`
	// Data is the content: given to Append to be stored (or, for a
	// live-only attachment, held in memory by the live session), and set
	// on a live-only attachment only while that session runs. It is never
	// written to any line.
	Data []byte `json:"-"`
}

// Gone reports whether a is a live-only attachment whose bytes this
// session does not hold (it was resumed or forked): the runtime sends
// Note in its place.
func (a Attachment) Gone() bool { return a.LiveOnly && a.Data == nil }

// Note is what the model receives instead of a live-only attachment that
// is gone: its name, page count and URL, so it can fetch it again.
func (a Attachment) Note() string {
	pages := ""
	if a.Pages > 0 {
		pages = fmt.Sprintf(", %d pages", a.Pages)
	}
	from := ""
	if a.URL != "" {
		from = " from " + a.URL
	}
	return fmt.Sprintf("[attachment %s (%s%s)%s was held for the live session only and its bytes were not saved; fetch it again to read it]",
		a.Name, a.MediaType, pages, from)
}

// OnDisk is in as its line holds it: without Data.
func OnDisk(in []Attachment) []Attachment {
	if len(in) == 0 {
		return nil
	}
	out := make([]Attachment, len(in))
	for i, a := range in {
		a.Data = nil
		out[i] = a
	}
	return out
}

// Draft is the prompt text a session holds for its composer: Text, or the
// Payload object holding a text over 16 KiB, with the prompt's
// attachments.
type Draft struct {
	Text        string       `json:"text,omitempty"`
	Payload     *Payload     `json:"payload,omitempty"`
	Attachments []Attachment `json:"attachments,omitempty"`
}

// DraftLine is the journal line that sets the draft to text, stored as it
// is or, when the prompt's line named a payload object, by that object,
// with the prompt's attachments (as their lines hold them: no live bytes).
func DraftLine(at Time, text string, payload *Payload, atts []Attachment) *Line {
	l := &Line{V: 1, Kind: KindDraft, At: &at, Attachments: OnDisk(atts)}
	if payload != nil {
		l.Payload = payload
	} else {
		l.Text = &text
	}
	return l
}

// Spend is what a session or a turn cost, as the runtime reports it.
type Spend struct {
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	CostUSD      float64 `json:"cost_usd"`
}

// The most one report of spend (a turn, an import) may say: a runtime
// that reports more is broken, and a total must never overflow. Above
// them a report is refused (ErrBadInput), and a line already on disk that
// says more is skipped by every sum and named by fsck.
const (
	MaxSpendTokens  = 1_000_000_000_000 // tokens, in and out each
	MaxSpendCostUSD = 10_000_000.0      // US dollars
)

// Check says what is wrong with a report of spend: a negative or absurd
// token count, or a cost that is not a finite amount from 0 to
// MaxSpendCostUSD. The error wraps ErrBadInput.
func (s Spend) Check() error {
	if why := s.Problem(); why != "" {
		return fmt.Errorf("%w: %s", errs.ErrBadInput, why)
	}
	return nil
}

// Problem is what Check finds wrong with s, "" when nothing is.
func (s Spend) Problem() string {
	switch {
	case s.InputTokens < 0 || s.InputTokens > MaxSpendTokens:
		return fmt.Sprintf("input tokens %d: a count from 0 to %d", s.InputTokens, int64(MaxSpendTokens))
	case s.OutputTokens < 0 || s.OutputTokens > MaxSpendTokens:
		return fmt.Sprintf("output tokens %d: a count from 0 to %d", s.OutputTokens, int64(MaxSpendTokens))
	case math.IsNaN(s.CostUSD) || s.CostUSD < 0 || s.CostUSD > MaxSpendCostUSD:
		return fmt.Sprintf("cost %v: a finite amount from 0 to %.0f US dollars", s.CostUSD, MaxSpendCostUSD)
	}
	return ""
}

// Add sums two spends; a count saturates at the largest int64 rather than
// wrap (reports within Check's limits reach it only after millions of
// turns).
func (s Spend) Add(o Spend) Spend {
	return Spend{AddTokens(s.InputTokens, o.InputTokens), AddTokens(s.OutputTokens, o.OutputTokens), s.CostUSD + o.CostUSD}
}

// AddTokens is a+b, saturating at the largest int64.
func AddTokens(a, b int64) int64 {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// Trust is the standing trust a session's user granted: a map from a path or
// source to its trust level, and the rules writes recorded (a rule is what
// stops a resumed turn from reading back a file an earlier turn poisoned).
type Trust struct {
	Map   map[string]string `json:"map"`
	Rules []TrustRule       `json:"rules"`
}

// TrustRule is one recorded rule of a trust map.
type TrustRule struct {
	Path string `json:"path"`
	Rule string `json:"rule"`
}

// TurnState is the standing state a turn line records: what a resume
// restores.
type TurnState struct {
	N               int             `json:"n"`
	Plan            json.RawMessage `json:"plan,omitempty"`
	Model           string          `json:"model,omitempty"`
	Spend           Spend           `json:"spend"`
	Trust           *Trust          `json:"trust,omitempty"`
	AllowedCommands []string        `json:"allowed_commands,omitempty"`
	Branch          string          `json:"branch,omitempty"`
	Build           string          `json:"build,omitempty"`
	// Labels and Gates are the turn's trail line's, and Usage says the
	// turn wrote a usage line: a turn syncs its items journal only, and an
	// open puts back a trail or usage line a crash lost.
	Labels []string `json:"labels,omitempty"`
	Gates  []string `json:"gates,omitempty"`
	Usage  bool     `json:"usage,omitempty"`
}

// LineOf is the items journal's line of item it: its text inline, its
// attachments as given.
func LineOf(it Item) *Line {
	l := &Line{V: 1, Kind: KindItem, ID: it.ID, Type: it.Type, At: &it.At, Text: &it.Text, Tool: it.Tool, Call: it.Call,
		Status: it.Status, Quarantined: it.Quarantined, Slot: it.Slot, Replaces: it.Replaces, Outputs: it.Outputs,
		Attachments: it.Attachments, Task: it.Task, Title: it.Title, Blocked: it.Blocked, From: it.From}
	if it.Parent != "" {
		l.Parent = &it.Parent
	}
	return l
}
