package jsonw

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

// encodingJSON is encoding/json's string without HTML escaping.
func encodingJSON(s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// String writes encoding/json's very bytes (without HTML escaping), so
// what it writes reads back as encoding/json's too: journal lines encoded
// either way are one format.
func TestStringIsEncodingJSONBytes(t *testing.T) {
	for _, s := range []string{"", "plain", `q"uote\back`, "tab\tnl\ncr\r\b\f", "\x00\x1f\x7f", "héllo ✓", "bad \xff utf8", "<html>&", "sep\u2028par\u2029"} {
		if got, want := String(nil, s), encodingJSON(s); !bytes.Equal(got, want) {
			t.Fatalf("%q: String wrote %s, encoding/json %s", s, got, want)
		}
	}
}

func TestTime(t *testing.T) {
	at := time.Date(2026, 11, 29, 9, 12, 3, 120_456_000, time.FixedZone("x", 3600))
	if got := string(Time(nil, at)); got != `"2026-11-29T08:12:03.120Z"` {
		t.Fatalf("Time = %s", got)
	}
	for _, x := range []time.Time{time.Date(1, 1, 1, 0, 0, 0, 1e6, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 999e6, time.UTC), time.Date(12000, 1, 1, 0, 0, 0, 0, time.UTC)} {
		if got, want := string(Time(nil, x)), `"`+x.Format(TimeLayout)+`"`; got != want {
			t.Fatalf("Time = %s, want %s", got, want)
		}
	}
	if got := string(Time(nil, time.Time{})); got != `""` {
		t.Fatalf("zero Time = %s", got)
	}
}

func FuzzString(f *testing.F) {
	f.Add("a\"b\\c\x00\xff")
	f.Fuzz(func(t *testing.T, s string) {
		var back string
		if err := json.Unmarshal(String(nil, s), &back); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if got, want := String(nil, s), encodingJSON(s); !bytes.Equal(got, want) {
			t.Fatalf("%q: String wrote %s, encoding/json %s", s, got, want)
		}
	})
}
