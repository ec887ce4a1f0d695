package term

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func timeAfterGuard() <-chan time.Time { return time.After(guard) }

// pickListingAsync runs PickListing over a first page of rows whose
// refresh blocks until the test sends it the whole listing on refresh; it
// reports on started when the refresh has begun.
func pickListingAsync(p *ptyTerm, k *Keys, first []Row, total int, started chan<- struct{}, refresh <-chan []Row) <-chan struct {
	row Row
	err error
} {
	ch := make(chan struct {
		row Row
		err error
	}, 1)
	l := Listing{Rows: first, Total: total, Refresh: func(ctx context.Context) ([]Row, error) {
		close(started)
		select {
		case rows := <-refresh:
			return rows, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}}
	go func() {
		row, err := PickListing(context.Background(), k, p.TTY, l)
		ch <- struct {
			row Row
			err error
		}{row, err}
	}()
	return ch
}

// The first screen is drawn from the first page while the refresh has not
// finished (it is blocked here); the refresh starts once it is drawn, and
// its rows then replace the page, keeping the selected row by id.
func TestPTYPickListingFirstScreenBeforeRefresh(t *testing.T) {
	p := openPTY(t, 11, 100) // a page of 7 rows
	all := manyRows(50)
	started := make(chan struct{})
	refresh := make(chan []Row)
	ch := pickListingAsync(p, p.openKeys(t), all[:7], 50, started, refresh)

	// The whole first page and its footer, with the refresh still blocked.
	p.footer(t, "1 of 50, listing")
	p.ExpectScreen(t, "Task 6")
	awaitClosed(t, started)
	p.Send(t, "\x1b[B")
	p.Send(t, "\x1b[B")
	p.footer(t, "3 of 50, listing")

	// The refresh drops id-000 and has two newer sessions: the selection
	// stays on id-002, the fourth row now.
	refresh <- append([]Row{{ID: "id-newer", Title: "Newest"}, {ID: "id-new", Title: "A newer task"}}, all[1:]...)
	p.footer(t, "4 of 51  ")
	p.Send(t, "\r")
	r := await2(t, ch)
	if r.err != nil || r.row.ID != "id-002" {
		t.Fatalf("picked %+v, %v; want id-002", r.row, r.err)
	}
	p.wiped(t)
}

// A row chosen before the refresh has finished is checked against it: a
// session the refresh no longer lists is refused with a note and the
// picker stays open; one it lists is returned as the refresh has it.
func TestPTYPickListingChoiceChecked(t *testing.T) {
	p := openPTY(t, 10, 120)
	all := manyRows(20)
	started := make(chan struct{})
	refresh := make(chan []Row)
	ch := pickListingAsync(p, p.openKeys(t), all[:7], 20, started, refresh)
	p.footer(t, "1 of 20, listing")
	p.Send(t, "\r") // id-000, which the refresh drops
	p.footer(t, "1 of 20, checking the choice")
	refresh <- all[1:]
	p.footer(t, "1 of 19: that session is no longer listed")
	select {
	case r := <-ch:
		t.Fatalf("a dropped session was chosen: %+v, %v", r.row, r.err)
	default:
	}
	p.Send(t, "\x1b[B\r")
	r := await2(t, ch)
	if r.err != nil || r.row.ID != "id-002" {
		t.Fatalf("picked %+v, %v; want id-002", r.row, r.err)
	}

	// Chosen before the refresh and still listed: returned, with the
	// refreshed title.
	started = make(chan struct{})
	ch = pickListingAsync(p, p.openKeys(t), all[:7], 20, started, refresh)
	p.footer(t, "1 of 20, listing")
	p.Send(t, "\x1b[B\x1b[B\r")
	p.footer(t, "3 of 20, checking the choice")
	renamed := append([]Row(nil), all...)
	renamed[2].Title = "Renamed"
	refresh <- renamed
	if r := await2(t, ch); r.err != nil || r.row.ID != "id-002" || r.row.Title != "Renamed" {
		t.Fatalf("picked %+v, %v; want id-002 as refreshed", r.row, r.err)
	}

	// A refresh that lists nothing ends the picker with ErrNoRows.
	started = make(chan struct{})
	ch = pickListingAsync(p, p.openKeys(t), all[:7], 20, started, refresh)
	p.footer(t, "1 of 20, listing")
	awaitClosed(t, started)
	refresh <- nil
	if r := await2(t, ch); !errors.Is(r.err, ErrNoRows) {
		t.Fatalf("empty refresh: %+v, %v", r.row, r.err)
	}
}

// What is typed after a choice that waits for the refresh is not taken
// by the picker: it is for the prompt after it.
func TestPTYPickListingTypedAhead(t *testing.T) {
	p := openPTY(t, 10, 120)
	all := manyRows(20)
	k := p.openKeys(t)
	refresh := make(chan []Row)
	ch := pickListingAsync(p, k, all[:7], 20, make(chan struct{}), refresh)
	p.footer(t, "1 of 20, listing")
	p.Send(t, "\x1b[B\x1b[B\rnext\r")
	p.footer(t, "3 of 20, checking the choice")
	refresh <- all
	if r := await2(t, ch); r.err != nil || r.row.ID != "id-002" {
		t.Fatalf("picked %+v, %v; want id-002", r.row, r.err)
	}
	if r := readAhead(t, p, NewEditor(k, p.TTY, nil)); r.s != "next" || r.err != nil {
		t.Fatalf("typed after the choice: %q, %v", r.s, r.err)
	}
}

func awaitClosed(t *testing.T, c <-chan struct{}) {
	t.Helper()
	select {
	case <-c:
	case <-timeAfterGuard():
		t.Fatal("the refresh did not start")
	}
}

func await2(t *testing.T, ch <-chan struct {
	row Row
	err error
}) struct {
	row Row
	err error
} {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-timeAfterGuard():
		t.Fatal("no answer")
	}
	panic("unreachable")
}

