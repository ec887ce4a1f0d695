package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cairn/engine/internal/remote"
	"cairn/internal/s3test"
)

// noClose keeps a test's bucket open across the syncs that close theirs.
type noClose struct{ remote.Bucket }

func (noClose) Close() error { return nil }

// faultMachines are two state folders over the remote at url, machine A
// reaching it through a Faulty bucket.
func faultMachines(t *testing.T, url string) (a, b *Store, fa *remote.Faulty, project string) {
	t.Helper()
	a, b, project = twoMachines(t, url,
		func(bk remote.Bucket) remote.Bucket { fa = remote.NewFaulty(bk); return fa },
		func(bk remote.Bucket) remote.Bucket { return bk })
	return a, b, fa, project
}

// twoMachines are two state folders over the remote at url, each reaching
// it through the bucket its wrap function makes.
func twoMachines(t *testing.T, url string, wrapA, wrapB func(remote.Bucket) remote.Bucket) (a, b *Store, project string) {
	t.Helper()
	project = t.TempDir()
	open := func(wrap func(remote.Bucket) remote.Bucket) *Store {
		s, err := Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		bk, err := remote.Open(context.Background(), url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { bk.Close() })
		wrapped := wrap(bk)
		s.remote.OpenBucket = func(context.Context, string) (remote.Bucket, error) { return noClose{wrapped}, nil }
		if err := s.AddRemote(context.Background(), "origin", url); err != nil {
			t.Fatal(err)
		}
		return s
	}
	return open(wrapA), open(wrapB), project
}

// sameSecond lists every key with one time, as a server whose listing
// gives whole seconds does for writes within one second.
type sameSecond struct{ remote.Bucket }

func (b sameSecond) List(ctx context.Context, prefix string, fn func(remote.Entry) error) error {
	return b.Bucket.List(ctx, prefix, func(e remote.Entry) error {
		e.ModTime = e.ModTime.Truncate(24 * time.Hour)
		return fn(e)
	})
}

// aSession writes a session of two turns on s, one with a payload object,
// and returns its id and its long text.
func aSession(t *testing.T, s *Store, project string) (string, string) {
	t.Helper()
	ctx := context.Background()
	w, _ := s.Workspace(project)
	sess := w.Create(SessionOptions{})
	long := strings.Repeat("payload ", 5000)
	sess.Append(ctx, Item{Type: User, Text: "first"})
	sess.Append(ctx, Item{Type: Assistant, Text: long})
	if err := sess.EndTurn(ctx, Turn{Model: "m"}); err != nil {
		t.Fatal(err)
	}
	id := sess.ID()
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	return id, long
}

