package hookcmd

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"testing/iotest"
)

var hookReadCases = []string{
	// Backslashes at every place of a 64 KiB read: an escaped backslash
	// before a closing quote must not escape it.
	`{"tool_response":"` + strings.Repeat(`\\`, 40000) + `","session_id":"s"}`,
	`{"tool_response":"` + strings.Repeat(`a`, 65535) + `\\","session_id":"s"}`,
	`{"tool_response":"` + strings.Repeat(`a`, 65534) + `\\","session_id":"s"}`,
	`{"tool_response":"` + strings.Repeat(`a`, 65535) + `\"","session_id":"s"}`,
	`{"session_id":"s","tool_input":{"file_path":"/a","content":"x\"y\\"},"tool_response":{"originalFile":"` + strings.Repeat(`ab\"\\c`, 40000) + `"},"n":-1.5e3,"t":true,"f":false,"z":null,"l":[1,[2,{"a":"]"}]]}`,
	` { "cwd" : "/w" , "prompt":"\u00e9\\" } `,
	`{}`,
	`{"tool_input":[],"prompt":""}`,
}

func TestReadHookEventKeepsWhatItWants(t *testing.T) {
	want := map[string]bool{"session_id": true, "tool_input": true, "cwd": true, "prompt": true}
	for _, in := range hookReadCases {
		// One byte a read too: escapes and strings cut at every boundary.
		for _, slow := range []bool{false, true} {
			{
				got, err := readHookEvent(iotestReader(strings.NewReader(in), slow), want)
				if err != nil {
					t.Fatalf("%.60q: %v", in, err)
				}
				var all map[string]json.RawMessage
				if err := json.Unmarshal([]byte(in), &all); err != nil {
					t.Fatal(err)
				}
				for k := range want {
					if !bytes.Equal(compact(all[k]), compact(got[k])) {
						t.Errorf("%.60q: %s = %.80s, want %.80s", in, k, got[k], all[k])
					}
				}
				for k := range got {
					if !want[k] {
						t.Errorf("kept %s, not asked for", k)
					}
				}
			}
		}
	}
	for _, bad := range []string{``, `not json`, `[1]`, `{"a":1`, `{"a":"x}`, `{"a":[1}`, `{"a":tru}`, `{"a":1}{}`, `{"a" 1}`, `{"a":1,}`, `{,}`, `{"a":{"b":]}}`} {
		if _, err := readHookEvent(strings.NewReader(bad), want); err == nil {
			t.Errorf("%q read without an error", bad)
		}
	}
}

func iotestReader(r *strings.Reader, slow bool) interface{ Read([]byte) (int, error) } {
	if slow {
		return iotest.OneByteReader(r)
	}
	return r
}

func compact(b []byte) []byte {
	if b == nil {
		return nil
	}
	var out bytes.Buffer
	json.Compact(&out, b)
	return out.Bytes()
}

// FuzzReadHookEvent: no input makes the reader panic, and a valid JSON
// object reads as encoding/json reads it.
func FuzzReadHookEvent(f *testing.F) {
	for _, c := range hookReadCases {
		f.Add([]byte(c))
	}
	f.Add([]byte(`{"a":"\\\"","b":[{}]}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		want := map[string]bool{"a": true, "session_id": true, "tool_input": true}
		got, err := readHookEvent(bytes.NewReader(in), want)
		var all map[string]json.RawMessage
		if json.Unmarshal(in, &all) != nil || bytes.HasPrefix(bytes.TrimSpace(in), []byte("null")) {
			return
		}
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		for k := range want {
			if !bytes.Equal(compact(all[k]), compact(got[k])) {
				t.Fatalf("%q: %s = %s, want %s", in, k, got[k], all[k])
			}
		}
	})
}
