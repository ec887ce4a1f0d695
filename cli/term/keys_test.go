package term

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"testing"
)

// chunks is a reader that returns one chunk per Read, like a terminal
// returning what has arrived.
type chunks struct{ c [][]byte }

func (r *chunks) Read(p []byte) (int, error) {
	if len(r.c) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.c[0])
	r.c[0] = r.c[0][n:]
	if len(r.c[0]) == 0 {
		r.c = r.c[1:]
	}
	return n, nil
}

func readAll(t *testing.T, r io.Reader) []event {
	t.Helper()
	d := newDecoder(r)
	var evs []event
	for range 10000 {
		ev, err := d.next()
		if errors.Is(err, io.EOF) {
			return evs
		}
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	t.Fatal("decoder does not stop")
	return nil
}

func keysOf(evs []event) []Key {
	var k []Key
	for _, e := range evs {
		k = append(k, e.key)
	}
	return k
}

func TestDecodeSequences(t *testing.T) {
	cases := []struct {
		in   string
		want []Key
	}{
		{"\x1b[A\x1b[B\x1b[C\x1b[D", []Key{KeyUp, KeyDown, KeyRight, KeyLeft}},
		{"\x1bOA\x1bOB\x1bOC\x1bOD\x1bOH\x1bOF", []Key{KeyUp, KeyDown, KeyRight, KeyLeft, KeyHome, KeyEnd}},
		{"\x1b[H\x1b[F\x1b[1~\x1b[7~\x1b[4~\x1b[8~", []Key{KeyHome, KeyEnd, KeyHome, KeyHome, KeyEnd, KeyEnd}},
		{"\x1b[3~\x1b[5~\x1b[6~\x1b[20~", []Key{KeyDelete, KeyPgUp, KeyPgDn, KeyF9}},
		{"\x1b[1;5C\x1b[20;2~", []Key{KeyRight, KeyF9}}, // modifiers are ignored
		{"\x1bz\x1br\x1bZ\x1bR", []Key{KeyAltZ, KeyAltR, KeyAltZ, KeyAltR}},
		{"\x01\x05\x02\x06\x10\x0e", []Key{KeyHome, KeyEnd, KeyLeft, KeyRight, KeyUp, KeyDown}},
		{"\x03\x04\x0b\x15\x17\x7f\x08", []Key{KeyCtrlC, KeyCtrlD, KeyCtrlK, KeyCtrlU, KeyCtrlW, KeyBackspace, KeyBackspace}},
		{"\r\n\r\n", []Key{KeyEnter, KeyEnter}}, // CR LF counts once
		{"\r\r", []Key{KeyEnter, KeyEnter}},
		{"\x1b[2~\x1b[99~\x1bOP\x1bq\x1b[Z", []Key{KeyUnknown, KeyUnknown, KeyUnknown, KeyUnknown, KeyUnknown}},
		{"\x1b\x1b", []Key{KeyEsc, KeyEsc}},
		{"\x1b", []Key{KeyEsc}},
		{"\x1b[\x01", []Key{KeyUnknown, KeyHome}}, // a broken sequence, then Ctrl-A
		{"\xff", []Key{KeyUnknown}},
		{"\x1b[", []Key{KeyUnknown}}, // cut short by the end of input
		{"\x1bO", []Key{KeyUnknown}},
		{"\x1béa", []Key{KeyUnknown, KeyRune}}, // Alt with a non-ASCII key
		{"\x1b\xc3", []Key{KeyUnknown}},
	}
	for _, c := range cases {
		got := keysOf(readAll(t, bytes.NewReader([]byte(c.in))))
		if !slices.Equal(got, c.want) {
			t.Errorf("%q: got %v, want %v", c.in, got, c.want)
		}
	}
}

func TestDecodeRunes(t *testing.T) {
	evs := readAll(t, bytes.NewReader([]byte("aé→😀 ~")))
	var rs []rune
	for _, e := range evs {
		if e.key != KeyRune {
			t.Fatalf("key %v in %v", e.key, evs)
		}
		rs = append(rs, e.r)
	}
	if string(rs) != "aé→😀 ~" {
		t.Fatalf("runes %q", string(rs))
	}
}

// A sequence or a character cut by the end of a read waits for the next
// read; an ESC that ends a read is the Esc key.
func TestDecodeAcrossReads(t *testing.T) {
	euro := []byte("€")
	r := &chunks{c: [][]byte{
		[]byte("\x1b["), []byte("A"), // a CSI cut after ESC [
		euro[:1], euro[1:], // a character cut in two
		[]byte("\x1bO"), []byte("B"),
		[]byte("\x1b[2"), []byte("0~"),
		[]byte("\x1b"), // Esc
		[]byte("x"),
	}}
	evs := readAll(t, r)
	want := []event{{key: KeyUp}, {key: KeyRune, r: '€'}, {key: KeyDown}, {key: KeyF9}, {key: KeyEsc}, {key: KeyRune, r: 'x'}}
	if !slices.Equal(evs, want) {
		t.Fatalf("got %v, want %v", evs, want)
	}
}

func TestDecodeReadError(t *testing.T) {
	boom := errors.New("boom")
	d := newDecoder(io.MultiReader(bytes.NewReader([]byte("a")), errReader{boom}))
	if ev, err := d.next(); err != nil || ev != (event{key: KeyRune, r: 'a'}) {
		t.Fatalf("first: %v, %v", ev, err)
	}
	if _, err := d.next(); !errors.Is(err, boom) {
		t.Fatalf("err %v, want boom", err)
	}
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

func TestKeyString(t *testing.T) {
	if KeyAltZ.String() != "Alt+Z" || KeyF9.String() != "F9" || Key(-1).String() != "Key(?)" {
		t.Fatal(KeyAltZ.String(), KeyF9.String(), Key(-1).String())
	}
}

// FuzzDecoder: any input decodes to a bounded number of keys without
// panicking; every key takes at least one byte.
func FuzzDecoder(f *testing.F) {
	for _, s := range []string{"hello\r", "\x1b[A\x1b[B", "\x1b[20~", "\x1bOA", "\x1bz", "\x1b", "é\x1b[", "\x1b[1;5C", "\xe2\x82"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d := newDecoder(bytes.NewReader(b))
		for n := 0; ; n++ {
			if n > len(b) {
				t.Fatalf("%d keys from %d bytes", n, len(b))
			}
			ev, err := d.next()
			if err != nil {
				if err != io.EOF {
					t.Fatal(err)
				}
				return
			}
			if ev.key == KeyRune && ev.r < 0x20 {
				t.Fatalf("control rune %q as KeyRune", ev.r)
			}
		}
	})
}