// transcriptOn pulls on s and reads session id there.
func transcriptOn(t *testing.T, s *Store, project, id string) []Item {
	t.Helper()
	ctx := context.Background()
	if _, err := s.Sync(ctx, "", SyncOptions{}); err != nil {
		t.Fatalf("pull: %v", err)
	}
	w, _ := s.Workspace(project)
	sess, err := w.Open(ctx, id, SessionOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	return sess.Transcript()
}

// remoteKinds runs a test over file:// remotes and over the S3 server;
// newURL gives a new empty remote each time it is called.
func remoteKinds(t *testing.T, fn func(t *testing.T, newURL func(t *testing.T) string)) {
	t.Run("file", func(t *testing.T) {
		fn(t, func(t *testing.T) string { return "file://" + filepath.ToSlash(t.TempDir()) })
	})
	t.Run("s3", func(t *testing.T) {
		srv := s3test.Shared(t)
		fn(t, func(*testing.T) string { return srv.URL() })
	})
}

func TestSyncFaults(t *testing.T) { remoteKinds(t, syncFaults) }

func syncFaults(t *testing.T, newURL func(t *testing.T) string) {
	ctx := context.Background()
	t.Run("a segment uploaded twice", func(t *testing.T) {
		a, b, _, project := faultMachines(t, newURL(t))
		id, long := aSession(t, a, project)
		if _, err := a.Sync(ctx, "", SyncOptions{}); err != nil {
			t.Fatal(err)
		}
		// The state of what went up is lost (a crash before it was
		// saved): the next push offers every segment again.
		os.RemoveAll(filepath.Join(a.Home(), "remotes"))
		rep, err := a.Sync(ctx, "", SyncOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Pushed.ObjectsThere == 0 || !strings.Contains(strings.Join(rep.Notes, "\n"), "on the remote already") {
			t.Fatalf("a second upload of the same segments said nothing: %+v %v", rep.Pushed, rep.Notes)
		}
		got := transcriptOn(t, b, project, id)
		if len(got) != 2 || got[1].Text != long {
			t.Fatalf("after the double upload B reads %d items", len(got))
		}
	})
	t.Run("a push cut mid-object", func(t *testing.T) {
		a, b, fa, project := faultMachines(t, newURL(t))
		id, long := aSession(t, a, project)
		fa.Fail(remote.Rule{Op: "put", Prefix: "objects/", Times: 1, Cut: true})
		if _, err := a.Sync(ctx, "", SyncOptions{}); err == nil {
			t.Fatal("a push cut mid-object reported success")
		}
		// No segment naming the object went up before the object.
		if rep, err := b.Sync(ctx, "", SyncOptions{}); err != nil || rep.Pulled.Segments != 0 {
			t.Fatalf("B pulled %+v after a cut push (%v): a line went up before its object", rep, err)
		}
		if _, err := a.Sync(ctx, "", SyncOptions{}); err != nil {
			t.Fatalf("the push after the cut: %v", err)
		}
		got := transcriptOn(t, b, project, id)
		if len(got) != 2 || got[1].Text != long || got[1].Unavailable != nil {
			t.Fatalf("after the cut and a retry B reads %d items", len(got))
		}
	})
	t.Run("a server that refuses, then one that goes away mid-push", func(t *testing.T) {
		a, b, fa, project := faultMachines(t, newURL(t))
		id, long := aSession(t, a, project)
		fa.Fail(remote.Rule{Err: remote.ErrRefused})
		_, err := a.Sync(ctx, "", SyncOptions{})
		if !errors.Is(err, remote.ErrRefused) {
			t.Fatalf("a refusing server: %v", err)
		}
		fa.Heal()
		fa.Fail(remote.Rule{Op: "put", Prefix: "journals/", Skip: 1})
		if _, err := a.Sync(ctx, "", SyncOptions{}); !errors.Is(err, remote.ErrGone) {
			t.Fatalf("a server gone mid-push: %v", err)
		}
		fa.Heal()
		if _, err := a.Sync(ctx, "", SyncOptions{}); err != nil {
			t.Fatal(err)
		}
		got := transcriptOn(t, b, project, id)
		if len(got) != 2 || got[1].Text != long {
			t.Fatalf("after the faults B reads %d items", len(got))
		}
		// A's own copy is whole throughout.
		if own := transcriptOn(t, a, project, id); len(own) != 2 {
			t.Fatalf("A's copy has %d items", len(own))
		}
	})
	t.Run("a push within the second of the last", func(t *testing.T) {
		// A's head is rewritten at the same size (only its number and time
		// change) and the listing B reads shows the same time: B still
		// reads what the second push named.
		a, b, project := twoMachines(t, newURL(t),
			func(bk remote.Bucket) remote.Bucket { return bk },
			func(bk remote.Bucket) remote.Bucket { return sameSecond{bk} })
		first, _ := aSession(t, a, project)
		if _, err := a.Sync(ctx, "", SyncOptions{}); err != nil {
			t.Fatal(err)
		}
		transcriptOn(t, b, project, first)
		second, long := aSession(t, a, project)
		if _, err := a.Sync(ctx, "", SyncOptions{}); err != nil {
			t.Fatal(err)
		}
		got := transcriptOn(t, b, project, second)
		if len(got) != 2 || got[1].Text != long {
			t.Fatalf("B missed A's second push: it reads %d items of the session it named", len(got))
		}
	})
	t.Run("two machines wrote one session", func(t *testing.T) {
		a, b, _, project := faultMachines(t, newURL(t))
		id, _ := aSession(t, a, project)
		a.Sync(ctx, "", SyncOptions{})
		transcriptOn(t, b, project, id)
		// Each writes a turn while the other cannot see it (the remote
		// was out of reach, so no lease was checked).
		for i, s := range []*Store{a, b} {
			w, _ := s.Workspace(project)
			s.remote.Err = errors.New("out of reach")
			sess, err := w.Open(ctx, id, SessionOptions{})
			if err != nil {
				t.Fatal(err)
			}
			sess.Append(ctx, Item{Type: User, Text: []string{"on A", "on B"}[i]})
			sess.EndTurn(ctx, Turn{Model: "m"})
			sess.Close()
		}
		if _, err := b.Sync(ctx, "", SyncOptions{}); err != nil {
			t.Fatal(err)
		}
		rep, err := a.Sync(ctx, "", SyncOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Skipped) == 0 || rep.Skipped[0].Session != id {
			t.Fatalf("a diverged session was not named: %+v", rep)
		}
		// Neither copy changed: A keeps its turn, B keeps its own.
		for i, s := range []*Store{a, b} {
			w, _ := s.Workspace(project)
			sess, err := w.Open(ctx, id, SessionOptions{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			tr := sess.Transcript()
			sess.Close()
			if len(tr) != 3 || tr[2].Text != []string{"on A", "on B"}[i] {
				t.Fatalf("machine %d's copy was changed: %d items", i, len(tr))
			}
		}
	})
}
