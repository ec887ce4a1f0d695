package audit

import (
	"cairn/engine/internal/convlog"
	"cairn/internal/jsonw"
	"cairn/internal/timefmt"
)

// Line is one line of the trail, <id>.audit.jsonl.
type Line struct {
	V       int          `json:"v"`
	Kind    string       `json:"kind"` // "turn" or "event"
	At      timefmt.Time `json:"at"`
	Session string       `json:"session"`
	Turn    int          `json:"turn,omitempty"`
	Items   int          `json:"items,omitempty"`
	Labels  []string     `json:"labels,omitempty"`
	Gates   []string     `json:"gates,omitempty"`
	Event   string       `json:"event,omitempty"`
	Outcome string       `json:"outcome,omitempty"`
	Action  string       `json:"action,omitempty"`
	Steps   []Step       `json:"steps,omitempty"`
	Files   int          `json:"files,omitempty"`
	Rule    string       `json:"rule,omitempty"`
}

// Step counts what one step of an audited restore did.
type Step struct {
	ID       string `json:"id"`
	Restored int    `json:"restored"`
	Removed  int    `json:"removed"`
	Skipped  int    `json:"skipped"`
	// Unchanged counts the files already as the step would leave them.
	Unchanged int `json:"unchanged,omitempty"`
}

// Event is an audited event other than a turn.
type Event struct {
	Event   string // e.g. session.snapshot_restore, snapshot.required
	Outcome string // ok, denied, refused, failed
	Action  string
	Steps   []Step
	Files   int
	Rule    string
}

// Encoding a trail line without reflection, as the items lines of a turn
// are (engine/internal/convlog/json.go).

// AppendJSON appends l as one JSON object (journal.Appender); an event's
// steps are encoding/json's.
func (l *Line) AppendJSON(b []byte) ([]byte, bool) {
	b = append(b, `{"v":`...)
	b = jsonw.Int(b, int64(l.V))
	b = append(b, `,"kind":`...)
	b = jsonw.String(b, l.Kind)
	b = append(b, `,"at":`...)
	b = convlog.AppendTime(b, l.At)
	b = append(b, `,"session":`...)
	b = jsonw.String(b, l.Session)
	b = convlog.AppendIntField(b, "turn", l.Turn)
	b = convlog.AppendIntField(b, "items", l.Items)
	b = convlog.AppendStrings(b, "labels", l.Labels)
	b = convlog.AppendStrings(b, "gates", l.Gates)
	b = convlog.AppendStringField(b, "event", l.Event)
	b = convlog.AppendStringField(b, "outcome", l.Outcome)
	b = convlog.AppendStringField(b, "action", l.Action)
	if len(l.Steps) > 0 {
		var ok bool
		if b, ok = convlog.AppendMarshalled(b, "steps", l.Steps); !ok {
			return b, false
		}
	}
	b = convlog.AppendIntField(b, "files", l.Files)
	b = convlog.AppendStringField(b, "rule", l.Rule)
	return append(b, '}'), true
}
