package term

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// Cutting and wrapping go by whole grapheme clusters, measured as the
// renderer measures them, and never pass the width asked for.
func TestCellsCutAndWrap(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"abcdef", 4, "abc…"},
		{"abc", 3, "abc"},
		{"日本語テキスト", 7, "日本語…"},                    // 2 cells each
		{"ok 👍🏽 yes", 6, "ok …"},                  // the emoji with its tone is cut whole, not split
		{"a👨‍👩‍👧b", 4, "a…"},                      // so is a ZWJ sequence
		{"éé", 1, "…"},                            // e and a combining mark take one cell
		{"e\u0301e\u0301x", 3, "e\u0301e\u0301x"}, // three cells in all
	} {
		got := cutCells(c.s, c.n, "…")
		if got != c.want || cells(got) > c.n {
			t.Errorf("cutCells(%q, %d) = %q (%d cells), want %q", c.s, c.n, got, cells(got), c.want)
		}
	}
	if got := cutLeft("src/very/long/path/main.go", 12); got != "…ath/main.go" || cells(got) != 12 {
		t.Errorf("cutLeft: %q", got)
	}
	if got := cutLeft("ディレクトリ/ファイル", 9); cells(got) > 9 || !strings.HasSuffix(got, "ファイル") {
		t.Errorf("cutLeft wide: %q", got)
	}
	for _, c := range []struct {
		s    string
		n    int
		want []string
	}{
		{"the quick brown fox", 10, []string{"the quick", "brown fox"}},
		{"supercalifragilistic", 8, []string{"supercal", "ifragili", "stic"}},
		{"日本語のテキストです", 6, []string{"日本語", "のテキ", "ストで", "す"}},
		{"a 👍🏽👍🏽 b", 5, []string{"a", "👍🏽", "👍🏽", "b"}}, // 4 cells each, as the renderer counts
		{"", 5, []string{""}},
	} {
		got := wrapCells(c.s, c.n)
		if !slices.Equal(got, c.want) {
			t.Errorf("wrapCells(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
		for _, l := range got {
			if cells(l) > c.n {
				t.Errorf("wrapCells(%q, %d): line %q of %d cells", c.s, c.n, l, cells(l))
			}
		}
	}
	if got := dropLastGrapheme("a👨‍👩‍👧"); got != "a" {
		t.Errorf("Backspace after a ZWJ family: %q", got)
	}
	if got := dropLastGrapheme("ae\u0301"); got != "a" {
		t.Errorf("Backspace after a combining mark: %q", got)
	}
}

// Forks come right under their parent, a level deeper; a tree comes where
// its newest session would; a fork whose parent is not listed, and forks
// that name each other, are listed all the same.
func TestForkTree(t *testing.T) {
	rows := []Row{
		{ID: "c1", ForkOf: "p"},   // 0: the newest, a fork of p
		{ID: "q"},                 // 1
		{ID: "c2", ForkOf: "p"},   // 2
		{ID: "g", ForkOf: "c2"},   // 3: a fork of a fork
		{ID: "p"},                 // 4
		{ID: "lost", ForkOf: "x"}, // 5: its parent is not listed
		{ID: "a", ForkOf: "b"},    // 6, 7: a loop
		{ID: "b", ForkOf: "a"},
	}
	order, depth := forkTree(rows)
	var ids []string
	for _, i := range order {
		ids = append(ids, strings.Repeat(".", depth[i])+rows[i].ID)
	}
	want := []string{"p", ".c1", ".c2", "..g", "q", "lost", "a", ".b"}
	if !slices.Equal(ids, want) {
		t.Fatalf("tree %q, want %q", ids, want)
	}
	// Without forks: the rows as they are.
	order, _ = forkTree(manyRows(5))
	if !slices.Equal(order, []int{0, 1, 2, 3, 4}) {
		t.Fatalf("no forks: %v", order)
	}
	// The picker selects the newest session, under its parent; a filter
	// ranks the rows flat.
	v := newPickView(rows, 10)
	if i, _ := v.chosen(); rows[i].ID != "c1" || v.treeDepth(i) != 1 {
		t.Fatalf("selected %s at depth %d", rows[i].ID, v.treeDepth(i))
	}
	v.setFilter("g")
	if i, _ := v.chosen(); rows[i].ID != "g" || v.treeDepth(i) != 0 {
		t.Fatalf("filtered: %s at depth %d", rows[i].ID, v.treeDepth(i))
	}
}

// The preview shows the newest turns that fit, then the files changed; a
// preview too tall is cut, never longer than its lines.
func TestPreviewLines(t *testing.T) {
	p := Preview{
		Turns: []PreviewTurn{
			{Prompt: "first question", Answer: "first answer"},
			{Prompt: "second\tquestion\nwith a break \x1b[2J", Answer: ""},
			{Prompt: "third question about 日本語", Answer: "an answer long enough to wrap over two lines here"},
		},
		Files: []string{"a.go", "dir/b.go"},
	}
	got := previewLines(p, 30, 12)
	want := []string{
		"> first question",
		"  first answer",
		`> second question with a break`,
		`  \x1b[2J`,
		"> third question about 日本語",
		"  an answer long enough to",
		"  wrap over two lines here",
		"",
		"files changed (2):",
		"  a.go",
		"  dir/b.go",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("preview:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Four lines: the newest turn, cut, and the files on one line.
	got = previewLines(p, 30, 4)
	if len(got) != 4 || got[0] != "> third question about 日本語" || !strings.HasPrefix(got[3], "files changed (2): a.go, dir/…") {
		t.Fatalf("short preview: %q", got)
	}
	for w := 3; w < 40; w++ {
		for h := 1; h < 14; h++ {
			for _, l := range previewLines(p, w, h) {
				if cells(l) > w {
					t.Fatalf("%dx%d: line %q of %d cells", w, h, l, cells(l))
				}
			}
			if n := len(previewLines(p, w, h)); n > h {
				t.Fatalf("%dx%d: %d lines", w, h, n)
			}
		}
	}
	if got := previewLines(Preview{Text: "(no prompt yet)"}, 30, 5); !slices.Equal(got, []string{"(no prompt yet)"}) {
		t.Fatalf("text: %q", got)
	}
}

// Ctrl-R renames the selected row through Listing.Rename: Esc gives up,
// an empty name is refused, Enter renames and the row shows the new title;
// a refused rename says why and changes nothing.
func TestPickerRename(t *testing.T) {
	var asked []string
	rename := func(_ context.Context, r Row, name string) (string, error) {
		if name == "busy" {
			return "", errors.New("open in pid 7")
		}
		asked = append(asked, r.ID+"="+name)
		return name, nil
	}
	m := newPickModel(Listing{Rows: manyRows(5), Rename: rename}, 80, 12)
	run := func(keys ...string) {
		for _, k := range keys {
			_, cmd := m.Update(key(k))
			for cmd != nil {
				msg := cmd()
				if b, ok := msg.(tea.BatchMsg); ok {
					cmd = nil
					for _, c := range b {
						if c != nil {
							m.Update(c())
						}
					}
					continue
				}
				_, cmd = m.Update(msg)
			}
		}
	}
	run("down", "ctrl+r")
	if f := m.footer(); f != "rename (Enter saves, Esc cancels): Task 1" {
		t.Fatalf("rename line %q", f)
	}
	run("esc")
	if m.done || m.renaming || len(asked) > 0 {
		t.Fatalf("Esc in the rename line: done %v renaming %v %q", m.done, m.renaming, asked)
	}
	run("ctrl+r", "ctrl+u", "enter")
	if len(asked) > 0 || !strings.Contains(m.footer(), "cannot be empty") {
		t.Fatalf("empty name: %q %q", asked, m.footer())
	}
	run("ctrl+r", "ctrl+u", "新しい名前 🚀", "backspace", "backspace", "x", "enter")
	if !slices.Equal(asked, []string{"id-001=新しい名前x"}) || m.v.rows[1].Title != "新しい名前x" {
		t.Fatalf("renamed %q, row %q", asked, m.v.rows[1].Title)
	}
	if f := strings.Join(m.frame(), "\n"); !strings.Contains(f, "> 新しい名前x") || !strings.Contains(f, "renamed") {
		t.Fatalf("frame after the rename:\n%s", f)
	}
	run("ctrl+r", "ctrl+u", "busy", "enter")
	if m.v.rows[1].Title != "新しい名前x" || !strings.Contains(m.footer(), "not renamed: open in pid 7") {
		t.Fatalf("refused rename: %q, %q", m.v.rows[1].Title, m.footer())
	}
	// Without Listing.Rename, Ctrl-R does nothing.
	m = newPickModel(Listing{Rows: manyRows(5)}, 80, 12)
	m.Update(key("ctrl+r"))
	if m.renaming {
		t.Fatal("renaming without Rename")
	}
}

// Ctrl-A lists every directory (once, then kept) and back; the selected
// row's directory shows in its column.
func TestPickerEvery(t *testing.T) {
	lists := 0
	every := func(context.Context) ([]Row, error) {
		lists++
		return []Row{{ID: "x-1", Title: "elsewhere, with a title of some length", Age: "2h", Dir: "/srv/other/project"}, {ID: "id-000", Title: "Task 0", Age: "1h", Dir: "/home/me/here"}}, nil
	}
	m := newPickModel(Listing{Rows: manyRows(3), Every: every}, 100, 12)
	step := func(k string) {
		_, cmd := m.Update(key(k))
		if cmd != nil {
			if msg := cmd(); msg != nil {
				if b, ok := msg.(tea.BatchMsg); ok {
					for _, c := range b {
						if c != nil {
							m.Update(c())
						}
					}
				} else {
					m.Update(msg)
				}
			}
		}
	}
	step("ctrl+a")
	f := strings.Join(m.frame(), "\n")
	if !strings.Contains(f, "DIRECTORY") || !strings.Contains(f, "/srv/other/project") || !strings.Contains(f, "1 of 2 in every directory") || !strings.Contains(f, "Ctrl-A this directory") {
		t.Fatalf("every directory:\n%s", f)
	}
	// At 40 columns the directory keeps a column, narrowed to the end of
	// its path, before the items.
	m.Update(tea.WindowSizeMsg{Width: 40, Height: 12})
	f = strings.Join(m.frame(), "\n")
	if !strings.Contains(f, "DIRECTORY") || !strings.Contains(f, "…her/project") || strings.Contains(f, "ITEMS") {
		t.Fatalf("every directory at 40 columns:\n%s", f)
	}
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 12})
	step("ctrl+a")
	f = strings.Join(m.frame(), "\n")
	if strings.Contains(f, "DIRECTORY") || !strings.Contains(f, "1 of 3  ") {
		t.Fatalf("back to this directory:\n%s", f)
	}
	step("ctrl+a")
	step("enter")
	if !m.done || m.v.rows[m.chosen].ID != "x-1" || lists != 1 {
		t.Fatalf("chose %+v (done %v), listed %d times", m.v.rows[m.chosen], m.done, lists)
	}
	// Started with every directory (--all).
	m = newPickModel(Listing{Rows: manyRows(3), Every: every, StartEvery: true}, 100, 12)
	if cmd := m.Init(); cmd == nil {
		t.Fatal("no listing started")
	}
	m.Update(everyMsg{rows: []Row{{ID: "x-1", Title: "elsewhere", Dir: "/srv/other"}}})
	if !m.showingEvery() || m.v.rows[0].ID != "x-1" {
		t.Fatalf("start with every directory: %v %+v", m.showingEvery(), m.v.rows)
	}
}
