package audit

import (
	"bytes"
	"cairn/internal/timefmt"
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// encodingJSON is what the journal wrote before items lines encoded
// themselves: encoding/json's bytes, here without HTML escaping.
func encodingJSON(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// everyFieldSet fails unless every exported field of the struct v points
// to is set, in the structs it holds too (by value or pointer): a field
// added to a line, or to a value its AppendJSON writes by hand, and left
// out of the full line fails here; set there, it fails the comparison with
// encoding/json until AppendJSON writes it.
func everyFieldSet(t *testing.T, what string, v any) {
	t.Helper()
	var walk func(path string, v reflect.Value)
	walk = func(path string, v reflect.Value) {
		for i := range v.NumField() {
			f, x := v.Type().Field(i), v.Field(i)
			if !f.IsExported() {
				continue
			}
			if x.IsZero() {
				t.Fatalf("%s leaves %s%s unset", what, path, f.Name)
			}
			if x.Kind() == reflect.Pointer {
				x = x.Elem()
			}
			if x.Kind() == reflect.Struct {
				walk(path+f.Name+".", x)
			}
		}
	}
	walk("", reflect.ValueOf(v).Elem())
}

// A trail line encodes itself to encoding/json's bytes, every field set or
// none.
func TestAuditLineAppendJSONIsEncodingJSON(t *testing.T) {
	at := timefmt.Mk(time.Date(2026, 11, 29, 9, 12, 3, 120_000_000, time.UTC))
	full := &Line{V: 1, Kind: "event", At: at, Session: "s-1", Turn: 2, Items: 7, Labels: []string{"prompt", "tool"},
		Gates: []string{"planner"}, Event: "session.snapshot_restore", Outcome: "ok", Action: "undo",
		Steps: []Step{{ID: "c-<1>&", Restored: 1, Removed: 2, Skipped: 3}}, Files: 4, Rule: "r"}
	everyFieldSet(t, "the full trail line", full)
	for _, l := range []*Line{full, {}, {V: 1, Kind: "turn", At: at, Session: "s", Turn: 1}} {
		got, ok := l.AppendJSON(nil)
		if want := encodingJSON(t, l); !ok || !bytes.Equal(got, want) {
			t.Fatalf("AppendJSON wrote (ok %v)\n%s\nencoding/json writes\n%s", ok, got, want)
		}
	}
}
