package term

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// cjkRows are rows with titles in Japanese and Chinese, an owned one among
// them.
func cjkRows() []Row {
	rows := manyRows(8)
	rows[0].Title = "日本語のタイトルです、長いタイトル"
	rows[1].Title = "修复解析器的长行问题"
	rows[1].Owner = 4242
	rows[2].Title = "deploy the 検証 build"
	return rows
}

// At 40 columns the picker's header and rows fit: the title comes first
// with at least 18 cells, AGE and ITEMS line up under their headers in
// every row (wide characters and an owned row included), and the id and
// branch, which do not fit, are left out. At 120 columns everything is
// there and the preview sits beside the list.
func TestPTYPickColumnsFit(t *testing.T) {
	for _, c := range []struct {
		cols     uint16
		heads    []string
		missing  []string
		preview  string
		minTitle int
	}{
		{40, []string{"TITLE", "AGE", "ITEMS"}, []string{"BRANCH", "ID"}, "── preview", 18},
		{120, []string{"TITLE", "AGE", "ITEMS", "BRANCH", "ID"}, nil, "│ PREVIEW", 30},
	} {
		p := openPTY(t, 24, c.cols)
		k := p.openKeys(t)
		rows := cjkRows()
		ch := make(chan result, 1)
		go func() {
			i, err := Pick(context.Background(), k, p.TTY, rows, func(r Row) Preview {
				return Preview{Turns: []PreviewTurn{{Prompt: "asked: " + r.Title, Answer: "done"}}}
			})
			ch <- result{i: i, err: err}
		}()
		screen := p.WaitScreen(t, "the picker with its preview", func(s []string) bool {
			return slices.ContainsFunc(s, func(r string) bool { return strings.Contains(r, "> asked:") })
		})
		head := slices.IndexFunc(screen, func(r string) bool { return strings.HasPrefix(r, "  TITLE") })
		if head < 0 {
			t.Fatalf("%d columns: no header:\n%s", c.cols, strings.Join(screen, "\n"))
		}
		h := screen[head]
		for _, n := range c.heads {
			if !strings.Contains(h, n) {
				t.Fatalf("%d columns: header %q lacks %s", c.cols, h, n)
			}
		}
		for _, n := range c.missing {
			if strings.Contains(h, " "+n) {
				t.Fatalf("%d columns: header %q has %s", c.cols, h, n)
			}
		}
		age := ansi.StringWidth(h[:strings.Index(h, "AGE")])
		if age-2 < c.minTitle {
			t.Fatalf("%d columns: a title column of %d cells", c.cols, age-2)
		}
		for _, r := range screen[head+1 : head+1+len(rows)] {
			// The emulator draws what the picker wrote: "1h" under AGE.
			if i := strings.Index(r, "1h"); i < 0 || ansi.StringWidth(r[:i]) != age {
				t.Fatalf("%d columns: a row whose age is not under AGE:\n%s\n%s", c.cols, h, r)
			}
		}
		for _, r := range screen {
			if w := ansi.StringWidth(r); w > int(c.cols)-1 {
				t.Fatalf("%d columns: a row of %d cells: %q", c.cols, w, r)
			}
		}
		if !slices.ContainsFunc(screen, func(r string) bool { return strings.Contains(r, c.preview) }) {
			t.Fatalf("%d columns: no %q:\n%s", c.cols, c.preview, strings.Join(screen, "\n"))
		}
		if !slices.ContainsFunc(screen, func(r string) bool { return strings.Contains(r, "修复解析器") && strings.Contains(r, "open") }) {
			t.Fatalf("%d columns: the owned row is not marked:\n%s", c.cols, strings.Join(screen, "\n"))
		}
		p.Send(t, "\x1b")
		if r := await(t, ch); !errors.Is(r.err, ErrCancelled) {
			t.Fatalf("Esc: %v", r.err)
		}
		p.wiped(t)
	}
}

// A cancelled context (the REPL told to end by a signal) ends the picker
// with its picture wiped, not left on the screen.
func TestPTYPickCancelWipes(t *testing.T) {
	p := openPTY(t, 24, 100)
	k := p.openKeys(t)
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan result, 1)
	go func() {
		_, err := PickListing(ctx, k, p.TTY, Listing{Rows: manyRows(5)})
		ch <- result{err: err}
	}()
	p.footer(t, "1 of 5")
	cancel()
	if r := await(t, ch); !errors.Is(r.err, context.Canceled) {
		t.Fatalf("cancelled: %v", r.err)
	}
	p.wiped(t)
	if rows := textRows(p.Screen()); len(rows) != 0 {
		t.Fatalf("left on the screen: %q", rows)
	}
}

// Ctrl-R renames through the picker: the rename line takes the place of
// the footer, Enter saves, and the row shows the new title.
func TestPTYPickRename(t *testing.T) {
	p := openPTY(t, 24, 80)
	k := p.openKeys(t)
	renamed := make(chan string, 1)
	l := Listing{Rows: manyRows(5), Rename: func(_ context.Context, r Row, name string) (string, error) {
		renamed <- r.ID + "=" + name
		return name, nil
	}}
	ch := make(chan result, 1)
	go func() {
		r, err := PickListing(context.Background(), k, p.TTY, l)
		ch <- result{s: r.Title, err: err}
	}()
	p.footer(t, "1 of 5")
	p.Send(t, "\x1b[B\x12") // Down, Ctrl-R
	p.footer(t, "rename (Enter saves, Esc cancels): Task 1")
	p.Send(t, "\x15名前 ✓\r") // Ctrl-U, the name, Enter
	p.footer(t, "2 of 5: renamed")
	p.ExpectScreen(t, "> 名前 ✓")
	if got := <-renamed; got != "id-001=名前 ✓" {
		t.Fatalf("renamed %q", got)
	}
	p.Send(t, "\r")
	if r := await(t, ch); r.err != nil || r.s != "名前 ✓" {
		t.Fatalf("chose %q, %v", r.s, r.err)
	}
}

// Two keys bound together: Esc Esc submits the bound line and keeps what
// was typed for the next prompt; a single Esc then another key is the key.
func TestPTYEditorPairBinding(t *testing.T) {
	p := openPTY(t, 24, 80)
	e := openEditor(t, p, nil)
	defer e.Close()
	e.Bind("esc esc", "/rewind")
	// Esc as a terminal that reports keys unambiguously sends it.
	const esc = "\x1b[27u"
	if r := readLine(t, p, e, "draft", esc+esc); r.s != "/rewind" || r.err != nil {
		t.Fatalf("Esc Esc: %q, %v", r.s, r.err)
	}
	if got := e.Typed(); got != "draft" {
		t.Fatalf("the typed text after Esc Esc: %q", got)
	}
	if r := readLine(t, p, e, esc, "!", "\r"); r.s != "draft!" {
		t.Fatalf("Esc then a key: %q, %v", r.s, r.err)
	}
}
