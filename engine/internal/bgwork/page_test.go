package bgwork

import (
	"context"
	"encoding/base64"
	"fmt"
	"testing"

	"cairn/internal/vfs"
)

// TestListPagesThe1000Archived: 1,000 archived tasks page newest first,
// 20 a page, each exactly once, through the cursor passed back as given;
// tasks admitted between pages show on a new first page and never shift
// the pages after it.
func TestListPagesThe1000Archived(t *testing.T) {
	ctx := context.Background()
	m := vfs.NewMem()
	l, _ := openLedger(t, m, Options{})
	const n = 1000
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("task-%d", i)
		must(l.Admit(Admission{ID: id, Type: TypeTask, Background: i%2 == 0}))(t)
		must(l.Settle(id, Result{}))(t)
	}
	must(l.Deliver(ctx, "", openSink(t, m, "items.jsonl")))(t)
	for _, limit := range []int{0, 7, 1, MaxPage} {
		seen := map[string]bool{}
		// What the first page sees, newest first, is what the pages give.
		var order []string
		all := l.State().Works()
		for i := len(all) - 1; i >= 0; i-- {
			order = append(order, all[i].ID)
		}
		cursor, pages, added := "", 0, 0
		for {
			p := must(l.List(cursor, limit))(t)
			pages++
			size := limit
			if size == 0 {
				size = PageSize
			}
			if len(p.Works) > size || p.Next != "" && len(p.Works) != size {
				t.Fatalf("limit %d: a page of %d, next %q", limit, len(p.Works), p.Next)
			}
			for _, w := range p.Works {
				if seen[w.ID] {
					t.Fatalf("limit %d: %s twice", limit, w.ID)
				}
				seen[w.ID] = true
				if w.ID != order[len(seen)-1] {
					t.Fatalf("limit %d: %s where %s was due (newest first)", limit, w.ID, order[len(seen)-1])
				}
				if !w.Archived || w.State != StateSettled {
					t.Fatalf("%+v", w)
				}
			}
			if p.Next == "" {
				break
			}
			// Work admitted between pages does not move the next page.
			if pages%5 == 1 {
				added++
				must(l.Admit(Admission{ID: fmt.Sprintf("new-%d-%d", limit, added), Type: TypeShell, Background: true}))(t)
			}
			cursor = p.Next
		}
		if len(seen) != len(order) || len(order) < n {
			t.Fatalf("limit %d: saw %d of %d", limit, len(seen), len(order))
		}
		// The new work heads a new first page.
		first := must(l.State().List("", 1))(t)
		if first.Works[0].ID != fmt.Sprintf("new-%d-%d", limit, added) || first.Works[0].State != StateRunning {
			t.Fatalf("first page %+v", first.Works)
		}
		for _, w := range l.State().Works() {
			if w.Live() {
				must(l.Settle(w.ID, Result{}))(t)
			}
		}
		must(l.Deliver(ctx, "", openSink(t, m, "items.jsonl")))(t)
	}
	// A reader that does not own the session pages the same way.
	p := must(must(Read(m, ledgerName))(t).List("", 0))(t)
	if len(p.Works) != PageSize || p.Next == "" {
		t.Fatalf("%d, %q", len(p.Works), p.Next)
	}
}

// TestListCursorAndLimit: a cursor is list's own, passed back as given;
// anything else, and a limit out of range, is refused.
func TestListCursorAndLimit(t *testing.T) {
	l, _ := openLedger(t, vfs.NewMem(), Options{})
	empty := must(l.State().List("", 0))(t)
	if empty.Works == nil || len(empty.Works) != 0 || empty.Next != "" {
		t.Fatalf("empty %+v", empty)
	}
	for i := range 3 {
		must(l.Admit(Admission{ID: fmt.Sprintf("t%d", i), Type: TypeTask}))(t)
	}
	p := must(l.State().List("", 2))(t)
	if len(p.Works) != 2 || p.Next == "" {
		t.Fatalf("%+v", p)
	}
	last := must(l.State().List(p.Next, 2))(t)
	if len(last.Works) != 1 || last.Works[0].ID != "t0" || last.Next != "" {
		t.Fatalf("%+v", last)
	}
	forged := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	for _, c := range []string{"2", "bg1:2", forged("bg1:2"), forged("bg1:0." + cursorCheck("bg1:0")), forged("bg1:-1." + cursorCheck("bg1:-1")),
		forged("bg1:02." + cursorCheck("bg1:02")), forged("bg1:3." + cursorCheck("bg1:2")), "!!", p.Next + "x", p.Next[:len(p.Next)-1]} {
		_, err := l.State().List(c, 0)
		wantErr(t, err, ErrInvalid)
	}
	for _, n := range []int{-1, MaxPage + 1} {
		_, err := l.State().List("", n)
		wantErr(t, err, ErrInvalid)
	}
	// A cursor past the end (another session's) is a place, not an error.
	far := must(l.State().List(encodeCursor(999), 0))(t)
	if len(far.Works) != 3 {
		t.Fatalf("%+v", far)
	}
}
