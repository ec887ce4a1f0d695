package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
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
// an empty body or {} means undo. Field names are matched exactly (lower
// case) and each may appear once: a field of another spelling, a repeated
// field, both action and id, an empty or unprintable id, anything after the
// object: errBadBody. (encoding/json alone would take "ACTION" for action
// and let the last of two repeated fields win.)
func decodeRestoreBody(b []byte) (restoreRequest, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return restoreRequest{Action: "undo"}, nil
	}
	if bytes.TrimLeft(b, " \t\r\n")[0] != '{' {
		return restoreRequest{}, fmt.Errorf("%w: want a JSON object", errBadBody)
	}
	fields, err := decodeFields(b, "action", "id")
	if err != nil {
		return restoreRequest{}, err
	}
	rawAction, hasAction := fields["action"]
	rawID, hasID := fields["id"]
	var action, id string
	if hasAction && json.Unmarshal(rawAction, &action) != nil {
		return restoreRequest{}, fmt.Errorf("%w: action must be a string", errBadBody)
	}
	if hasID && json.Unmarshal(rawID, &id) != nil {
		return restoreRequest{}, fmt.Errorf("%w: id must be a string", errBadBody)
	}
	switch {
	case hasAction && hasID:
		return restoreRequest{}, fmt.Errorf("%w: give either action or id, not both", errBadBody)
	case hasID:
		if id == "" || len(id) > 128 || !printable(id) {
			return restoreRequest{}, fmt.Errorf("%w: id must be a snapshot id", errBadBody)
		}
		return restoreRequest{Action: "restore", ID: id}, nil
	case !hasAction:
		return restoreRequest{Action: "undo"}, nil
	}
	switch action {
	case "undo", "redo":
		return restoreRequest{Action: action}, nil
	}
	return restoreRequest{}, fmt.Errorf("%w: action must be \"undo\" or \"redo\"", errBadBody)
}

// decodeFields reads b as one JSON object whose fields are among known,
// spelled exactly, each at most once, and returns their raw values (null
// included). Anything else in b is errBadBody.
func decodeFields(b []byte, known ...string) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("%w: want a JSON object", errBadBody)
	}
	fields := map[string]json.RawMessage{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("%w: %v", errBadBody, err)
		}
		name, _ := t.(string)
		if !slices.Contains(known, name) {
			return nil, fmt.Errorf("%w: unknown field %q (fields are %s, in lower case)", errBadBody, name, strings.Join(known, " and "))
		}
		if _, dup := fields[name]; dup {
			return nil, fmt.Errorf("%w: field %q is given twice", errBadBody, name)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("%w: %v", errBadBody, err)
		}
		fields[name] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("%w: %v", errBadBody, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: data after the JSON object", errBadBody)
	}
	return fields, nil
}

func printable(s string) bool {
	for _, r := range s {
		if r == unicode.ReplacementChar || !unicode.IsPrint(r) || unicode.IsSpace(r) {
			return false
		}
	}
	return true
}
