package engine

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"cairn/engine/internal/remote"
	"cairn/internal/vfs"
)

// oneTurn opens session id of project, adds a turn and closes it.
func oneTurn(t *testing.T, s *Store, project, id, text string) {
	t.Helper()
	ctx := context.Background()
	w, _ := s.Workspace(project)
	sess, err := w.Open(ctx, id, SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sess.Append(ctx, Item{Type: User, Text: text})
	if err := sess.EndTurn(ctx, Turn{Model: "m"}); err != nil {
		t.Fatal(err)
	}
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
}

func mustSync(t *testing.T, s *Store, want int, what string) {
	t.Helper()
	rep, err := s.Sync(context.Background(), "", SyncOptions{})
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if rep.Pushed.Sessions != want {
		t.Fatalf("%s pushed %d sessions, want %d", what, rep.Pushed.Sessions, want)
	}
}

// TestSyncWatchesHeldSessions: a session a writer holds when a push looks
// at it is looked at again by the next push, though its later turns add
// no line to the record of changed sessions (it is noted once, when
// taken); so is one taken before any remote was set, which has no line at
// all. Once let go and pushed, it is looked at no more.
func TestSyncWatchesHeldSessions(t *testing.T) {
	ctx := context.Background()
	for _, before := range []bool{false, true} {
		s, err := Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		project := t.TempDir()
		url := "file://" + filepath.ToSlash(t.TempDir())
		if !before {
			if err := s.AddRemote(ctx, "origin", url); err != nil {
				t.Fatal(err)
			}
		}
		w, _ := s.Workspace(project)
		sess := w.Create(SessionOptions{})
		sess.Append(ctx, Item{Type: User, Text: "first"})
		if err := sess.EndTurn(ctx, Turn{Model: "m"}); err != nil {
			t.Fatal(err)
		}
		if before {
			if err := s.AddRemote(ctx, "origin", url); err != nil {
				t.Fatal(err)
			}
		}
		mustSync(t, s, 1, "the push while it is open")
		for i := range 2 {
			sess.Append(ctx, Item{Type: User, Text: fmt.Sprint("turn ", i)})
			if err := sess.EndTurn(ctx, Turn{Model: "m"}); err != nil {
				t.Fatal(err)
			}
			mustSync(t, s, 1, fmt.Sprintf("(taken before the remote: %v) the push after turn %d", before, i))
		}
		sess.Append(ctx, Item{Type: User, Text: "last"})
		if err := sess.EndTurn(ctx, Turn{Model: "m"}); err != nil {
			t.Fatal(err)
		}
		if err := sess.Close(); err != nil {
			t.Fatal(err)
		}
		mustSync(t, s, 1, "the push after it was let go")
		st, err := remote.LoadState(s.fsys, "origin", url)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Watch) != 0 {
			t.Errorf("a session let go and pushed is still watched: %v", st.Watch)
		}
	}
}

// TestSyncWithTheRecordLostListsEverySession: with the record of changed
// sessions removed, the next push lists every session and finds the turn
// made since; a push whose position names a file that is there again
// under another number does the same.
func TestSyncWithTheRecordLostListsEverySession(t *testing.T) {
	ctx := context.Background()
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.AddRemote(ctx, "origin", "file://"+filepath.ToSlash(t.TempDir())); err != nil {
		t.Fatal(err)
	}
	project := t.TempDir()
	a, _ := aSession(t, s, project)
	b, _ := aSession(t, s, project)
	mustSync(t, s, 2, "the first push")
	oneTurn(t, s, project, a, "one more")
	if err := os.RemoveAll(filepath.Join(s.Home(), "remotes", "changed")); err != nil {
		t.Fatal(err)
	}
	oneTurn(t, s, project, b, "and one here") // a line in a record begun again
	mustSync(t, s, 2, "the push after the record was lost")
	oneTurn(t, s, project, a, "again")
	mustSync(t, s, 1, "the push after that")
}

