package convlog

import (
	"bytes"
	"cairn/internal/timefmt"
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

// fullItemLine sets every field of an items line, and of the values in it
// that AppendJSON writes by hand. The values it leaves to encoding/json
// hold HTML characters, which no part of a line escapes.
func fullItemLine() *Line {
	parent, text, to := "i-parent", "line one\nline \"two\"\t\\ ✓ \x01 \xff", ""
	at := timefmt.Mk(time.Date(2026, 11, 29, 9, 12, 3, 120_456_000, time.UTC))
	return &Line{V: 1, Kind: "item", ID: "i-1", Parent: &parent, Type: ToolResult, At: &at, Text: &text,
		Payload: &Payload{OID: "ab12", Size: 70000}, Tool: "shell", Call: "i-call", Status: "unavailable",
		Quarantined: true, Slot: "secret", Replaces: []string{"i-a", "i-b"}, Outputs: []string{"output-x"},
		Attachments: []Attachment{{OID: "cd34", Name: "<shot> & co.png", MediaType: "image/png", Size: 12, Pages: 1}},
		Task:        "fix-the-build", Blocked: true, From: "s-2", To: &to, Why: "revert", Session: "s-1", Path: "/w/p", ForkOf: &ForkRef{Session: "s-0", Item: "i-9", N: 2},
		Build: "0.1.0", Title: "a title", Source: "user", Turn: fullTurnState(),
		Branch: "main", PID: 4242, Meta: json.RawMessage(`{"k":"<v> & w"}`),
		Unavailable: &Unavailable{OID: "ab12", Size: 1, Reason: PayloadUnreadable, Error: "e"}} // never written
}

// fullTurnState sets every field of a turn line's state.
func fullTurnState() *TurnState {
	return &TurnState{N: 3, Plan: json.RawMessage(`{"steps":["<read> & write"]}`), Model: "m", Spend: Spend{InputTokens: 5, OutputTokens: 6, CostUSD: 0.25},
		Trust:           &Trust{Map: map[string]string{"/w/<p>": "a&b"}, Rules: []TrustRule{{Path: "/w/<p>", Rule: "allow"}}},
		AllowedCommands: []string{"go test"}, Branch: "b", Build: "v", Labels: []string{"prompt"}, Gates: []string{"g"}, Usage: true}
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

// An items line encodes itself to encoding/json's bytes, for every field
// set and for the lines a turn writes.
func TestItemLineAppendJSONIsEncodingJSON(t *testing.T) {
	full := fullItemLine()
	everyFieldSet(t, "fullItemLine", full)
	zero := timefmt.Mk(time.Time{})
	empty := ""
	text := "plain"
	lines := []*Line{full, {}, {V: 1, Kind: KindItem, ID: "i-2", Type: User, At: &zero, Text: &text},
		{V: 1, Kind: KindHead, To: &empty, Why: "fork"}, {V: 1, Kind: KindTitle, Title: "<b>&</b>", Source: "prompt"},
		// Empty values where a field's omitempty is what tells the two apart.
		{V: 1, Kind: KindTurn, Payload: &Payload{}, ForkOf: &ForkRef{}, Turn: &TurnState{}}}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		raw := make([]byte, r.IntN(40))
		for i := range raw {
			raw[i] = byte(r.IntN(256))
		}
		s := string(raw)
		lines = append(lines, &Line{V: 1, Kind: KindItem, ID: s, Parent: &s, Text: &s, Replaces: []string{s}})
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
	l := &Line{V: 1, Kind: KindMeta, Meta: json.RawMessage(`{not json`)}
	if _, ok := l.AppendJSON(nil); ok {
		t.Fatal("AppendJSON took meta that is not JSON")
	}
}

// A turn line's spend is written as encoding/json writes floats, and one
// it cannot write (NaN) is left to it, to refuse.
func TestTurnStateAppendJSONFloats(t *testing.T) {
	full := fullTurnState()
	for _, c := range []float64{0, 0.004, 1e-7, 1.5e-9, 12345.678, 1e21, 3e22, -0.5, -2e-8, 1e20} {
		ts := *full
		ts.Spend.CostUSD = c
		l := &Line{V: 1, Kind: KindTurn, Turn: &ts}
		got, ok := l.AppendJSON(nil)
		if want := encodingJSON(t, l); !ok || !bytes.Equal(got, want) {
			t.Fatalf("cost %v: AppendJSON wrote (ok %v)\n%s\nencoding/json writes\n%s", c, ok, got, want)
		}
	}
	nan := &Line{V: 1, Kind: KindTurn, Turn: &TurnState{Spend: Spend{CostUSD: math.NaN()}}}
	if _, ok := nan.AppendJSON(nil); ok {
		t.Fatal("AppendJSON wrote a NaN cost")
	}
}
