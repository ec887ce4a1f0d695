package inbox

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"cairn/internal/vfs"
)

// inboxScript sends messages to a live session and delivers them between
// sends, ignoring errors (after a crash point every call fails); it
// returns the texts whose Send was acknowledged, in order.
func inboxScript(fsys vfs.FS) []string {
	ctx := context.Background()
	var acked []string
	l, err := fsys.Lock(lockA)
	if err != nil {
		return nil
	}
	defer l.Release()
	b, err := Open(fsys, inboxA, Options{})
	if err != nil {
		return nil
	}
	c, err := openConvo(fsys, "a.items.jsonl")
	if err != nil {
		return nil
	}
	for i := range 8 {
		text := fmt.Sprintf("m%d", i)
		if _, err := Send(fsys, inboxA, lockA, "b", text, SendOptions{}); err == nil {
			acked = append(acked, text)
		}
		if i%3 != 1 {
			b.Deliver(ctx, c)
		}
	}
	return acked
}

// checkInbox reopens the inbox after a crash, delivers, and holds the
// conversation to the inbox: every acknowledged message delivered once,
// in order, and nothing that was not sent.
func checkInbox(t *testing.T, fsys vfs.FS, acked []string, where string) {
	t.Helper()
	b, err := Open(fsys, inboxA, Options{})
	if err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	c := mustConvo(t, fsys, "a.items.jsonl")
	if _, err := b.Deliver(context.Background(), c); err != nil {
		t.Fatalf("%s: deliver: %v", where, err)
	}
	c.Close()
	msgs, taken, err := Read(fsys, inboxA)
	if err != nil {
		t.Fatal(err)
	}
	var sent []string
	for i, m := range msgs {
		if !taken[i] {
			t.Fatalf("%s: %s not delivered", where, m.ID)
		}
		sent = append(sent, m.Text)
	}
	got := texts(t, fsys, "a.items.jsonl")
	if strings.Join(got, " ") != strings.Join(sent, " ") {
		t.Fatalf("%s: the conversation holds %v, the inbox %v (once each, in order)", where, got, sent)
	}
	// Every acknowledged message is among them, in its order.
	i := 0
	for _, s := range sent {
		if i < len(acked) && s == acked[i] {
			i++
		}
	}
	if i != len(acked) {
		t.Fatalf("%s: acknowledged %v, delivered %v", where, acked, sent)
	}
	if b.Skipped != 0 {
		t.Fatalf("%s: %d lines skipped", where, b.Skipped)
	}
}

// TestInboxPowerLossAtEverySync crashes the script at each sync point,
// keeping only synced data, and a random share of the rest.
func TestInboxPowerLossAtEverySync(t *testing.T) {
	full := newMem(t)
	inboxScript(full)
	total := full.Syncs()
	if total < 20 {
		t.Fatalf("the script syncs %d times", total)
	}
	for n := 0; n <= total; n++ {
		for _, partial := range []bool{false, true} {
			m := newMem(t)
			m.FailAfterSyncs(n)
			acked := inboxScript(m)
			if partial {
				m.CrashPartial(rand.New(rand.NewPCG(uint64(n), 5)))
			} else {
				m.Crash()
			}
			checkInbox(t, m, acked, fmt.Sprintf("sync %d/%d partial %v", n, total, partial))
		}
	}
}

// TestInboxDeliveryFaults: a conversation that fails to take an item (its
// write or its sync) stops delivery; the next owner delivers each message
// once, whether the failed batch reached the conversation's file or not.
func TestInboxDeliveryFaults(t *testing.T) {
	ctx := context.Background()
	for _, op := range []vfs.Op{vfs.OpWrite, vfs.OpSync} {
		t.Run(op.String(), func(t *testing.T) {
			m := newMem(t)
			f := vfs.NewFaulty(m)
			l := must(m.Lock(lockA))(t)
			for i := range 3 {
				must(Send(m, inboxA, lockA, "", fmt.Sprint("m", i), SendOptions{}))(t)
			}
			b := must(Open(f, inboxA, Options{}))(t)
			c := mustConvo(t, f, "a.items.jsonl")
			f.Inject(vfs.Rule{Op: op, Path: "a.items.jsonl", Count: 1})
			_, err := b.Deliver(ctx, c)
			if err == nil {
				t.Fatal("a failed conversation write was taken as done")
			}
			if _, err := b.Deliver(ctx, c); err == nil {
				t.Fatal("retried as if it had worked")
			}
			if p := must(b.Pending())(t); len(p) != 3 {
				t.Fatalf("pending %d", len(p))
			}
			c.Close()
			must0(t, l.Release())
			checkInbox(t, m, []string{"m0", "m1", "m2"}, op.String())
		})
	}
	// The take line cannot be written: nothing is put.
	m := newMem(t)
	f := vfs.NewFaulty(m)
	must(m.Lock(lockA))(t)
	must(Send(m, inboxA, lockA, "", "x", SendOptions{}))(t)
	b := must(Open(f, inboxA, Options{}))(t)
	f.Inject(vfs.Rule{Op: vfs.OpWrite, Path: inboxA, Count: 1})
	if _, err := b.Deliver(ctx, mustConvo(t, f, "a.items.jsonl")); err == nil {
		t.Fatal("delivered without its take line")
	}
	if got := texts(t, m, "a.items.jsonl"); len(got) != 0 {
		t.Fatalf("%v", got)
	}
	checkInbox(t, m, []string{"x"}, "take")
}