// TestSyncRecordCrashAtEverySyncPoint: after a first push, a turn in one
// session is stopped at each sync point of the state folder and the power
// lost there, every unsynced change surviving or not at random. The next
// push from the state folder as the crash left it sends every whole line
// of the session's journal that survived: a second machine pulls exactly
// those. The record of changed sessions is written before the session's
// journals, so no change survives that a push would not look at.
func TestSyncRecordCrashAtEverySyncPoint(t *testing.T) {
	ctx := context.Background()
	project := t.TempDir()
	for n := 0; ; n++ {
		completed := false
		for seed := range uint64(3) {
			where := fmt.Sprintf("sync point %d seed %d", n, seed)
			mem := vfs.NewMem()
			wsfs := WithWorkspaceFS(func(string) (vfs.FS, error) { return mem, nil })
			url := "file://" + filepath.ToSlash(t.TempDir())
			bk, err := remote.Open(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			open := func(s *Store) *Store {
				s.remote.OpenBucket = func(context.Context, string) (remote.Bucket, error) { return noClose{bk}, nil }
				return s
			}
			a := open(must(OpenFS(mem, "/mem", wsfs))(t))
			if err := a.AddRemote(ctx, "origin", url); err != nil {
				t.Fatal(err)
			}
			other, _ := aSession(t, a, project)
			id, _ := aSession(t, a, project)
			mustSync(t, a, 2, where+": the first push")
			wsdir := must(a.Workspace(project))(t).dir
			mem.FailAfterSyncs(n)
			err = func() error {
				w, err := a.Workspace(project)
				if err != nil {
					return err
				}
				sess, err := w.Open(ctx, id, SessionOptions{})
				if err != nil {
					return err
				}
				sess.Append(ctx, Item{Type: User, Text: "after the first push"})
				err = sess.EndTurn(ctx, Turn{Model: "m"})
				if cerr := sess.Close(); err == nil {
					err = cerr
				}
				return err
			}()
			completed = completed || err == nil
			mem.CrashPartial(rand.New(rand.NewPCG(seed, uint64(n))))
			a.Close()

			a = open(must(OpenFS(mem, "/mem", wsfs))(t))
			if _, err := a.Sync(ctx, "", SyncOptions{}); err != nil {
				t.Fatalf("%s: the push after the crash: %v", where, err)
			}
			here, err := vfs.ReadFile(mem, remote.LocalName(wsdir, id, remote.FileItems))
			if err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			here = here[:bytes.LastIndexByte(here, '\n')+1]
			a.Close()

			b := open(must(Open(t.TempDir()))(t))
			if err := b.AddRemote(ctx, "origin", url); err != nil {
				t.Fatal(err)
			}
			if _, err := b.Sync(ctx, "", SyncOptions{}); err != nil {
				t.Fatalf("%s: the pull: %v", where, err)
			}
			wb := must(b.Workspace(project))(t)
			there, err := vfs.ReadFile(b.fsys, remote.LocalName(wb.dir, id, remote.FileItems))
			if err != nil {
				t.Fatalf("%s: the pulled journal: %v", where, err)
			}
			if !bytes.Equal(there, here) {
				t.Fatalf("%s: the remote holds %d bytes of the session's journal, the state folder %d whole", where, len(there), len(here))
			}
			if _, err := vfs.ReadFile(b.fsys, remote.LocalName(wb.dir, other, remote.FileItems)); err != nil {
				t.Fatalf("%s: the other session was not pulled: %v", where, err)
			}
			b.Close()
			bk.Close()
		}
		if completed {
			return
		}
	}
}

// TestPullNotesNothing: the sessions a pull writes are not noted in the
// record of changed sessions (they came from the remote), so a first pull
// of many sessions adds no line a session, and the push after it looks at
// none of them.
func TestPullNotesNothing(t *testing.T) {
	ctx := context.Background()
	url := "file://" + filepath.ToSlash(t.TempDir())
	a, b, project := twoMachines(t, url, func(bk remote.Bucket) remote.Bucket { return bk }, func(bk remote.Bucket) remote.Bucket { return bk })
	for range 3 {
		aSession(t, a, project)
	}
	mustSync(t, a, 3, "the push from the first machine")
	mustSync(t, b, 0, "the first sync of the second machine")
	rep, err := b.Sync(ctx, "", SyncOptions{})
	if err != nil || rep.Pushed.Sessions != 0 {
		t.Fatalf("the sync after the pull: %+v, %v", rep, err)
	}
	ents, _ := os.ReadDir(filepath.Join(b.Home(), "remotes", "changed"))
	for _, e := range ents {
		if info, _ := e.Info(); info != nil && info.Size() > 0 {
			b, _ := os.ReadFile(filepath.Join(b.Home(), "remotes", "changed", e.Name()))
			t.Errorf("the pull noted sessions: %s", b)
		}
	}
}
