package jsonw

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
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

// Time writes what AppendFormat writes, over times before 1970, across
// leap days and centuries, and outside the layout's years.
func TestTimeIsAppendFormat(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	lo, hi := time.Date(-500, 1, 1, 0, 0, 0, 0, time.UTC).Unix(), time.Date(10500, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	check := func(x time.Time) {
		if got, want := string(Time(nil, x)), `"`+x.UTC().Format(TimeLayout)+`"`; got != want && !x.IsZero() {
			t.Fatalf("%v: Time = %s, want %s", x, got, want)
		}
	}
	for range 200000 {
		check(time.Unix(lo+r.Int64N(hi-lo), r.Int64N(1e9)).In(time.FixedZone("z", r.IntN(50000)-25000)))
	}
	for y := -2; y <= 10001; y++ {
		for _, md := range [][2]int{{1, 1}, {2, 28}, {2, 29}, {3, 1}, {12, 31}} {
			check(time.Date(y, time.Month(md[0]), md[1], 23, 59, 59, 999999999, time.UTC))
			check(time.Date(y, time.Month(md[0]), md[1], 0, 0, 0, 0, time.UTC))
		}
	}
}

// String's eight-bytes-a-step path stops at every byte it must look at,
// wherever the byte falls in a word.
func TestStringPlainRuns(t *testing.T) {
	for _, c := range []string{"\"", "\\", "\x00", "\x1f", "\x7f", " ", "~", "é", "\u2028", "\xff"} {
		for at := range 20 {
			s := strings.Repeat("a", at) + c + strings.Repeat("b", 20-at)
			if got, want := String(nil, s), encodingJSON(s); !bytes.Equal(got, want) {
				t.Fatalf("%q: String wrote %s, encoding/json %s", s, got, want)
			}
		}
	}
}
