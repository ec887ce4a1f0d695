package fstate

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestNameJSON: a UTF-8 name is a JSON string as before, any other is its
// bytes in base64; both forms, escapes, null and old lines read back.
func TestNameJSON(t *testing.T) {
	for _, c := range []struct {
		name, json string
	}{
		{"src/app.ts", `"src/app.ts"`},
		{"a \"quoted\"\\name\n", `"a \"quoted\"\\name\n"`},
		{"héllo/日本", `"héllo/日本"`},
		{"bad\xff", `{"base64":"YmFk/w=="}`},
		{"\xc3(", `{"base64":"wyg="}`},
	} {
		b, err := json.Marshal(Name(c.name))
		if err != nil || string(b) != c.json {
			t.Errorf("Marshal(%q) = %s, %v; want %s", c.name, b, err, c.json)
		}
		var n Name
		if err := json.Unmarshal(b, &n); err != nil || string(n) != c.name {
			t.Errorf("Unmarshal(%s) = %q, %v; want %q", b, n, err, c.name)
		}
	}
	// A line written before: a string with escapes, the replacement
	// character included, reads as it always did.
	for in, want := range map[string]string{`"x\ufffd"`: "x\uFFFD", `"a\u003cb"`: "a<b", `null`: ""} {
		var n Name
		if err := json.Unmarshal([]byte(in), &n); err != nil || string(n) != want {
			t.Errorf("Unmarshal(%s) = %q, %v", in, n, err)
		}
	}
	for _, bad := range []string{`{"base64":"!!"}`, `3`, `[]`, `{"base64":1}`} {
		var n Name
		if err := json.Unmarshal([]byte(bad), &n); err == nil {
			t.Errorf("Unmarshal(%s) = %q, want an error", bad, n)
		}
	}
	// Names: each element in its form; a []string converts both ways.
	list := []string{"ok", "bad\xff"}
	b, err := json.Marshal(Names(list))
	if err != nil || string(b) != `["ok",{"base64":"YmFk/w=="}]` {
		t.Fatalf("Names: %s %v", b, err)
	}
	var back Names
	if err := json.Unmarshal(b, &back); err != nil || !slices.Equal([]string(back), list) {
		t.Fatalf("Names back: %q %v", back, err)
	}
}

// FuzzName: any bytes go out and come back the same; any input decodes or
// fails without a panic.
func FuzzName(f *testing.F) {
	for _, s := range []string{"a", "bad\xff", "\x00", `{"base64":"eA=="}`, `"\ud800"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := json.Marshal(Name(s))
		if err != nil {
			t.Fatal(err)
		}
		var n Name
		if err := json.Unmarshal(b, &n); err != nil || string(n) != s {
			t.Fatalf("%q -> %s -> %q, %v", s, b, n, err)
		}
		var any Name
		_ = json.Unmarshal([]byte(s), &any)
	})
}
