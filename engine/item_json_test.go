package engine

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
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

// fullItemLine sets every field of an items line.
func fullItemLine() *itemLine {
	parent, text, to := "i-parent", "line one\nline \"two\"\t\\ ✓ \x01 \xff", ""
	at := mkTime(time.Date(2026, 11, 29, 9, 12, 3, 120_456_000, time.UTC))
	return &itemLine{V: 1, Kind: "item", ID: "i-1", Parent: &parent, Type: ToolResult, At: &at, Text: &text,
		Payload: &Payload{OID: "ab12", Size: 70000}, Tool: "shell", Call: "i-call", Status: "unavailable",
		Quarantined: true, Slot: "secret", Replaces: []string{"i-a", "i-b"}, Outputs: []string{"output-x"},
		Attachments: []Attachment{{OID: "cd34", Name: "shot.png", MediaType: "image/png", Size: 12, Pages: 1}},
		Task:        "fix-the-build", To: &to, Why: "revert", Session: "s-1", Path: "/w/p", ForkOf: &ForkRef{Session: "s-0", Item: "i-9", N: 2},
		Build: "0.1.0", Title: "a title", Source: "user",
		Turn:   &TurnState{N: 3, Plan: json.RawMessage(`{"steps":[1]}`), Model: "m", Spend: Spend{InputTokens: 5, CostUSD: 0.25}, Labels: []string{"prompt"}, Usage: true},
		Branch: "main", PID: 4242, Meta: json.RawMessage(`{"k":"v"}`)}
}

// An items line encodes itself to encoding/json's bytes, for every field
// set and for the lines a turn writes.
func TestItemLineAppendJSONIsEncodingJSON(t *testing.T) {
	full := fullItemLine()
	// Every field of the format is set in full, so a field added to
	// itemLine and not to AppendJSON fails here.
	v := reflect.ValueOf(full).Elem()
	for i := range v.NumField() {
		if f := v.Type().Field(i); f.IsExported() && v.Field(i).IsZero() {
			t.Fatalf("fullItemLine leaves %s unset", f.Name)
		}
	}
	zero := mkTime(time.Time{})
	empty := ""
	text := "plain"
	lines := []*itemLine{full, {}, {V: 1, Kind: kindItem, ID: "i-2", Type: User, At: &zero, Text: &text},
		{V: 1, Kind: kindHead, To: &empty, Why: "fork"}, {V: 1, Kind: kindTitle, Title: "<b>&</b>", Source: "prompt"}}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		raw := make([]byte, r.IntN(40))
		for i := range raw {
			raw[i] = byte(r.IntN(256))
		}
		s := string(raw)
		lines = append(lines, &itemLine{V: 1, Kind: kindItem, ID: s, Parent: &s, Text: &s, Replaces: []string{s}})
	}
	for _, l := range lines {
		got, ok := l.AppendJSON(nil)
		if !ok {
			t.Fatalf("AppendJSON refused %+v", l)
		}
		if want := encodingJSON(t, l); !bytes.Equal(got, want) {
			t.Fatalf("AppendJSON wrote\n%s\nencoding/json writes\n%s", got, want)
		}
	}
}

// A nested value that cannot be encoded leaves the line to encoding/json,
// whose error the append returns.
func TestItemLineAppendJSONRefusesBadMeta(t *testing.T) {
	l := &itemLine{V: 1, Kind: kindMeta, Meta: json.RawMessage(`{not json`)}
	if _, ok := l.AppendJSON(nil); ok {
		t.Fatal("AppendJSON took meta that is not JSON")
	}
}

// A trail line encodes itself to encoding/json's bytes, every field set or
// none.
func TestAuditLineAppendJSONIsEncodingJSON(t *testing.T) {
	at := mkTime(time.Date(2026, 11, 29, 9, 12, 3, 120_000_000, time.UTC))
	full := &auditLine{V: 1, Kind: "event", At: at, Session: "s-1", Turn: 2, Items: 7, Labels: []string{"prompt", "tool"},
		Gates: []string{"planner"}, Event: "session.snapshot_restore", Outcome: "ok", Action: "undo",
		Steps: []AuditStep{{ID: "c-1", Restored: 1, Removed: 2, Skipped: 3}}, Files: 4, Rule: "r"}
	v := reflect.ValueOf(full).Elem()
	for i := range v.NumField() {
		if f := v.Type().Field(i); f.IsExported() && v.Field(i).IsZero() {
			t.Fatalf("the full trail line leaves %s unset", f.Name)
		}
	}
	for _, l := range []*auditLine{full, {}, {V: 1, Kind: "turn", At: at, Session: "s", Turn: 1}} {
		got, ok := l.AppendJSON(nil)
		if want := encodingJSON(t, l); !ok || !bytes.Equal(got, want) {
			t.Fatalf("AppendJSON wrote (ok %v)\n%s\nencoding/json writes\n%s", ok, got, want)
		}
	}
}

// A turn line's spend is written as encoding/json writes floats, and one
// it cannot write (NaN) is left to it, to refuse.
func TestTurnStateAppendJSONFloats(t *testing.T) {
	full := &TurnState{N: 1, Plan: json.RawMessage(`[1]`), Model: "m", Spend: Spend{1, 2, 0.25}, Trust: &Trust{Map: map[string]string{"a": "b"}},
		AllowedCommands: []string{"go test"}, Branch: "b", Build: "v", Labels: []string{"l"}, Gates: []string{"g"}, Usage: true}
	v := reflect.ValueOf(full).Elem()
	for i := range v.NumField() {
		if f := v.Type().Field(i); f.IsExported() && v.Field(i).IsZero() {
			t.Fatalf("the full turn leaves %s unset", f.Name)
		}
	}
	for _, c := range []float64{0, 0.004, 1e-7, 1.5e-9, 12345.678, 1e21, 3e22, -0.5, -2e-8, 1e20} {
		ts := *full
		ts.Spend.CostUSD = c
		l := &itemLine{V: 1, Kind: kindTurn, Turn: &ts}
		got, ok := l.AppendJSON(nil)
		if want := encodingJSON(t, l); !ok || !bytes.Equal(got, want) {
			t.Fatalf("cost %v: AppendJSON wrote (ok %v)\n%s\nencoding/json writes\n%s", c, ok, got, want)
		}
	}
	nan := &itemLine{V: 1, Kind: kindTurn, Turn: &TurnState{Spend: Spend{CostUSD: math.NaN()}}}
	if _, ok := nan.AppendJSON(nil); ok {
		t.Fatal("AppendJSON wrote a NaN cost")
	}
}
