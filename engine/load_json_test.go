package engine

import (
	stdjson "encoding/json"
	"reflect"
	"testing"

	json "github.com/segmentio/encoding/json"
)

// The fold decodes journal lines with segmentio/encoding/json, for speed:
// each line decodes to the same itemLine as encoding/json decodes it,
// escapes, odd bytes and unusual spellings included.
func TestFoldDecodesAsEncodingJSON(t *testing.T) {
	lines := []string{
		`{"v":1,"kind":"item","id":"i-1","type":"user","at":"2026-01-02T03:04:05.678Z","text":"caf\u00e9 \ud83d\ude00 \"q\" \\ \/ \n\t"}`,
		`{"v":1,"kind":"item","id":"i-2","parent":"i-1","type":"tool_call","tool":"Edit","call":"","text":"` + "raw \xff\xfe bytes" + `"}`,
		`{"v":1,"kind":"item","id":"i-3","type":"assistant","text":null,"payload":{"oid":"ab","size":12345678901}}`,
		`{"v":1,"Kind":"item","ID":"i-4","TYPE":"user","text":"keys spelled otherwise"}`,
		`{"v":1,"kind":"item","id":"i-5","id":"i-6","type":"user","text":"a key twice"}`,
		`{"v":1,"kind":"turn","at":"2026-01-02T03:04:05Z","turn":{"n":3,"model":"m","spend":{"input_tokens":1000,"output_tokens":2,"cost_usd":0.125}}}`,
		`{"v":1,"kind":"turn","at":"2026-01-02T03:04:05Z","turn":{"n":3,"model":"m","spend":{"input_tokens":1e3,"output_tokens":2,"cost_usd":0.125}}}`,
		`{"v":1,"kind":"meta","meta":{"import":{"agent":"codex","offset":18446744073709551615}},"at":"2026-01-02T03:04:05.000Z"}`,
		`{"v":1,"kind":"item","id":"i-7","type":"user","attachments":[{"oid":"cd","name":"a.png","media_type":"image/png","size":3}],"unknown":{"x":[1,2,{"y":null}]}}`,
		`{"v":1.0,"kind":"head","to":"i-1","why":"revert"}`,
	}
	for _, l := range lines {
		var a, b itemLine
		ea := stdjson.Unmarshal([]byte(l), &a)
		eb := json.Unmarshal([]byte(l), &b)
		if (ea == nil) != (eb == nil) {
			t.Errorf("%s: encoding/json %v, the fold's %v", l, ea, eb)
			continue
		}
		// A line that does not decode is left out by the fold, whatever
		// part of it was decoded.
		if ea == nil && !reflect.DeepEqual(a, b) {
			t.Errorf("%s:\nencoding/json %+v\nthe fold's    %+v", l, a, b)
		}
		if stdjson.Valid([]byte(l)) != json.Valid([]byte(l)) {
			t.Errorf("%s: Valid differs", l)
		}
	}
}
