package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode"
)

// maxRestoreBody caps the body of POST .../snapshots/restore.
const maxRestoreBody = 64 << 10

// restoreRequest is a decoded restore body: Action is undo, redo or
// restore (with ID).
type restoreRequest struct {
	Action string
	ID     string
}

// errBadBody marks a malformed restore body (400).
var errBadBody = errors.New("bad request body")

// decodeRestoreBody decodes {"action":"undo"|"redo"} or {"id":"<snapshot>"};
// an empty body or {} means undo. Unknown fields, both action and id, an
// empty or unprintable id, anything after the object: errBadBody.
func decodeRestoreBody(b []byte) (restoreRequest, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return restoreRequest{Action: "undo"}, nil
	}
	if bytes.TrimLeft(b, " \t\r\n")[0] != '{' {
		return restoreRequest{}, fmt.Errorf("%w: want a JSON object", errBadBody)
	}
	var body struct {
		Action json.RawMessage `json:"action"` // null is present too
		ID     json.RawMessage `json:"id"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil {
		return restoreRequest{}, fmt.Errorf("%w: %v", errBadBody, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return restoreRequest{}, fmt.Errorf("%w: data after the JSON object", errBadBody)
	}
	var action, id string
	if body.Action != nil && json.Unmarshal(body.Action, &action) != nil {
		return restoreRequest{}, fmt.Errorf("%w: action must be a string", errBadBody)
	}
	if body.ID != nil && json.Unmarshal(body.ID, &id) != nil {
		return restoreRequest{}, fmt.Errorf("%w: id must be a string", errBadBody)
	}
	switch {
	case body.Action != nil && body.ID != nil:
		return restoreRequest{}, fmt.Errorf("%w: give either action or id, not both", errBadBody)
	case body.ID != nil:
		if id == "" || len(id) > 128 || !printable(id) {
			return restoreRequest{}, fmt.Errorf("%w: id must be a snapshot id", errBadBody)
		}
		return restoreRequest{Action: "restore", ID: id}, nil
	case body.Action == nil:
		return restoreRequest{Action: "undo"}, nil
	}
	switch action {
	case "undo", "redo":
		return restoreRequest{Action: action}, nil
	}
	return restoreRequest{}, fmt.Errorf("%w: action must be \"undo\" or \"redo\"", errBadBody)
}

func printable(s string) bool {
	for _, r := range s {
		if r == unicode.ReplacementChar || !unicode.IsPrint(r) || unicode.IsSpace(r) {
			return false
		}
	}
	return true
}
