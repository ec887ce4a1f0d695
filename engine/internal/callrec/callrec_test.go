package callrec

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"syscall"
	"testing"
	"time"

	"cairn/engine/internal/changes"
	"cairn/internal/timefmt"
	"cairn/internal/vfs"
)

// TestTrimDropsOldestFirstNeverKeep: a trim drops the oldest records until
// the rest fit, skipping the record just made, and names each session's
// drops in the order the sessions first lose one.
func TestTrimDropsOldestFirstNeverKeep(t *testing.T) {
	at := func(m int) timefmt.Time { return timefmt.Mk(time.Unix(int64(m)*60, 0)) }
	rec := func(session, id string, m int, bytes int64) Live {
		return Live{Session: session, RecordSize: changes.RecordSize{ID: id, At: at(m), Bytes: bytes}}
	}
	all := []Live{rec("b", "b1", 2, 10), rec("a", "a1", 1, 10), rec("a", "new", 0, 10), rec("a", "a2", 3, 10)}
	drops, order, dropped := Trim(all, 20, "new")
	if !slices.Equal(dropped, []string{"a1", "b1"}) || !slices.Equal(order, []string{"a", "b"}) {
		t.Fatalf("dropped %v in order %v; want a1, b1 (oldest first, never new) from a then b", dropped, order)
	}
	if !slices.Equal(drops["a"], []string{"a1"}) || !slices.Equal(drops["b"], []string{"b1"}) {
		t.Fatalf("drops by session %v", drops)
	}
	if d, o, x := Trim(all[:2], 20, ""); d != nil || o != nil || x != nil {
		t.Fatalf("within budget, Trim dropped %v %v %v", d, o, x)
	}
}

// TestMarks: off only once a record exists and the newest mark is not off;
// start only after an off.
func TestMarks(t *testing.T) {
	now := timefmt.Mk(time.Unix(0, 0))
	kind := func(ls []any) string {
		if len(ls) == 0 {
			return ""
		}
		return ls[0].(changes.MarkLine).Kind
	}
	cases := []struct {
		on        bool
		mark      string
		anyRecord bool
		want      string
	}{
		{false, "", false, ""},
		{false, "", true, changes.KindOff},
		{false, changes.KindOff, true, ""},
		{true, changes.KindOff, true, changes.KindStart},
		{true, "", true, ""},
		{true, changes.KindStart, false, ""},
	}
	for _, c := range cases {
		if got := kind(Marks(c.on, c.mark, c.anyRecord, now)); got != c.want {
			t.Errorf("Marks(%v, %q, %v) = %q, want %q", c.on, c.mark, c.anyRecord, got, c.want)
		}
	}
	var recs changes.Records
	WroteMarks(&recs, Marks(false, "", true, now))
	if recs.Mark != changes.KindOff {
		t.Fatalf("the off line written is not folded: mark %q", recs.Mark)
	}
}

// TestRefusal: a full disk or quota is the store's refusal (the call runs
// unrecorded); any other error is not (the call is refused).
func TestRefusal(t *testing.T) {
	for _, e := range []error{syscall.ENOSPC, syscall.EDQUOT, fmt.Errorf("write: %w", syscall.ENOSPC)} {
		if r := Refusal(e); r == nil || r.Why != changes.WhyFull || !errors.Is(r.Err, syscall.ENOSPC) && !errors.Is(r.Err, syscall.EDQUOT) {
			t.Errorf("Refusal(%v) = %+v; want full", e, r)
		}
	}
	if r := Refusal(syscall.EIO); r != nil {
		t.Errorf("Refusal(EIO) = %+v; want none", r)
	}
	lim := &Refused{Why: changes.WhyMaxFiles}
	if r := Refusal(fmt.Errorf("walk: %w", lim)); r != lim {
		t.Errorf("a wrapped refusal is not found: %+v", r)
	}
}

// TestLockTakeWaitsForRevert: a call waits while the lock is held alone
// (a file revert), and takes it once given back; a cancelled wait says so.
func TestLockTakeWaitsForRevert(t *testing.T) {
	fsys := vfs.NewMem()
	if err := fsys.MkdirAll("ws", vfs.DirPerm); err != nil {
		t.Fatal(err)
	}
	alone, err := fsys.Lock(LockName("ws"))
	if err != nil {
		t.Fatal(err)
	}
	l := NewLock(fsys, "ws")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := l.Take(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("Take under a revert with ctx cancelled: %v", err)
	}
	done := make(chan error)
	go func() { done <- l.Take(context.Background(), nil) }()
	alone.Release()
	if err := <-done; err != nil {
		t.Fatalf("Take after the revert: %v", err)
	}
	if _, err := fsys.Lock(LockName("ws")); !errors.Is(err, vfs.ErrLocked) {
		t.Fatalf("a revert took the lock a call holds: %v", err)
	}
	l.Give()
	l.Close()
}
