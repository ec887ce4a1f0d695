package fstate

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	segjson "github.com/segmentio/encoding/json"
)

// A file's name is bytes, as the system gives it, and need not be UTF-8;
// a JSON string holds UTF-8 only (encoding/json writes U+FFFD for any
// other byte, which names another file). So a name in a record or a line
// is written as a JSON string when it is valid UTF-8, as it always was,
// and otherwise as an object holding its bytes in standard base64:
//
//	"src/app.ts"
//	{"base64":"YmFk/w=="}        the name "bad\xff"
//
// Readers take either form, so lines written before read as they did.
// Part of the format.

// Name is a file name as it goes in JSON (see above).
type Name string

// nameBytes is the object form of a name that is not UTF-8.
type nameBytes struct {
	Base64 string `json:"base64"`
}

// MarshalJSON writes n as a string, or as its bytes when it is not UTF-8.
func (n Name) MarshalJSON() ([]byte, error) {
	if utf8.ValidString(string(n)) {
		return json.Marshal(string(n))
	}
	return json.Marshal(nameBytes{base64.StdEncoding.EncodeToString([]byte(n))})
}

// UnmarshalJSON reads either form of a name; null is "".
func (n *Name) UnmarshalJSON(b []byte) error {
	switch {
	case len(b) > 1 && b[0] == '"' && bytes.IndexByte(b[1:len(b)-1], '\\') < 0 && bytes.IndexByte(b[1:len(b)-1], '"') < 0:
		// The common case, a string with no escapes: its bytes as they
		// are (the decoder checked it is well formed).
		*n = Name(b[1 : len(b)-1])
		return nil
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*n = Name(s)
		return nil
	case len(b) > 0 && b[0] == '{':
		var o nameBytes
		if err := json.Unmarshal(b, &o); err != nil {
			return err
		}
		raw, err := base64.StdEncoding.DecodeString(o.Base64)
		if err != nil {
			return fmt.Errorf("a file name's base64: %w", err)
		}
		*n = Name(raw)
		return nil
	case string(b) == "null":
		*n = ""
		return nil
	}
	return fmt.Errorf("a file name must be a string or {\"base64\": ...}, not %.20s", b)
}

// Names is a list of file names as they go in JSON, each as a Name. A
// []string converts to it and back without a copy.
type Names []string

// MarshalJSON writes each name as Name does.
func (ns Names) MarshalJSON() ([]byte, error) {
	if ns == nil {
		return []byte("null"), nil
	}
	b := []byte{'['}
	for i, n := range ns {
		if i > 0 {
			b = append(b, ',')
		}
		m, err := Name(n).MarshalJSON()
		if err != nil {
			return nil, err
		}
		b = append(b, m...)
	}
	return append(b, ']'), nil
}

// UnmarshalJSON reads a list of names in either form. Every hook reads
// the call lines' lists (the changes journal's fold), so it decodes with
// segmentio/encoding/json, as the fold does (changes.Decode).
func (ns *Names) UnmarshalJSON(b []byte) error {
	var raw []Name
	if err := segjson.Unmarshal(b, &raw); err != nil {
		return err
	}
	if raw == nil {
		*ns = nil
		return nil
	}
	out := make([]string, len(raw))
	for i, n := range raw {
		out[i] = string(n)
	}
	*ns = out
	return nil
}
