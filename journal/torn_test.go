package journal

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"cairn/internal/vfs"
)

// journalOf returns the lines of a small journal and its bytes.
func journalOf(t testing.TB) ([]string, []byte) {
	var lines []string
	for i, s := range []string{"first", "second, with \"quotes\"", "third ünïcödé"} {
		lines = append(lines, marshal(t, newItem(i, s)))
	}
	return lines, []byte(strings.Join(lines, "\n") + "\n")
}

// TestTornTailEveryByte truncates a journal at every byte offset of its last
// line: readers get all complete lines, OpenWriter cuts the rest and records
// the cut, and the next append reads back.
func TestTornTailEveryByte(t *testing.T) {
	filesystems(t, func(t *testing.T, fsys vfs.FS) {
		lines, data := journalOf(t)
		last := int64(len(data) - len(lines[2]) - 1) // start of the last line
		for k := last; k <= int64(len(data)); k++ {
			name := fmt.Sprintf("j%d.jsonl", k)
			putFile(t, fsys, name, data[:k])
			complete := lines[:2]
			end, torn := last, k-last
			if k == int64(len(data)) {
				complete, end, torn = lines, k, 0
			}

			got, st := readAll(t, fsys, name)
			equalLines(t, got, complete)
			if st.Torn != torn || st.End != end || len(st.Bad) != 0 {
				t.Fatalf("k=%d: Stats %+v, want Torn %d End %d", k, st, torn, end)
			}

			w, rep, err := OpenWriter(fsys, name, Options{Now: fixedNow})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Cut != torn {
				t.Fatalf("k=%d: Repair.Cut = %d, want %d", k, rep.Cut, torn)
			}
			want := append([]string(nil), complete...)
			if torn > 0 {
				want = append(want, repairText(torn))
			}
			next := newItem(3, "after the repair")
			if err := w.Append(next); err != nil {
				t.Fatal(err)
			}
			want = append(want, marshal(t, next))
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			got, st = readAll(t, fsys, name)
			equalLines(t, got, want)
			if st.Torn != 0 || len(st.Bad) != 0 {
				t.Fatalf("k=%d: after repair: %+v", k, st)
			}
			if b := fileBytes(t, fsys, name); !bytes.Equal(b, []byte(strings.Join(want, "\n")+"\n")) {
				t.Fatalf("k=%d: file holds %q", k, b)
			}
		}
	})
}

// TestZerosAndGarbage appends zeros and garbage after the last line: without
// a newline they are a torn tail; with one, a bad line that is counted, kept,
// and not fatal.
func TestZerosAndGarbage(t *testing.T) {
	lines, data := journalOf(t)
	n := int64(len(data))
	cases := []struct {
		name   string
		tail   string
		bad    []BadLine
		torn   int64
		kept   string // what stays after OpenWriter, before the repair line
		repair bool
	}{
		{name: "zeros", tail: "\x00\x00\x00", torn: 3, kept: ""},
		{name: "garbage", tail: "garbage", torn: 7, kept: ""},
		{name: "garbage line", tail: "garbage\n", kept: "garbage\n",
			bad: []BadLine{{Line: 4, Offset: n}}},
		{name: "zero line then zeros", tail: "\x00\x00\n\x00\x00", torn: 2, kept: "\x00\x00\n",
			bad: []BadLine{{Line: 4, Offset: n}}},
		{name: "number, array, empty", tail: "42\n[1]\n\n{\"v\":1}\n",
			kept: "42\n[1]\n\n{\"v\":1}\n",
			bad:  []BadLine{{Line: 4, Offset: n}, {Line: 5, Offset: n + 3}, {Line: 6, Offset: n + 7}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fsys := vfs.NewMem()
			putFile(t, fsys, "j.jsonl", append(append([]byte(nil), data...), c.tail...))
			want := lines
			if strings.HasSuffix(c.kept, "{\"v\":1}\n") {
				want = append(append([]string(nil), lines...), `{"v":1}`)
			}
			got, st := readAll(t, fsys, "j.jsonl")
			equalLines(t, got, want)
			if st.Torn != c.torn || len(st.Bad) != len(c.bad) {
				t.Fatalf("Stats %+v", st)
			}
			for i, b := range c.bad {
				if st.Bad[i].Line != b.Line || st.Bad[i].Offset != b.Offset || st.Bad[i].Err == "" {
					t.Fatalf("Bad[%d] = %+v, want line %d offset %d", i, st.Bad[i], b.Line, b.Offset)
				}
			}
			w, rep, err := OpenWriter(fsys, "j.jsonl", Options{Now: fixedNow})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Cut != c.torn {
				t.Fatalf("Cut = %d, want %d", rep.Cut, c.torn)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			wantFile := string(data) + c.kept
			if c.torn > 0 {
				wantFile += repairText(c.torn) + "\n"
			}
			if b := fileBytes(t, fsys, "j.jsonl"); string(b) != wantFile {
				t.Fatalf("file holds %q\nwant %q", b, wantFile)
			}
		})
	}
}

// TestTornTailLong cuts a torn tail longer than one block of the backwards
// search, and one that is the whole file.
func TestTornTailLong(t *testing.T) {
	_, data := journalOf(t)
	for _, tc := range []struct {
		prefix []byte
		tail   int
	}{{data, 200 << 10}, {nil, 100 << 10}, {nil, 1}} {
		fsys := vfs.NewMem()
		putFile(t, fsys, "j.jsonl", append(append([]byte(nil), tc.prefix...), bytes.Repeat([]byte("x"), tc.tail)...))
		w, rep, err := OpenWriter(fsys, "j.jsonl", Options{Now: fixedNow})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Cut != int64(tc.tail) {
			t.Fatalf("Cut = %d, want %d", rep.Cut, tc.tail)
		}
		w.Close()
		want := string(tc.prefix) + repairText(int64(tc.tail)) + "\n"
		if b := fileBytes(t, fsys, "j.jsonl"); string(b) != want {
			t.Fatalf("file holds %.200q", b)
		}
	}
}
