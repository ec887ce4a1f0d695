package changes

import (
	"encoding/json"
	"testing"
)

// TestItemRefForms: a line's "item" reads as known when present ("" too:
// no item yet) and as unknown when absent or null; an unknown one is not
// written, a known "" is.
func TestItemRefForms(t *testing.T) {
	for _, c := range []struct {
		line string
		want ItemRef
	}{
		{`{"v":1,"kind":"redo","id":"m2x1-9f3a2c7e"}`, ItemRef{}},
		{`{"v":1,"kind":"redo","id":"m2x1-9f3a2c7e","item":null}`, ItemRef{}},
		{`{"v":1,"kind":"redo","id":"m2x1-9f3a2c7e","item":""}`, NewestItem("")},
		{`{"v":1,"kind":"redo","id":"m2x1-9f3a2c7e","item":"i-1"}`, NewestItem("i-1")},
	} {
		l, err := Decode([]byte(c.line))
		if err != nil || l.Item != c.want {
			t.Fatalf("%s: %+v (%v), want item %+v", c.line, l, err, c.want)
		}
	}
	for _, c := range []struct {
		item ItemRef
		want string
	}{
		{ItemRef{}, `{"v":1,"kind":"redo","id":"x","at":null}`},
		{NewestItem(""), `{"v":1,"kind":"redo","id":"x","at":null,"item":""}`},
		{NewestItem("i-1"), `{"v":1,"kind":"redo","id":"x","at":null,"item":"i-1"}`},
	} {
		b, _ := json.Marshal(EventLine{V: 1, Kind: KindRedo, ID: "x", Item: c.item})
		if string(b) != c.want {
			t.Fatalf("%+v writes %s, want %s", c.item, b, c.want)
		}
	}
}

// FuzzItemRefAsString: an "item" reads as the string encoding/json
// decodes from it (the plain ones without a decoder, the rest with
// one), or fails where that fails.
func FuzzItemRefAsString(f *testing.F) {
	for _, s := range []string{`"i-1"`, `""`, `null`, `"a\"b"`, `"caf\u00e9"`, "\"caf\xc3\xa9\"", "\"bad\xff\"", "\"ctl\x01\"", `"~\u007f"`, `"`, `"x`, `7`, `"a"b"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var want ItemRef
		var s string
		werr := json.Unmarshal(b, &s)
		if werr == nil {
			want = NewestItem(s)
		}
		if string(b) == "null" {
			want, werr = ItemRef{}, nil
		}
		var got ItemRef
		gerr := got.UnmarshalJSON(b)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("%q: encoding/json %v, UnmarshalJSON %v", b, werr, gerr)
		}
		if werr == nil && got != want {
			t.Fatalf("%q: %+v, want %+v", b, got, want)
		}
	})
}
