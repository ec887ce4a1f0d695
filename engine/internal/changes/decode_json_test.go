package changes

import (
	"bytes"
	stdjson "encoding/json"
	"os"
	"reflect"
	"testing"
)

// stdDecode is Decode as encoding/json reads a line: the verdict Decode
// must give.
func stdDecode(b []byte) (*Line, error) {
	l := new(Line)
	if err := stdjson.Unmarshal(b, l); err != nil || l.V != 1 {
		return nil, errNotLine
	}
	return l, nil
}

// oddLines are lines no cairn writes, each spelled to try where a
// decoder may part from encoding/json.
var oddLines = []string{
	`{"v":1,"kind":"change","id":"m2x1-9f3a2c7e","seq":7,"at":"2026-01-02T03:04:05.678Z","tool":"edit","call":"i-1","item":"i-1","scope":"file","files":[{"path":"a.go","before":{"oid":"ab","size":3},"after":{"sha256":"cd","size":4}}]}`,
	`{"V":1,"KIND":"change","Id":"x","Files":[{"PATH":"a","Before":null}]}`,
	`{"v":1,"kind":"undo","kind":"redo","id":"a","id":"b"}`,
	`{"v":1,"files":[{"path":"a","before":{"oid":"x"}}],"files":[{"path":"b"}]}`,
	`{"v":1,"files":[{"path":"a","before":{"oid":"x"},"before":{"size":2}}]}`,
	`{"v":1,"seq":1e3}`,
	`{"v":1e0}`,
	`{"v":1.0,"kind":"close"}`,
	`{"v":1,"seq":-0}`,
	`{"v":1,"seq":9223372036854775808}`,
	`{"v":1,"part":1.5}`,
	`{"v":null,"kind":"close"}`,
	`{"v":1,"kind":null,"ids":null,"at":null,"item":null,"paths":null,"left":null,"members":null,"files":null}`,
	`{"v":1,"files":[null,{"path":null,"before":null,"after":{"data":null}}]}`,
	`{"v":1,"unknown":{"x":[1,2,{"y":null}],"z":"\u0000"},"kind":"close"}`,
	`{"v":1,"kind":"cl` + "\xff" + `ose"}`,
	`{"v":1,"files":[{"path":"bad` + "\xff\xfe" + `"}]}`,
	`{"v":1,"paths":["a` + "\xc3" + `(", "b"]}`,
	`{"v":1,"kind":"close` + "\x01" + `"}`,
	`{"v":1,"files":[{"path":"a` + "\t" + `b"}]}`,
	`{"v":1,"kind":"close"`,
	`{"v":1,"kind":"close"}}`,
	`{"v":1,"kind":"close"} x`,
	` {"v":1,"kind":"close"} `,
	`{"v":1,"kind":"clo\u0073e","tool":"\ud83d\ude00\ud800"}`,
	`{"v":1,"files":[{"path":"a\"b\\c\u003c\u0026\u003e\/d"}]}`,
	`{"v":1,"files":[{"path":{"base64":"YmFk/w=="}},{"path":{"base64":"!!"}}]}`,
	`{"v":1,"paths":[{"base64":"YmFk/w=="},"ok",null]}`,
	`{"v":1,"left":"not a list"}`,
	`{"v":1,"item":""}`,
	`{"v":1,"item":7}`,
	`{"v":1,"at":"2026-01-02T03:04:05+02:00"}`,
	`{"v":1,"at":"yesterday"}`,
	`{"v":1,"at":1}`,
	`{"v":1,"files":[{"path":"a","before":{"data":"aGVsbG8="}}]}`,
	`{"v":1,"files":[{"path":"a","before":{"data":"not base64!"}}]}`,
	`{"v":1,"files":[{"path":"a","before":{"size":"3"}}]}`,
	`{"v":1,"members":[{"id":"a","call":"c","item":"i"},{"item":null}]}`,
	`{"v":1,"ids":["a",1]}`,
	`{"v":2,"kind":"close"}`,
	`{"v":"1"}`,
	`[{"v":1}]`,
	`null`,
	`{}`,
	``,
	`{"v":1,"\u212aind":"close","ſeq":3}`,
	`{"v":1,"KInD":"close","SEQ":3}`,
	`{"v":1,"kind":"close","":1}`,
	`{"v":1,"kind":"close",}`,
	`{"v":01}`,
	`{"v":1,"kind":"\x7f"}`,
	`{"v":1,"files":{"path":"a"}}`,
	`{"v":1,"files":[{"path":"a","before":[]}]}`,
	`{"v":1,"files":[{"path":"a","before":{"size":1},"before":null}]}`,
}

// writtenLines is lines the engine wrote, every kind (testdata/written.jsonl,
// written by engine: go test -run TestChangesJournalDecodesAsEncodingJSON
// -update).
func writtenLines(t testing.TB) [][]byte {
	b, err := os.ReadFile("testdata/written.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
}

// TestDecodeAsEncodingJSON: Decode reads each line as encoding/json reads
// it into Line: the same Line, the same verdict (a line or not).
func TestDecodeAsEncodingJSON(t *testing.T) {
	for _, l := range oddLines {
		checkDecodeAsStd(t, []byte(l))
	}
	written := writtenLines(t)
	for _, l := range written {
		if _, err := Decode(l); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		checkDecodeAsStd(t, l)
	}
	if len(written) < 50 {
		t.Fatalf("%d written lines", len(written))
	}
}

func checkDecodeAsStd(t *testing.T, b []byte) {
	t.Helper()
	want, werr := stdDecode(b)
	got, gerr := Decode(b)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("%q: encoding/json says %v, Decode %v", b, werr, gerr)
	}
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("%q:\nencoding/json %+v\nDecode        %+v", b, want, got)
	}
}

// FuzzChangesDecodeAsEncodingJSON: whatever the line, Decode gives
// encoding/json's verdict and Line. Seeded with the odd lines above and
// the lines the engine writes (writtenLines); the default suite runs the
// seeds only.
func FuzzChangesDecodeAsEncodingJSON(f *testing.F) {
	for _, l := range oddLines {
		f.Add([]byte(l))
	}
	for _, l := range writtenLines(f) {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkDecodeAsStd(t, b)
	})
}
