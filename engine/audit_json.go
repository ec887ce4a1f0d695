package engine

import (
	"cairn/engine/internal/convlog"
	"cairn/internal/jsonw"
)

// Encoding a trail line without reflection, as the items lines of a turn
// are (engine/internal/convlog/json.go).

// AppendJSON appends l as one JSON object (journal.Appender); an event's
// steps are encoding/json's.
func (l *auditLine) AppendJSON(b []byte) ([]byte, bool) {
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