// The model keeps the filter and the selection by id when the rows are
// replaced, and takes the position when the selected row is gone.
func TestPickModelRefreshKeepsFilterAndSelection(t *testing.T) {
	all := manyRows(30)
	m := newPickModel(Listing{Rows: all[:10]}, 80, 10)
	m.loading, m.total = true, 30
	m.Update(key("task 1"))
	m.Update(key("down")) // "Task 1", then "Task 10"…: the second match
	i, _ := m.v.chosen()
	id := m.v.rows[i].ID
	fresh := append([]Row{{ID: "id-x", Title: "Task 1 again"}}, all...)
	m.Update(rowsMsg{rows: fresh})
	if m.loading || m.v.filter != "task 1" {
		t.Fatalf("loading %v, filter %q", m.loading, m.v.filter)
	}
	if j, _ := m.v.chosen(); m.v.rows[j].ID != id {
		t.Fatalf("selected %s after the refresh, want %s", m.v.rows[j].ID, id)
	}
	if f := m.frame(); !strings.Contains(f[len(f)-1], "(31 in all)") || strings.Contains(f[len(f)-1], "listing") {
		t.Fatalf("footer %q", f[len(f)-1])
	}
	// The selected row gone: the selection keeps its place.
	m.Update(key("ctrl+u"))
	m.Update(key("home"))
	m.Update(key("down"))
	m.Update(key("down"))
	m.Update(rowsMsg{rows: append(fresh[:2:2], fresh[3:]...)})
	if j, _ := m.v.chosen(); j != 2 || m.v.rows[j].ID != fresh[3].ID {
		t.Fatalf("selected %d after the selected row went", j)
	}
	// A failed refresh ends the picker with its error.
	boom := errors.New("boom")
	m.loading = true
	m.Update(rowsMsg{err: boom})
	if !m.done || !errors.Is(m.err, boom) {
		t.Fatalf("failed refresh: done %v, %v", m.done, m.err)
	}
}

// A first page read from a stale index.json can put first a session that
// is no longer the newest. Until the user moves the selection, the
// refreshed listing is selected from its top: Enter takes the newest
// session, not the one the stale page happened to put first.
func TestPickModelRefreshUnmovedSelectsNewest(t *testing.T) {
	all := manyRows(5)
	stale := append([]Row{all[1], all[0]}, all[2:]...) // all[0] written since
	m := newPickModel(Listing{Rows: stale}, 80, 10)
	m.loading, m.total = true, 5
	m.Update(rowsMsg{rows: all})
	if j, _ := m.v.chosen(); m.v.rows[j].ID != all[0].ID {
		t.Fatalf("selected %s after the refresh, want the newest %s", m.v.rows[j].ID, all[0].ID)
	}
	// With a filter typed and the selection not moved, the newest row
	// that matches is selected, as when the rows come first.
	m = newPickModel(Listing{Rows: stale}, 80, 10)
	m.loading = true
	m.Update(key("t"))
	m.Update(rowsMsg{rows: all})
	if j, _ := m.v.chosen(); m.v.rows[j].ID != all[0].ID || m.v.filter != "t" {
		t.Fatalf("filtered: selected %s after the refresh, want the newest %s", m.v.rows[j].ID, all[0].ID)
	}
	// Once moved, the selection follows its row.
	m = newPickModel(Listing{Rows: stale}, 80, 10)
	m.loading = true
	m.Update(key("down"))
	m.Update(key("up"))
	m.Update(rowsMsg{rows: all})
	if j, _ := m.v.chosen(); m.v.rows[j].ID != all[1].ID {
		t.Fatalf("selected %s after the refresh, want the moved-to %s", m.v.rows[j].ID, all[1].ID)
	}
}
