package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// model is what Scan must do, written the obvious way: split the input at
// "\n"; the part after the last one is torn; each complete line is yielded
// when it is one JSON object no longer than limit, else counted as bad.
func model(data []byte, limit int) (good []string, bad []BadLine, end, torn int64) {
	end = int64(bytes.LastIndexByte(data, '\n') + 1)
	torn = int64(len(data)) - end
	off := int64(0)
	parts := bytes.Split(data[:end], []byte("\n"))
	for i, l := range parts[:len(parts)-1] { // the last part is the empty one after the last "\n"
		t := bytes.TrimLeft(l, " \t\r")
		if len(l) <= limit && json.Valid(l) && len(t) > 0 && t[0] == '{' {
			good = append(good, string(l))
		} else {
			bad = append(bad, BadLine{Line: i + 1, Offset: off})
		}
		off += int64(len(l) + 1)
	}
	return good, bad, end, torn
}

func checkScan(t *testing.T, data []byte, limit int) {
	t.Helper()
	good, bad, end, torn := model(data, limit)
	for _, wrap := range []string{"plain", "onebyte"} {
		var got []string
		fn := func(l []byte) error {
			if !json.Valid(l) {
				t.Fatalf("yielded invalid JSON %q", l)
			}
			got = append(got, string(l))
			return nil
		}
		var r io.Reader = bytes.NewReader(data)
		if wrap == "onebyte" {
			r = iotest.OneByteReader(r)
		}
		st, err := Scan(r, limit, fn)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(good) || st.Lines != len(good) {
			t.Fatalf("%s: yielded %d lines (Lines %d), want %d", wrap, len(got), st.Lines, len(good))
		}
		for i := range got {
			if got[i] != good[i] {
				t.Fatalf("%s: line %d = %q, want %q", wrap, i, got[i], good[i])
			}
		}
		if st.End != end || st.Torn != torn || len(st.Bad) != len(bad) {
			t.Fatalf("%s: Stats End %d Torn %d Bad %d, want %d %d %d", wrap, st.End, st.Torn, len(st.Bad), end, torn, len(bad))
		}
		for i := range bad {
			if st.Bad[i].Line != bad[i].Line || st.Bad[i].Offset != bad[i].Offset || st.Bad[i].Err == "" {
				t.Fatalf("%s: Bad[%d] = %+v, want %+v", wrap, i, st.Bad[i], bad[i])
			}
		}
	}
}

func TestScan(t *testing.T) {
	long := `{"s":"` + strings.Repeat("x", 300<<10) + `"}`
	cases := []struct {
		data  string
		limit int
	}{
		{"", 0},
		{"\n", 0},
		{`{"a":1}` + "\n" + `{"b":2}`, 0},
		{`{"a":1}` + "\n\n" + `not json` + "\n" + `{"b":[1,2]}` + "\n", 0},
		{long + "\n" + `{"a":1}` + "\n" + long, 0},    // lines longer than the read buffer
		{long + "\n" + `{"a":1}` + "\n" + long, 1000}, // ... and over the cap
		{`{"s":"123456789012"}` + "\n" + `{"s":"12345678901234567890"}` + "\n" + `{"a":1}` + "\n", 20},
		{" {\"a\":1}\r\n", 0},
	}
	for _, c := range cases {
		limit := c.limit
		if limit == 0 {
			limit = MaxLine
		}
		checkScan(t, []byte(c.data), limit)
	}
}

func TestScanStops(t *testing.T) {
	stop := errors.New("stop")
	n := 0
	st, err := Scan(strings.NewReader("{\"a\":1}\n{\"a\":2}\n{\"a\":3}\n"), 0, func([]byte) error {
		n++
		if n == 2 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 2 || st.Lines != 1 {
		t.Fatalf("err %v, calls %d, Lines %d", err, n, st.Lines)
	}
	boom := errors.New("boom")
	_, err = Scan(iotest.DataErrReader(iotest.ErrReader(boom)), 0, func([]byte) error { return nil })
	if !errors.Is(err, boom) {
		t.Fatalf("read error: %v", err)
	}
}

// FuzzScan: no panic; every yielded line is valid JSON and stands in the
// input followed by "\n"; the result equals the model's.
func FuzzScan(f *testing.F) {
	f.Add([]byte("{\"v\":1}\n{\"v\":1,\"kind\":\"repair\",\"at\":\"2026-11-29T09:12:03.120Z\",\"cut\":3}\n{\"v\""), uint8(0))
	f.Add([]byte("garbage\n\x00\x00\x00"), uint8(3))
	f.Add([]byte("{\"a\":\"0123456789012345678901234567890123456789\"}\n{}\n"), uint8(20))
	f.Add([]byte("\n\n\r\n[]\n\"s\"\n{\"a\":{\"b\":[null,true,1e3]}}\n"), uint8(255))
	f.Fuzz(func(t *testing.T, data []byte, small uint8) {
		limit := MaxLine
		if small > 0 {
			limit = int(small)
		}
		var pos int
		_, err := Scan(bytes.NewReader(data), limit, func(l []byte) error {
			if !json.Valid(l) {
				t.Fatalf("invalid JSON yielded: %q", l)
			}
			i := bytes.Index(data[pos:], append(append([]byte(nil), l...), '\n'))
			if i < 0 {
				t.Fatalf("line %q not in the input followed by a newline", l)
			}
			pos += i + len(l) + 1
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		checkScan(t, data, limit)
	})
}
