package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"syscall"
	"testing"

	"cairn/internal/vfs"
	"cairn/journal"
)

// A turn waits for one sync, the items journal's; after a power loss the
// next open puts back the trail and usage lines the turn lines say, once.
func TestTurnSyncsItemsOnlyAndOpenSettles(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t)
	s := e.ws.Create(SessionOptions{})
	turn := func(k int) {
		t.Helper()
		if _, err := s.Append(ctx, Item{Type: User, Text: fmt.Sprint("prompt ", k)}); err != nil {
			t.Fatal(err)
		}
		syncs := e.faulty.Calls(vfs.OpSync)
		if err := s.EndTurn(ctx, Turn{Model: "m", Spend: Spend{InputTokens: int64(k)}, Labels: []string{"prompt"}, Gates: []string{"g1"}}); err != nil {
			t.Fatal(err)
		}
		if k > 1 { // the first turn creates the trail and the ledger, and syncs their folder
			if n := e.faulty.Calls(vfs.OpSync) - syncs; n != 1 {
				t.Fatalf("turn %d made %d syncs", k, n)
			}
		}
	}
	for k := 1; k <= 4; k++ {
		turn(k)
	}
	id := s.ID()
	e.mem.Crash() // power loss: the trail and ledger lines of turns 2-4 were not synced
	store, err := OpenFS(e.mem, "/mem")
	if err != nil {
		t.Fatal(err)
	}
	ws, err := store.Workspace(e.ws.Path())
	if err != nil {
		t.Fatal(err)
	}
	trail := func() []auditLine {
		var out []auditLine
		ws.Trail(ctx, id, func(b []byte) error {
			var l auditLine
			json.Unmarshal(b, &l)
			out = append(out, l)
			return nil
		})
		return out
	}
	usage := func() []usageLine {
		var out []usageLine
		journal.Read(e.mem, usageName, func(b []byte) error {
			var u usageLine
			if json.Unmarshal(b, &u) == nil && u.Kind == "usage" {
				out = append(out, u)
			}
			return nil
		})
		return out
	}
	if len(trail()) == 4 && len(usage()) == 4 {
		t.Fatal("the crash lost nothing: the test shows nothing")
	}
	for range 2 { // the second open finds everything settled
		re, err := ws.Open(ctx, id, SessionOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := re.Close(); err != nil {
			t.Fatal(err)
		}
		tr, us := trail(), usage()
		if len(tr) != 4 || len(us) != 4 {
			t.Fatalf("after reopening: %d trail lines, %d usage lines", len(tr), len(us))
		}
		for k := 1; k <= 4; k++ {
			l, u := tr[k-1], us[k-1]
			if l.Turn != k || l.Items != k || len(l.Labels) != 1 || l.Labels[0] != "prompt" || len(l.Gates) != 1 || l.Gates[0] != "g1" {
				t.Fatalf("trail line %d: %+v", k, l)
			}
			if u.Turn != k || u.Session != id || u.InputTokens != int64(k) || u.Model != "m" {
				t.Fatalf("usage line %d: %+v", k, u)
			}
		}
	}
	sums, err := store.Usage(ctx)
	if err != nil || len(sums) != 1 || sums[0].Turns != 4 || sums[0].InputTokens != 10 {
		t.Fatalf("usage: %+v %v", sums, err)
	}
}

// A session that closes leaves its trail and ledger durable, and its record
// says so: the next open reads neither.
func TestCloseSettlesTurns(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t)
	s := e.ws.Create(SessionOptions{})
	for k := 1; k <= 3; k++ {
		s.Append(ctx, Item{Type: User, Text: "p"})
		if err := s.EndTurn(ctx, Turn{Model: "m", Spend: Spend{InputTokens: 1}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	e.mem.Crash()
	rec, err := readRecord(e.mem, e.ws.dir, s.ID())
	if err != nil || rec.SettledTurn != 3 {
		t.Fatalf("record after close: %+v %v", rec, err)
	}
	n := 0
	journal.Read(e.mem, usageName, func([]byte) error { n++; return nil })
	m := 0
	journal.Read(e.mem, auditName(e.ws.dir, s.ID()), func([]byte) error { m++; return nil })
	if n != 3 || m != 3 {
		t.Fatalf("after close and a crash: %d usage lines, %d trail lines", n, m)
	}
}

// A session that cannot be recorded still reaches the usage ledger, which
// is the store's: its queued lines are written when it closes.
func TestUnrecordedSessionUsageReachesTheLedger(t *testing.T) {
	e := newDegradeEnv(t)
	e.state.Inject(vfs.Rule{Op: vfs.OpCreate, Path: "workspaces/*/sessions/*", Err: syscall.ENOSPC})
	for k := 1; k <= 3; k++ {
		must(e.s.Append(e.ctx, Item{Type: User, Text: "p"}))(t)
		if err := e.s.EndTurn(e.ctx, Turn{Model: "m", Spend: Spend{InputTokens: 2}}); err != nil {
			t.Fatal(err)
		}
	}
	if e.s.Recorded() {
		t.Fatal("the session was recorded: the test shows nothing")
	}
	e.s.Close()
	sums, err := e.ws.s.Usage(e.ctx)
	if err != nil || len(sums) != 1 || sums[0].Turns != 3 || sums[0].InputTokens != 6 {
		t.Fatalf("usage of an unrecorded session: %+v %v", sums, err)
	}
}
