package term

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
)

func manyRows(n int) []Row {
	rows := make([]Row, n)
	for i := range rows {
		rows[i] = Row{ID: fmt.Sprintf("id-%03d", i), Title: fmt.Sprintf("Task %d", i), Age: "1h", Branch: "main", Items: i}
	}
	return rows
}

func TestMatchRows(t *testing.T) {
	rows := []Row{
		{ID: "0a1b", Title: "Fix the Parser"},
		{ID: "ffee", Title: "parse flags"},
		{ID: "c0de", Title: "docs"},
	}
	cases := []struct {
		q    string
		want []int
	}{
		{"", []int{0, 1, 2}},
		{"PARSE", []int{0, 1}},
		{"c0", []int{2}},  // id
		{"A1B", []int{0}}, // id, any case
		{"zzz", []int{}},
		{"the p", []int{0}}, // spaces count
	}
	for _, c := range cases {
		if got := matchRows(rows, c.q); !slices.Equal(got, c.want) {
			t.Errorf("%q: %v, want %v", c.q, got, c.want)
		}
	}
}

// Every row is reachable by moving down, and by paging, however many.
func TestPickViewReachesEveryRow(t *testing.T) {
	rows := manyRows(103)
	v := newPickView(rows, 10)
	seen := map[int]bool{}
	for range len(rows) + 5 {
		for _, i := range v.window() {
			seen[i] = true
		}
		i, _ := v.chosen()
		if w := v.window(); !slices.Contains(w, i) {
			t.Fatalf("selection %d off the page %v", i, w)
		}
		v.move(1)
	}
	if len(seen) != len(rows) {
		t.Fatalf("saw %d rows of %d", len(seen), len(rows))
	}
	if i, _ := v.chosen(); i != 102 {
		t.Fatalf("stopped at %d, want the last", i)
	}

	v = newPickView(rows, 10)
	seen = map[int]bool{}
	for range 20 {
		for _, i := range v.window() {
			seen[i] = true
		}
		v.page(1)
	}
	if len(seen) != len(rows) {
		t.Fatalf("paging saw %d rows of %d", len(seen), len(rows))
	}
	if i, _ := v.chosen(); i != 102 {
		t.Fatalf("paging stopped at %d", i)
	}
	if w := v.window(); len(w) != 10 || w[9] != 102 {
		t.Fatalf("last page %v", w)
	}
}

func TestPickViewPaging(t *testing.T) {
	v := newPickView(manyRows(25), 10)
	v.page(1)
	if i, _ := v.chosen(); i != 10 || v.top != 10 {
		t.Fatalf("after PgDn: sel %d top %d", i, v.top)
	}
	v.move(3)
	v.page(1) // the last page is full: top 15, selection 23
	if i, _ := v.chosen(); i != 23 || v.top != 15 {
		t.Fatalf("after 2nd PgDn: sel %d top %d", i, v.top)
	}
	v.page(1)
	if i, _ := v.chosen(); i != 24 {
		t.Fatalf("PgDn at the end: sel %d", i)
	}
	v.page(-1)
	if i, _ := v.chosen(); i != 14 || v.top != 5 {
		t.Fatalf("after PgUp: sel %d top %d", i, v.top)
	}
	v.page(-5)
	if i, _ := v.chosen(); i != 0 || v.top != 0 {
		t.Fatalf("PgUp at the start: sel %d top %d", i, v.top)
	}
	v.move(-1)
	if i, _ := v.chosen(); i != 0 {
		t.Fatalf("Up at the top: %d", i)
	}
}

func TestPickViewFilter(t *testing.T) {
	v := newPickView(manyRows(30), 5)
	v.move(12) // "Task 12"
	v.setFilter("task 1")
	if i, _ := v.chosen(); i != 12 {
		t.Fatalf("selection not kept: %d", i)
	}
	if !slices.Equal(v.match, []int{1, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19}) {
		t.Fatalf("match %v", v.match)
	}
	v.setFilter("task 2")
	if i, _ := v.chosen(); i != 2 || v.top != 0 {
		t.Fatalf("selection after it stopped matching: %d top %d", i, v.top)
	}
	v.setFilter("nothing")
	if _, ok := v.chosen(); ok || len(v.window()) != 0 {
		t.Fatal("a choice with nothing matching")
	}
	v.move(1)
	v.page(1)
	if _, ok := v.chosen(); ok {
		t.Fatal("a choice with nothing matching after moving")
	}
	v.setFilter("")
	if i, ok := v.chosen(); !ok || i != 0 {
		t.Fatalf("cleared filter: %d %v", i, ok)
	}
}

// runPicker runs the picker on keys without a terminal.
func runPicker(rows []Row, lines int, keys ...string) (int, string, error) {
	var c [][]byte
	for _, k := range keys {
		c = append(c, []byte(k))
	}
	out := &bytes.Buffer{}
	i, err := newPicker(out, rows, 80, lines).run(newDecoder(&chunks{c: c}))
	return i, out.String(), err
}

