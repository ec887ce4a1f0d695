package convlog

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"

	"cairn/internal/jsonw"
)

// Encoding the lines a turn writes without reflection: its items and its
// turn line (the engine's trail line uses the same helpers). A turn writes three or more lines, mostly items
// with kilobytes of text, and encoding/json's reflection and its second
// pass over a marshaller's bytes cost a turn more than its writes
// (cmd/cairn-bench B4). The bytes are encoding/json's with HTML escaping
// off: the same fields in the same order, omitempty alike
// (json_test.go holds the two together).

// AppendJSON appends l as one JSON object (journal.Appender). The nested
// values a turn rarely writes (attachments, a fork reference, a turn's
// state, meta) are encoding/json's; ok is false when one of them fails to
// encode, and Append then reports encoding/json's error.
func (l *Line) AppendJSON(b []byte) ([]byte, bool) {
	b = append(b, `{"v":`...)
	b = jsonw.Int(b, int64(l.V))
	b = append(b, `,"kind":`...)
	b = jsonw.String(b, l.Kind)
	b = AppendStringField(b, "id", l.ID)
	if l.Parent != nil {
		b = append(b, `,"parent":`...)
		b = jsonw.String(b, *l.Parent)
	}
	b = AppendStringField(b, "type", string(l.Type))
	if l.At != nil {
		b = append(b, `,"at":`...)
		b = AppendTime(b, *l.At)
	}
	if l.Text != nil {
		b = append(b, `,"text":`...)
		b = jsonw.String(b, *l.Text)
	}
	if p := l.Payload; p != nil {
		b = append(b, `,"payload":{"oid":`...)
		b = jsonw.String(b, p.OID)
		b = append(b, `,"size":`...)
		b = jsonw.Int(b, p.Size)
		b = append(b, '}')
	}
	b = AppendStringField(b, "tool", l.Tool)
	b = AppendStringField(b, "call", l.Call)
	b = AppendStringField(b, "status", l.Status)
	if l.Quarantined {
		b = append(b, `,"quarantined":true`...)
	}
	b = AppendStringField(b, "slot", l.Slot)
	b = AppendStrings(b, "replaces", l.Replaces)
	b = AppendStrings(b, "outputs", l.Outputs)
	var ok bool
	if len(l.Attachments) > 0 {
		if b, ok = AppendMarshalled(b, "attachments", l.Attachments); !ok {
			return b, false
		}
	}
	b = AppendStringField(b, "task", l.Task)
	if l.Blocked {
		b = append(b, `,"blocked":true`...)
	}
	b = AppendStringField(b, "from", l.From)
	if l.To != nil {
		b = append(b, `,"to":`...)
		b = jsonw.String(b, *l.To)
	}
	b = AppendStringField(b, "why", l.Why)
	b = AppendStringField(b, "session", l.Session)
	b = AppendStringField(b, "path", l.Path)
	if l.ForkOf != nil {
		if b, ok = AppendMarshalled(b, "fork_of", l.ForkOf); !ok {
			return b, false
		}
	}
	b = AppendStringField(b, "build", l.Build)
	b = AppendStringField(b, "title", l.Title)
	b = AppendStringField(b, "source", l.Source)
	if l.Turn != nil {
		b = append(b, `,"turn":`...)
		if b, ok = l.Turn.AppendJSON(b); !ok {
			return b, false
		}
	}
	b = AppendStringField(b, "branch", l.Branch)
	if l.PID != 0 {
		b = append(b, `,"pid":`...)
		b = jsonw.Int(b, int64(l.PID))
	}
	if len(l.Meta) > 0 {
		if b, ok = AppendMarshalled(b, "meta", l.Meta); !ok {
			return b, false
		}
	}
	return append(b, '}'), true
}

// AppendStringField appends ,"name":"v" unless v is empty (omitempty).
func AppendStringField(b []byte, name, v string) []byte {
	if v == "" {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return jsonw.String(b, v)
}

// AppendStrings appends ,"name":[...] unless vs is empty (omitempty).
func AppendStrings(b []byte, name string, vs []string) []byte {
	if len(vs) == 0 {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':', '[')
	for i, v := range vs {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonw.String(b, v)
	}
	return append(b, ']')
}

// AppendMarshalled appends ,"name": and encoding/json's bytes for v,
// without HTML escaping as the rest of the line (json.Marshal would write
// a "<" in an attachment's name or in meta as \u003c).
func AppendMarshalled(b []byte, name string, v any) ([]byte, bool) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return b, false
	}
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...), true
}

// AppendTime appends t as Time.MarshalJSON writes it: null when zero.
func AppendTime(b []byte, t Time) []byte {
	if t.IsZero() {
		return append(b, "null"...)
	}
	return jsonw.Time(b, t.Time)
}

// AppendJSON appends t as encoding/json writes it; the plan and the trust
// map, which few turns carry, are encoding/json's.
func (t *TurnState) AppendJSON(b []byte) ([]byte, bool) {
	b = append(b, `{"n":`...)
	b = jsonw.Int(b, int64(t.N))
	var ok bool
	if len(t.Plan) > 0 {
		if b, ok = AppendMarshalled(b, "plan", t.Plan); !ok {
			return b, false
		}
	}
	b = AppendStringField(b, "model", t.Model)
	b = append(b, `,"spend":{"input_tokens":`...)
	b = jsonw.Int(b, t.Spend.InputTokens)
	b = append(b, `,"output_tokens":`...)
	b = jsonw.Int(b, t.Spend.OutputTokens)
	b = append(b, `,"cost_usd":`...)
	if b, ok = appendFloat(b, t.Spend.CostUSD); !ok {
		return b, false
	}
	b = append(b, '}')
	if t.Trust != nil {
		if b, ok = AppendMarshalled(b, "trust", t.Trust); !ok {
			return b, false
		}
	}
	b = AppendStrings(b, "allowed_commands", t.AllowedCommands)
	b = AppendStringField(b, "branch", t.Branch)
	b = AppendStringField(b, "build", t.Build)
	b = AppendStrings(b, "labels", t.Labels)
	b = AppendStrings(b, "gates", t.Gates)
	if t.Usage {
		b = append(b, `,"usage":true`...)
	}
	return append(b, '}'), true
}

// AppendIntField appends ,"name":n unless n is 0 (omitempty).
func AppendIntField(b []byte, name string, n int) []byte {
	if n == 0 {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return jsonw.Int(b, int64(n))
}

// appendFloat appends f as encoding/json writes a float64; NaN and the
// infinities, which it refuses, are refused.
func appendFloat(b []byte, f float64) ([]byte, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 as e-9, as encoding/json writes it.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}

// Retarget rewrites line, an items journal's line, to name directory to
// when it is the session line; ok is false for any other line.
func Retarget(line []byte, to string) ([]byte, bool, error) {
	var l Line
	if json.Unmarshal(line, &l) != nil || l.Kind != KindSession {
		return nil, false, nil
	}
	l.Path = to
	b, err := json.Marshal(&l)
	return b, err == nil, err
}
