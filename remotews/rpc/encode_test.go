package rpc

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// encode writes each kind of message as one line that decodes to what
// jsonrpc.EncodeMessage's line decodes to: a call, a notification, an
// answer with a result or an error, and params holding a newline (which
// would break the line: encoded by jsonrpc.EncodeMessage instead).
func TestEncodeLine(t *testing.T) {
	id, _ := jsonrpc.MakeID(float64(7))
	params, _ := json.Marshal(map[string]any{"path": "a \"b\".txt", "content": []byte("bytes\n\x00")})
	for _, m := range []jsonrpc.Message{
		&jsonrpc.Request{ID: id, Method: "tool.write", Params: params},
		&jsonrpc.Request{Method: "exec.output", Params: params},
		&jsonrpc.Request{ID: id, Method: "session.close"},
		&jsonrpc.Response{ID: id, Result: params},
		&jsonrpc.Response{ID: id, Error: &Error{Code: 3, Message: "refused"}},
		&jsonrpc.Request{ID: id, Method: "hello", Params: json.RawMessage("{\n\"a\": 1}")},
	} {
		b, err := encode(m)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Count(b, []byte("\n")) != 1 || b[len(b)-1] != '\n' {
			t.Fatalf("%T: not one line: %q", m, b)
		}
		want, err := jsonrpc.EncodeMessage(m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := jsonrpc.DecodeMessage(b[:len(b)-1])
		if err != nil {
			t.Fatalf("%q: %v", b, err)
		}
		w, _ := jsonrpc.DecodeMessage(want)
		if !reflect.DeepEqual(normal(t, got), normal(t, w)) {
			t.Fatalf("%q decodes to %+v, want %+v", b, got, w)
		}
	}
}

// normal is m with its params or result compacted, for comparing.
func normal(t *testing.T, m jsonrpc.Message) jsonrpc.Message {
	compact := func(raw json.RawMessage) json.RawMessage {
		if raw == nil {
			return nil
		}
		var b bytes.Buffer
		if err := json.Compact(&b, raw); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	switch m := m.(type) {
	case *jsonrpc.Request:
		c := *m
		c.Params = compact(m.Params)
		return &c
	case *jsonrpc.Response:
		c := *m
		c.Result = compact(m.Result)
		return &c
	}
	return m
}
