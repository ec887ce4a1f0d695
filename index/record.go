package index

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"cairn/internal/timefmt"
)

// recordName reports whether name is "<uuid>.json" and returns the id.
func recordName(name string) (string, bool) {
	const n = 36
	if len(name) != n+len(".json") || name[n:] != ".json" {
		return "", false
	}
	for i := range n {
		c := name[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return "", false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return "", false
			}
		}
	}
	return name[:n], true
}

// parseRecord reads the fields of a record the index keeps. id is the id in
// its file name.
func parseRecord(id string, data []byte) (Entry, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return Entry{}, fmt.Errorf("%w: %v", ErrBadRecord, err)
	}
	if m == nil {
		return Entry{}, fmt.Errorf("%w: not a JSON object", ErrBadRecord)
	}
	if raw, ok := m["v"]; ok {
		if v, ok := number(raw); !ok || v != 1 {
			return Entry{}, fmt.Errorf("%w: unsupported version %s", ErrBadRecord, raw)
		}
	}
	e := Entry{ID: id, Journal: -1}
	if raw, ok := m["id"]; ok && !isNull(raw) {
		if s, ok := str(raw); !ok || s != id {
			return Entry{}, fmt.Errorf("%w: id %s does not match the file name", ErrBadRecord, raw)
		}
	}
	e.Title, _ = str(m["title"])
	e.TitleSource, _ = str(m["title_source"])
	e.CreatedAt = recordTime(m["created_at"])
	e.UpdatedAt = recordTime(m["updated_at"])
	e.OpenedAt = recordTime(m["opened_at"])
	e.Branch, _ = str(m["branch"])
	e.Tier, _ = str(m["tier"])
	e.ForkOf, _ = str(m["fork_of"])
	if raw, ok := m["fork_of"]; ok && e.ForkOf == "" {
		// The record names its parent as {"session":ID,"item":ITEM,"n":N}.
		var ref struct {
			Session string `json:"session"`
		}
		if json.Unmarshal(raw, &ref) == nil {
			e.ForkOf = ref.Session
		}
	}
	e.Path, _ = str(m["path"])
	if raw, ok := m["remote"]; ok && !isNull(raw) {
		var r struct {
			Host string `json:"host"`
			Path string `json:"path"`
		}
		if json.Unmarshal(raw, &r) == nil && r.Host != "" {
			e.Remote = r.Host + ":" + r.Path
		}
	}
	if raw, ok := m["pinned"]; ok {
		_ = json.Unmarshal(raw, &e.Pinned)
	}
	var counts struct {
		Items json.RawMessage `json:"items"`
		Bytes json.RawMessage `json:"bytes"`
	}
	if raw, ok := m["counts"]; ok && json.Unmarshal(raw, &counts) == nil {
		if n, ok := number(counts.Items); ok {
			e.Items = int(n)
		}
		if n, ok := number(counts.Bytes); ok {
			e.Bytes = n
		}
	}
	if n, ok := number(m["items"]); ok {
		e.Items = int(n)
	}
	var journals struct {
		Items json.RawMessage `json:"items"`
	}
	if raw, ok := m["journals"]; ok && json.Unmarshal(raw, &journals) == nil {
		if n, ok := number(journals.Items); ok && n > 0 {
			e.Journal = n
		}
	}
	if n, ok := number(m["bytes"]); ok {
		e.Bytes = n
	}
	return e, nil
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(raw, []byte("null")) }

func str(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

func number(raw json.RawMessage) (int64, bool) {
	if len(raw) == 0 || !(raw[0] == '-' || '0' <= raw[0] && raw[0] <= '9') {
		return 0, false
	}
	var n int64
	if json.Unmarshal(raw, &n) != nil {
		return 0, false
	}
	return n, true
}

// recordTime reads an RFC 3339 time, in UTC; anything else is the zero time.
func recordTime(raw json.RawMessage) time.Time {
	s, ok := str(raw)
	if !ok {
		return time.Time{}
	}
	t, err := parseTime(s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// timeLayout is RFC 3339 in UTC with milliseconds, the format's time layout.
const timeLayout = timefmt.Layout

// formatTime appends t in the format's layout, with more digits only when t
// has sub-millisecond precision, so nothing is lost.
func appendTime(b []byte, t time.Time) []byte {
	t = t.UTC()
	if t.Nanosecond()%1e6 == 0 {
		return t.AppendFormat(b, timeLayout)
	}
	return t.AppendFormat(b, time.RFC3339Nano)
}

// parseTime parses RFC 3339, returning UTC. The format's own layout
// ("2026-11-29T09:12:03.120Z") takes a fast path.
func parseTime(s string) (time.Time, error) {
	if t, ok := layoutTime(s); ok {
		return t, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, err
	}
	return t.UTC(), nil
}

func digits(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}
