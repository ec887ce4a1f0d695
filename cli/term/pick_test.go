package term

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// Pick shows rows below the cursor and lets the user choose one; it
// returns its index into rows. It is PickListing over a listing of rows
// alone, with preview (nil: none), for the tests.
func Pick(ctx context.Context, keys *Keys, out io.Writer, rows []Row, preview func(Row) Preview) (int, error) {
	m, err := runPick(ctx, keys, out, Listing{Rows: rows, Preview: preview})
	if err != nil {
		return 0, err
	}
	if m.err != nil {
		return 0, m.err
	}
	return m.chosen, nil
}

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
		{ID: "d00d", Title: "dependency-audit"},
	}
	cases := []struct {
		q    string
		want []int // in any order
	}{
		{"", []int{0, 1, 2, 3}},
		{"PARSE", []int{0, 1}},
		{"c0de", []int{2}}, // id
		{"0A1", []int{0}},  // id prefix, any case
		{"A1B", []int{}},   // never the middle of an id
		{"zzz", []int{}},
		{"the p", []int{0}},   // spaces count
		{"dep aud", []int{3}}, // word starts
		{"dpndcy", []int{3}},  // fuzzy: the letters in order
	}
	for _, c := range cases {
		got := matchRows(rows, c.q)
		slices.Sort(got)
		if !slices.Equal(got, c.want) {
			t.Errorf("%q: %v, want %v", c.q, got, c.want)
		}
	}
	if got := matchRows(rows, ""); !slices.Equal(got, []int{0, 1, 2, 3}) {
		t.Errorf("no filter: %v, want the rows in order", got)
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
	// The filter selects its best match, the exact title, whatever was
	// selected before (and still matches).
	if i, _ := v.chosen(); i != 1 || v.sel != 0 || v.top != 0 || v.moved {
		t.Fatalf("selection after typing: row %d at %d, top %d, moved %v", i, v.sel, v.top, v.moved)
	}
	for _, i := range []int{1, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19} {
		if !slices.Contains(v.match, i) {
			t.Fatalf("match %v lacks %d", v.match, i)
		}
	}
	v.setFilter("task 3")
	if i, _ := v.chosen(); i != v.match[0] || v.top != 0 || slices.Contains(v.match, 12) {
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

// key is a key press as the terminal library decodes it.
func key(name string) tea.Msg {
	switch name {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "home":
		return tea.KeyPressMsg{Code: tea.KeyHome}
	case "end":
		return tea.KeyPressMsg{Code: tea.KeyEnd}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "ctrl+a", "ctrl+c", "ctrl+d", "ctrl+r", "ctrl+u", "ctrl+w":
		return tea.KeyPressMsg{Code: rune(name[5]), Mod: tea.ModCtrl}
	}
	return tea.PasteMsg{Content: name} // typed text
}

// runPicker feeds keys to the picker without a terminal.
func runPicker(rows []Row, lines int, keys ...string) (*pickModel, bool) {
	m := newPickModel(Listing{Rows: rows}, 80, lines)
	for _, k := range keys {
		m.Update(key(k))
		if m.done {
			return m, true
		}
	}
	return m, false
}

func TestPickerKeys(t *testing.T) {
	rows := manyRows(50)
	cases := []struct {
		keys []string
		want int
		err  error
	}{
		{[]string{"enter"}, 0, nil},
		{[]string{"down", "down", "up", "enter"}, 1, nil},
		{[]string{"pgdown", "enter"}, 6, nil}, // 10 lines: a page of 6
		{[]string{"end", "enter"}, 49, nil},
		{[]string{"end", "home", "enter"}, 0, nil},
		{[]string{"task 4", "2", "enter"}, 42, nil},
		{[]string{"task 42x", "backspace", "enter"}, 42, nil},
		{[]string{"zz", "enter", "ctrl+u", "down", "enter"}, 1, nil}, // Enter with no match does nothing
		{[]string{"task 4 ", "ctrl+w", "enter"}, 0, nil},             // Ctrl-W takes a word; the top match is selected
		{[]string{"down", "down", "task 4", "enter"}, 4, nil},        // typing selects the top match, not the row moved to
		{[]string{"down", "esc"}, 0, ErrCancelled},
		{[]string{"ctrl+c"}, 0, ErrInterrupted},
		{[]string{"ctrl+d"}, 0, ErrCancelled},
	}
	for _, c := range cases {
		m, done := runPicker(rows, 10, c.keys...)
		if !done || !errors.Is(m.err, c.err) || (m.err == nil && m.chosen != c.want) {
			t.Errorf("%q: %d, %v, done %v; want %d, %v", c.keys, m.chosen, m.err, done, c.want, c.err)
		}
		if v := m.View(); v.Content != "" {
			t.Errorf("%q: picture not wiped: %q", c.keys, v.Content)
		}
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
	if _, err := Pick(context.Background(), nil, io.Discard, nil, nil); !errors.Is(err, ErrNoRows) {
		t.Fatalf("pick no rows: %v", err)
	}
}

// The plain list has a line of column heads, and its columns line up in
// cells whatever the titles hold (CJK, an emoji family, a title cut).
func TestPickPlainColumns(t *testing.T) {
	rows := []Row{
		{ID: "id-1", Title: "plain title", Age: "3d", Branch: "main", Items: 4},
		{ID: "id-2", Title: "日本語のタイトル", Age: "5m", Items: 1},
		{ID: "id-3", Title: "a \U0001F468\u200D\U0001F469\u200D\U0001F467 family", Age: "2h", Branch: "dev", Items: 12},
		{ID: "id-4", Title: strings.Repeat("長い", 30), Age: "7w", Branch: "x", Items: 0},
	}
	var out bytes.Buffer
	if _, err := PickPlain(strings.NewReader("\n"), &out, rows); !errors.Is(err, ErrCancelled) {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	head := lines[0]
	for _, h := range []string{"TITLE", "AGE", "ITEMS", "BRANCH", "ID"} {
		if !strings.Contains(head, h) {
			t.Fatalf("no %s in the heads: %q", h, head)
		}
	}
	// at is the cell where sub starts in line.
	at := func(line, sub string) int {
		i := strings.Index(line, sub)
		if i < 0 {
			t.Fatalf("%q not in %q", sub, line)
		}
		return textWidth(line[:i])
	}
	title, age, id := at(head, "TITLE"), at(head, "AGE"), at(head, "ID")
	for n, r := range rows {
		l := lines[n+1]
		if at(l, strconv.Itoa(n+1)+". ")+3 != title || at(l, "  "+r.Age+" ")+2 != age || at(l, r.ID) != id {
			t.Errorf("row %d is out of its columns:\n%s\n%s", n+1, head, l)
		}
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

// frameRows are the picker's rows for the frame tests: an owned one, an
// untitled fork, CJK and emoji titles.
func frameRows() []Row {
	rows := manyRows(12)
	rows[1].Owner = 4242
	rows[2].Title = ""
	rows[2].ForkOf = rows[4].ID
	rows[3].Title = "日本語のタイトルです、長いタイトルをテストしますよ。とても長いタイトルをここに書きます"
	rows[3].ID = "9f1c2d3e-0000-4000-8000-000000000000"
	rows[5].Title = "emoji 👍🏽 family 👨‍👩‍👧 done"
	return rows
}

// cellOf is the cell at which sub starts in line (-1: not in it).
func cellOf(line, sub string) int {
	i := strings.Index(line, sub)
	if i < 0 {
		return -1
	}
	return ansi.StringWidthWc(line[:i])
}

// The picture has column headers; the columns line up whatever the title
// (wide characters, an owned row) and fit the window, the title first and
// the others left out from the right as it narrows; the preview goes below
// the list in a narrow window and beside it in a wide one.
func TestPickerFrame(t *testing.T) {
	rows := frameRows()
	prev := func(r Row) Preview { return Preview{Text: "of " + r.Title} }
	for _, c := range []struct {
		width      int
		heads      []string // the column headers shown, in order
		missing    []string // and those left out
		titleAtLst int      // the least cells the title column gets
	}{
		{30, []string{"TITLE", "AGE", "ITEMS"}, []string{"BRANCH", "ID"}, 12},
		{40, []string{"TITLE", "AGE", "ITEMS"}, []string{"BRANCH", "ID"}, 18},
		{80, []string{"TITLE", "AGE", "ITEMS", "BRANCH", "ID"}, nil, 40},
		{120, []string{"TITLE", "AGE", "ITEMS", "BRANCH", "ID"}, nil, 30},
	} {
		m := newPickModel(Listing{Rows: rows, Preview: prev}, c.width, 24)
		m.Update(previewMsg{rows[0].ID, Preview{Turns: []PreviewTurn{{Prompt: "fix the parser", Answer: "done"}}, Files: []string{"parser/read.go"}}})
		f := m.frame()
		for _, l := range f {
			if w := ansi.StringWidthWc(l); w > c.width-1 {
				t.Fatalf("%d columns: a line of %d cells: %q", c.width, w, l)
			}
		}
		if f[0] != "filter: " {
			t.Fatalf("%d: filter line %q", c.width, f[0])
		}
		head := f[1]
		last := -1
		for _, h := range c.heads {
			at := cellOf(head, h)
			if at <= last {
				t.Fatalf("%d: header %q lacks %s in order", c.width, head, h)
			}
			last = at
		}
		for _, h := range c.missing {
			if strings.Contains(head, " "+h) {
				t.Fatalf("%d: header %q has %s", c.width, head, h)
			}
		}
		if cellOf(head, "TITLE") != 2 || cellOf(head, "AGE")-2 < c.titleAtLst {
			t.Fatalf("%d: title column of %d cells: %q", c.width, cellOf(head, "AGE")-2, head)
		}
		// Every row has its age under AGE and its items right-aligned under ITEMS.
		age, items := cellOf(head, "AGE"), cellOf(head, "ITEMS")+len("ITEMS")
		page := f[2 : 2+12]
		for k, l := range page {
			l = ansi.Strip(l)
			if cellOf(l, "1h") != age {
				t.Fatalf("%d: row %d's age at %d, not under AGE at %d:\n%s\n%s", c.width, k, cellOf(l, "1h"), age, head, l)
			}
			n := strconv.Itoa(rows[m.v.match[k]].Items)
			if ansi.TruncateLeftWc(ansi.TruncateWc(l, items, ""), items-len(n)-1, "") != " "+n {
				t.Fatalf("%d: row %d's items not under ITEMS:\n%s\n%s", c.width, k, head, l)
			}
		}
		// The selected row is the first, marked and reversed; an owned
		// row says so; the untitled fork comes under its parent.
		if !strings.HasPrefix(page[0], "\x1b[7m> Task 0") {
			t.Fatalf("%d: selected row %q", c.width, page[0])
		}
		if !strings.Contains(page[1], "open") {
			t.Fatalf("%d: owned row %q", c.width, page[1])
		}
		if !strings.HasPrefix(page[2], "  Task 4") || !strings.HasPrefix(page[3], "  └ (untitled)") {
			t.Fatalf("%d: fork not under its parent: %q", c.width, page[2:4])
		}
		all := strings.Join(f, "\n")
		switch {
		case c.width >= besideWidth:
			if !strings.Contains(f[1], " │ PREVIEW") || !strings.Contains(f[2], " │ > fix the parser") || !strings.Contains(all, "│   parser/read.go") {
				t.Fatalf("%d: no preview beside the list:\n%s", c.width, all)
			}
		default:
			if !strings.Contains(all, "── preview") || !slices.Contains(f, "> fix the parser") || !slices.Contains(f, "  done") {
				t.Fatalf("%d: no preview below the list:\n%s", c.width, all)
			}
		}
		if len(f) > 23 {
			t.Fatalf("%d: %d lines in a window of 24", c.width, len(f))
		}
	}
	// Unknown size: a page of 20; a tiny one: a page of 1.
	if m := newPickModel(Listing{Rows: manyRows(50)}, 0, 0); m.v.height != defaultPageHeight {
		t.Fatalf("height %d", m.v.height)
	}
	if m := newPickModel(Listing{Rows: manyRows(50)}, 0, 2); m.v.height != 1 {
		t.Fatalf("tiny screen height %d", m.v.height)
	}
	// The footer counts the matches when filtered.
	m := newPickModel(Listing{Rows: rows}, 80, 24)
	m.Update(key("task 1"))
	if f := m.frame(); !strings.Contains(f[len(f)-1], "(12 in all)") || f[0] != "filter: task 1" {
		t.Fatalf("filtered frame %q", f)
	}
}

// uuidRows are rows titled titles[i], with ids shaped as cairn makes them
// (36 characters of hex digits and hyphens): ids that hold the digits a
// filter names somewhere in the middle.
func uuidRows(titles ...string) []Row {
	rows := make([]Row, len(titles))
	for i, t := range titles {
		rows[i] = Row{ID: fmt.Sprintf("%08x-29cc-4%03d-8029-%012x", 0xf4d94532+i*7919, i%1000, 0x295b00000000+i), Title: t}
	}
	return rows
}

// The filter ranks exact titles first, then titles it starts, then titles
// holding its words, then fuzzy matches; an id counts only by its prefix.
func TestMatchRowsRanking(t *testing.T) {
	titles := make([]string, 300)
	for i := range titles {
		titles[i] = fmt.Sprintf("title %d", 300-i) // newest first: title 300 … title 1
	}
	rows := uuidRows(titles...)
	title := func(m []int, n int) []string {
		var out []string
		for _, i := range m[:min(n, len(m))] {
			out = append(out, rows[i].Title)
		}
		return out
	}
	m := matchRows(rows, "title 29")
	if got := title(m, 11); !slices.Equal(got, []string{"title 29",
		"title 299", "title 298", "title 297", "title 296", "title 295", "title 294", "title 293", "title 292", "title 291", "title 290"}) {
		t.Fatalf("title 29: %q", got)
	}
	if slices.ContainsFunc(m, func(i int) bool { return rows[i].Title == "title 7" }) {
		t.Fatal(`"title 7" matched "title 29" (through its id)`)
	}
	m = matchRows(rows, "title 1")
	if got := title(m, 1); got[0] != "title 1" {
		t.Fatalf("title 1 first: %q", got)
	}
	// Then every title that starts with it, before any other.
	for k, i := range m[1:111] {
		if !strings.HasPrefix(rows[i].Title, "title 1") {
			t.Fatalf("rank %d: %q before the titles starting with the filter", k+2, rows[i].Title)
		}
	}
	// Repeated and leading spaces and case do not matter.
	if got := title(matchRows(rows, "  TITLE   42 "), 1); got[0] != "title 42" {
		t.Fatalf("spaces: %q", got)
	}
	// An id by its prefix: first 8 characters, or the whole id.
	if m := matchRows(rows, rows[17].ID[:8]); len(m) != 1 || m[0] != 17 {
		t.Fatalf("id prefix: %v", m)
	}
	if m := matchRows(rows, strings.ToUpper(rows[17].ID)); len(m) != 1 || m[0] != 17 {
		t.Fatalf("whole id: %v", m)
	}
	if m := matchRows(rows, "29cc"); len(m) != 0 {
		t.Fatalf("the middle of ids matched: %d rows", len(m))
	}

	// Words: whole words before word starts before fuzzy.
	rows = uuidRows("deploy auditor", "ship the deploy audit", "dependency-audit", "deploy audit", "d e p l o y  a u d i t x")
	if got := matchRows(rows, "deploy audit"); !slices.Equal(got, []int{3, 0, 1, 4}) {
		t.Fatalf("deploy audit: %v", got)
	}
	if got := matchRows(rows, "dep aud"); !slices.Equal(got[:4], []int{0, 1, 2, 3}) {
		t.Fatalf("dep aud: %v", got)
	}
	// Titles in other scripts: what the title holds.
	rows = uuidRows("日本語のタイトル", "タイトル", "絵文字 👍🏽 ok")
	if got := matchRows(rows, "タイトル"); !slices.Equal(got, []int{1, 0}) {
		t.Fatalf("CJK: %v", got)
	}
	if got := matchRows(rows, "👍🏽"); !slices.Equal(got, []int{2}) {
		t.Fatalf("emoji: %v", got)
	}
}

// The picker's first screen, typed into: "deploy" selects "deploy script",
// the top match, though the newest row (selected until then) matches
// "deploy" fuzzily, and Enter takes it.
func TestPickerTypedFilterSelectsTopMatch(t *testing.T) {
	rows := uuidRows("draft: explain policy log", "docs: explain the picker", "deploy script")
	if m := matchRows(rows, "deploy"); !slices.Contains(m, 0) {
		t.Fatalf("the newest row should still match loosely: %v", m)
	}
	m, done := runPicker(rows, 10, "deploy", "enter")
	if !done || m.err != nil || m.chosen != 2 {
		t.Fatalf("chose %d, %v, done %v; want deploy script", m.chosen, m.err, done)
	}
	// After moving down and typing more: the top match again.
	m, done = runPicker(uuidRows(titlesN("title", 300)...), 10, "down", "down", "title 2", "9", "enter")
	if !done || m.err != nil || m.v.rows[m.chosen].Title != "title 29" {
		t.Fatalf("chose %q, %v", m.v.rows[m.chosen].Title, m.err)
	}
}

// titlesN is "prefix N", newest first, for N from n down to 1.
func titlesN(prefix string, n int) []string {
	t := make([]string, n)
	for i := range t {
		t[i] = fmt.Sprintf("%s %d", prefix, n-i)
	}
	return t
}