func TestPickerKeys(t *testing.T) {
	rows := manyRows(50)
	cases := []struct {
		keys []string
		want int
		err  error
	}{
		{[]string{"\r"}, 0, nil},
		{[]string{"\x1b[B\x1b[B\x1b[A\r"}, 1, nil},
		{[]string{"\x1b[6~\r"}, 7, nil}, // 10 lines: a page of 7
		{[]string{"\x1b[F\r"}, 49, nil},
		{[]string{"\x1b[F\x1b[H\r"}, 0, nil},
		{[]string{"task 4", "2\r"}, 42, nil},
		{[]string{"task 4x", "\x7f", "\x1b[B\r"}, 4 * 10, nil}, // "task 4": 4, 40, 41...
		{[]string{"zz", "\r", "\x15\x1b[B\r"}, 1, nil},         // Enter with no match does nothing
		{[]string{"task 4 ", "\x17", "\r"}, 0, nil},            // Ctrl-W clears the words
		{[]string{"\x1b[B", "\x1b"}, 0, ErrCancelled},
		{[]string{"\x03"}, 0, ErrCancelled},
		{[]string{"ab"}, 0, io.EOF},
	}
	for _, c := range cases {
		i, out, err := runPicker(rows, 10, c.keys...)
		if !errors.Is(err, c.err) || (err == nil && i != c.want) {
			t.Errorf("%q: %d, %v; want %d, %v", c.keys, i, err, c.want, c.err)
		}
		if !strings.HasSuffix(out, "\r\x1b[J") {
			t.Errorf("%q: picture not wiped: %q", c.keys, out[max(0, len(out)-20):])
		}
	}
}

func TestPickerFrame(t *testing.T) {
	rows := manyRows(12)
	rows[1].Owner = 4242
	rows[2].Title = ""
	p := newPicker(io.Discard, rows, 0, 8) // a page of 5
	p.v.move(1)
	f := p.frame()
	if len(f) != 7 {
		t.Fatalf("%d lines: %q", len(f), f)
	}
	if f[0] != "filter: " {
		t.Fatalf("filter line %q", f[0])
	}
	if !strings.HasPrefix(f[2], "\x1b[7m> Task 1 ") || !strings.Contains(f[2], "[open in pid 4242]") {
		t.Fatalf("selected owned row %q", f[2])
	}
	if !strings.HasPrefix(f[1], "  Task 0 ") || strings.Contains(f[1], "open in") {
		t.Fatalf("plain row %q", f[1])
	}
	if !strings.Contains(f[3], "(untitled)") {
		t.Fatalf("untitled row %q", f[3])
	}
	if !strings.HasPrefix(f[6], "2 of 12 ") {
		t.Fatalf("footer %q", f[6])
	}
	p.v.setFilter("task 1")
	if f := p.frame(); !strings.HasPrefix(f[len(f)-1], "1 of 3 (12 in all)") || f[0] != "filter: task 1" {
		t.Fatalf("filtered frame %q", f)
	}
	// A narrow screen cuts every line short of the last column.
	p = newPicker(io.Discard, rows, 30, 8)
	for _, l := range p.frame() {
		l = strings.TrimSuffix(strings.TrimPrefix(l, "\x1b[7m"), "\x1b[0m")
		if n := len([]rune(l)); n > 29 {
			t.Fatalf("line of %d runes on 30 columns: %q", n, l)
		}
	}
	// Unknown size: a page of 20.
	if p := newPicker(io.Discard, manyRows(50), 0, 0); p.v.height != defaultPageHeight {
		t.Fatalf("height %d", p.v.height)
	}
	if p := newPicker(io.Discard, manyRows(50), 0, 2); p.v.height != 1 {
		t.Fatalf("tiny screen height %d", p.v.height)
	}
}

func TestPickPlain(t *testing.T) {
	rows := manyRows(12)
	rows[3].Owner = 77
	var out bytes.Buffer
	i, err := PickPlain(strings.NewReader("11\nrest"), &out, rows)
	if err != nil || i != 10 {
		t.Fatalf("got %d, %v", i, err)
	}
	s := out.String()
	for n, r := range rows {
		if !strings.Contains(s, fmt.Sprintf("%2d. %s", n+1, r.Title)) {
			t.Fatalf("row %d missing in %q", n+1, s)
		}
	}
	if !strings.Contains(s, "[open in pid 77]") {
		t.Fatalf("owner mark missing: %q", s)
	}

	for _, in := range []string{"", "\n", "q\n", " Q \n", "   "} {
		if _, err := PickPlain(strings.NewReader(in), io.Discard, rows); !errors.Is(err, ErrCancelled) {
			t.Errorf("%q: %v, want ErrCancelled", in, err)
		}
	}
	for _, in := range []string{"0\n", "13\n", "two\n", "-1\n"} {
		_, err := PickPlain(strings.NewReader(in), io.Discard, rows)
		if !errors.Is(err, ErrBadChoice) || !strings.Contains(err.Error(), strings.TrimSpace(in)) {
			t.Errorf("%q: %v, want ErrBadChoice naming it", in, err)
		}
	}
	if i, err := PickPlain(strings.NewReader(" 3 \r\n"), io.Discard, rows); err != nil || i != 2 {
		t.Fatalf("spaces and CR: %d, %v", i, err)
	}
	if i, err := PickPlain(strings.NewReader("1"), io.Discard, rows); err != nil || i != 0 {
		t.Fatalf("no newline: %d, %v", i, err)
	}
	if _, err := PickPlain(strings.NewReader("1\n"), io.Discard, nil); !errors.Is(err, ErrNoRows) {
		t.Fatalf("no rows: %v", err)
	}
	if _, err := Pick(nil, io.Discard, nil); !errors.Is(err, ErrNoRows) {
		t.Fatalf("pick no rows: %v", err)
	}
}

// PickPlain reads no further than the answer's line.
func TestPickPlainLeavesTheRest(t *testing.T) {
	r := strings.NewReader("2\nnext line\n")
	if _, err := PickPlain(r, io.Discard, manyRows(3)); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(r)
	if string(rest) != "next line\n" {
		t.Fatalf("rest %q", rest)
	}
}
