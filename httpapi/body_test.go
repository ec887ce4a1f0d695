package httpapi

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestRestoreBody(t *testing.T) {
	for body, want := range map[string]restoreRequest{
		"":                    {Action: "undo"},
		" \n":                 {Action: "undo"},
		"{}":                  {Action: "undo"},
		`{"action":"undo"}`:   {Action: "undo"},
		`{"action":"redo"}`:   {Action: "redo"},
		`{"id":"m2x1-9f3a"}`:  {Action: "restore", ID: "m2x1-9f3a"},
		" {\"id\":\"x\"} \n ": {Action: "restore", ID: "x"},
	} {
		got, err := decodeRestoreBody([]byte(body))
		if err != nil || got != want {
			t.Errorf("%q: %+v %v, want %+v", body, got, err, want)
		}
	}
	for _, body := range []string{
		`null`, `[]`, `"undo"`, `{"action":"UNDO"}`, `{"action":null}`, `{"action":""}`,
		`{"id":"a b"}`, `{"id":"\u0000"}`, `{"id":7}`, `{"id":""}`, `{"action":"redo","id":"x"}`,
		`{"x":1}`, `{}x`, `{"action":"undo"}{"action":"redo"}`,
		// Field names are exact and given once.
		`{"ACTION":"redo"}`, `{"Action":"undo"}`, `{"ID":"x"}`, `{"Id":"x"}`,
		`{"action":"undo","action":"redo"}`, `{"action":"redo","action":"redo"}`,
		`{"id":"a","id":"b"}`, `{"act\u0069on":"undo","action":"redo"}`,
		`{"action":"undo",}`, `{"action" "undo"}`,
	} {
		if got, err := decodeRestoreBody([]byte(body)); err == nil {
			t.Errorf("%q accepted as %+v", body, got)
		}
	}
}

func FuzzRestoreBody(f *testing.F) {
	for _, s := range []string{"", "{}", `{"action":"undo"}`, `{"action":"redo"}`, `{"id":"m2x1-9f3a2c7e"}`,
		`{"action":"undo","id":"x"}`, `{"action":1}`, "[", `{"id":"\ud800"}`, strings.Repeat("{", 100)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		req, err := decodeRestoreBody(b)
		if err != nil {
			if req != (restoreRequest{}) {
				t.Fatalf("error with a request: %+v", req)
			}
			return
		}
		var again []byte
		switch req.Action {
		case "undo", "redo":
			if req.ID != "" {
				t.Fatalf("%s with id %q", req.Action, req.ID)
			}
			again, _ = json.Marshal(map[string]string{"action": req.Action})
		case "restore":
			if req.ID == "" || !printable(req.ID) {
				t.Fatalf("restore with id %q", req.ID)
			}
			again, _ = json.Marshal(map[string]string{"id": req.ID})
		default:
			t.Fatalf("action %q", req.Action)
		}
		if back, err := decodeRestoreBody(again); err != nil || back != req {
			t.Fatalf("round trip %s: %+v %v, want %+v", again, back, err, req)
		}
	})
}
