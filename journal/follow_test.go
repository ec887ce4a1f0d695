package journal

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"cairn/internal/vfs"
)

// TestFollow: Follow yields the lines there, then the lines another writer
// appends (a torn one only once it is complete), and returns nil on cancel.
// On the disk it waits with fsnotify, on Mem it polls.
func TestFollow(t *testing.T) {
	filesystems(t, func(t *testing.T, fsys vfs.FS) {
		w, _, err := OpenWriter(fsys, "j.jsonl", Options{})
		if err != nil {
			t.Fatal(err)
		}
		skip := newItem(0, "before from")
		if err := w.Append(skip); err != nil {
			t.Fatal(err)
		}
		from := w.Size()
		first := newItem(1, "there already")
		if err := w.Append(first); err != nil {
			t.Fatal(err)
		}
		w.Close()

		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		lines := make(chan string)
		done := make(chan error, 1)
		go func() {
			done <- Follow(ctx, fsys, "j.jsonl", from, func(l []byte) error {
				s := string(l) // l is only valid during the call
				select {
				case lines <- s:
				case <-ctx.Done():
				}
				return nil
			})
		}()
		expect := func(want string) {
			t.Helper()
			select {
			case got := <-lines:
				if got != want {
					t.Fatalf("Follow yielded %s, want %s", got, want)
				}
			case err := <-done:
				t.Fatalf("Follow returned %v before yielding %s", err, want)
			case <-hang(t):
				t.Fatalf("Follow did not yield %s before the test's deadline", want)
			}
		}
		expect(marshal(t, first))

		// Another writer appends.
		w2, _, err := OpenWriter(fsys, "j.jsonl", Options{})
		if err != nil {
			t.Fatal(err)
		}
		second := newItem(2, "appended later")
		if err := w2.Append(second); err != nil {
			t.Fatal(err)
		}
		expect(marshal(t, second))

		// A line written in two parts, and a bad line, between good ones.
		third := marshal(t, newItem(3, "in two parts"))
		raw, err := fsys.OpenFile("j.jsonl", os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := raw.Write([]byte("garbage\n" + third[:10])); err != nil {
			t.Fatal(err)
		}
		if _, err := raw.Write([]byte(third[10:] + "\n")); err != nil {
			t.Fatal(err)
		}
		raw.Close()
		expect(third)
		fourth := newItem(4, "last")
		if err := w2.Append(fourth); err != nil {
			t.Fatal(err)
		}
		expect(marshal(t, fourth))
		w2.Close()

		cancel()
		if err := <-done; err != nil {
			t.Fatalf("Follow after cancel: %v", err)
		}
	})
}

// hang is closed shortly before the test's deadline (go test -timeout), so a
// Follow that never yields fails the test with a message instead of hanging
// it. It asserts no time of its own.
func hang(t *testing.T) <-chan time.Time {
	d, ok := t.Deadline()
	if !ok {
		return nil
	}
	return time.After(time.Until(d) - 5*time.Second)
}

// TestFollowMissing: a journal that does not exist yet is waited for, and
// its lines come once it is made; a cancel while waiting returns nil.
func TestFollowMissing(t *testing.T) {
	filesystems(t, func(t *testing.T, fsys vfs.FS) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		lines := make(chan string)
		done := make(chan error, 1)
		go func() {
			done <- Follow(ctx, fsys, "later.jsonl", 0, func(l []byte) error {
				s := string(l)
				select {
				case lines <- s:
				case <-ctx.Done():
				}
				return nil
			})
		}()
		w, _, err := OpenWriter(fsys, "later.jsonl", Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		if err := w.Append(newItem(1, "first")); err != nil {
			t.Fatal(err)
		}
		select {
		case got := <-lines:
			if !strings.Contains(got, `"first"`) {
				t.Fatalf("line %s", got)
			}
		case err := <-done:
			t.Fatalf("Follow returned before the journal was made: %v", err)
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("Follow after cancel: %v", err)
		}
	})
	// Cancelled while the journal is still missing.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := Follow(ctx, vfs.NewMem(), "nope.jsonl", 0, func([]byte) error { return nil }); err != nil {
		t.Fatalf("Follow of a missing journal, cancelled: %v", err)
	}
}

// TestFollowStops: an error from fn ends Follow and is returned.
func TestFollowStops(t *testing.T) {
	m := vfs.NewMem()
	putFile(t, m, "j.jsonl", []byte("{\"a\":1}\n{\"a\":2}\n"))
	n := 0
	stop := context.Canceled
	err := Follow(t.Context(), m, "j.jsonl", 0, func([]byte) error {
		n++
		if n == 2 {
			return stop
		}
		return nil
	})
	if err != stop || n != 2 {
		t.Fatalf("Follow = %v after %d lines", err, n)
	}
}
