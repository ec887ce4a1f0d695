package tasks

import (
	"path"
	"strings"

	"cairn/engine/internal/shell"
	"cairn/internal/timefmt"
)

// Record states, as Record.State. They are part of the format.
const (
	Running     = "running"
	Settled     = "settled"
	Cancelled   = "cancelled"
	Interrupted = "interrupted"
	// Blocked: it made a blocked report and ended without success; it
	// can be continued once it has what it lacked.
	Blocked = "blocked"
)

// Record types, as Record.Type.
const (
	TypeAgent = "task"  // a sub-agent with a transcript
	TypeShell = "shell" // a background shell job, a record only
)

// Names in a workspace folder. They are part of the format.
const (
	Folder           = "tasks"
	RecordsFile      = "tasks.jsonl"
	TranscriptSuffix = ".items.jsonl"
	// KindHeader is the kind of a transcript's first line.
	KindHeader = "task"
	// kindItem is the kind of an item line (the items journal's).
	kindItem = "item"
)

// Dir is the task folder of session in workspace folder ws.
func Dir(ws, session string) string { return path.Join(ws, Folder, session) }

// RecordsName is the records journal of session in workspace folder ws.
func RecordsName(ws, session string) string { return path.Join(ws, Folder, session, RecordsFile) }

// TranscriptName is task's transcript of session in workspace folder ws.
func TranscriptName(ws, session, task string) string {
	return path.Join(ws, Folder, session, task+TranscriptSuffix)
}

// Line is a line of the records journal.
type Line struct {
	V          int          `json:"v"`
	Kind       string       `json:"kind"` // start | continue | end
	Task       string       `json:"task"`
	Type       string       `json:"type,omitempty"`
	Label      string       `json:"label,omitempty"`
	Cmd        string       `json:"cmd,omitempty"`
	Call       string       `json:"call,omitempty"`
	At         timefmt.Time `json:"at"`
	Background bool         `json:"background,omitempty"`
	Held       bool         `json:"held,omitempty"`
	PID        int          `json:"pid,omitempty"`
	Owner      string       `json:"owner,omitempty"`
	From       *int         `json:"from,omitempty"`
	State      string       `json:"state,omitempty"`
	Items      *int         `json:"items,omitempty"`
	Bytes      *int64       `json:"bytes,omitempty"`
}

// Header is a transcript's first line.
type Header struct {
	V       int          `json:"v"`
	Kind    string       `json:"kind"`
	Task    string       `json:"task"`
	Session string       `json:"session"`
	At      timefmt.Time `json:"at"`
}

// CutLabel keeps a label to one line of at most 200 bytes.
func CutLabel(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	l, _ := shell.Head(s, 200)
	return l
}
