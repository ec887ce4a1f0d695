package engine

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"cairn/internal/vfs"
)

// TestFileRevertCrashAtEverySync stops a file revert (both halves) at
// every sync point in turn, crashes (cleanly, and for some seeds with a
// random share of the unsynced changes surviving), and opens the session
// again: every file holds either what it held before the revert or what
// the revert put, never a mix; a revert that completed is kept; one that
// stopped is settled from its lines and files — adopted with a notice when
// every file was put, else pending and unfinished (a new revert refused,
// unrevert putting back what it changed); unrevert then gives back every
// file as before; fsck is clean.
func TestFileRevertCrashAtEverySync(t *testing.T) {
	ctx := context.Background()
	big := strings.Repeat("forty thousand bytes, an object. ", 1250)
	before := map[string]string{"a.txt": "a0", "b.bin": big + "0", "c.txt": "c0", "d/new.txt": "<none>", "mine.txt": "mine"}
	after := map[string]string{"a.txt": "a1", "b.bin": big + "1", "c.txt": "<none>", "d/new.txt": "made", "mine.txt": "mine"}
	points, adopted, pending, none := 0, 0, 0, 0
	for n := 0; ; n++ {
		completed := false
		for seed := range 3 {
			e := newRvEnv(t)
			for p, c := range before {
				if c != "<none>" {
					e.hand(p, c)
				}
			}
			e.mem.MkdirAll("d", 0o755)
			p := e.prompt("go")
			e.write("", "a.txt", "a1")
			e.write("", "b.bin", big+"1")
			e.rm("", "c.txt")
			e.write("", "d/new.txt", "made")
			if err := e.s.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			for _, d := range []string{".", "d"} {
				if err := e.mem.SyncDir(d); err != nil {
					t.Fatal(err)
				}
			}
			head := e.s.Head()
			e.mem.FailAfterSyncs(n)
			_, err := e.s.Revert(ctx, p.ID, RevertBoth)
			if err != nil && !errors.Is(err, vfs.ErrCrashed) {
				t.Fatalf("sync point %d: %v", n, err)
			}
			completed = err == nil
			if seed == 0 {
				e.mem.Crash()
			} else {
				e.mem.CrashPartial(rand.New(rand.NewPCG(uint64(n), uint64(seed))))
			}
			e.s.files.Wait()
			r0 := must(e.ws.timeline(e.s.ID()))(t).Newest()
			settled := r0 != nil && r0.Done // before the open: nothing to settle
			var notices []string
			e.reopen(SessionOptions{Notice: func(m string) { notices = append(notices, m) }})
			where := fmt.Sprintf("sync point %d seed %d", n, seed)
			reverted := 0
			for p := range before {
				switch got := e.file(p); {
				case got == after[p]:
				case got == before[p]:
					if before[p] != after[p] {
						reverted++
					}
				default:
					t.Fatalf("%s: %s holds %.20q, neither before nor after the revert", where, p, got)
				}
			}
			if completed && seed == 0 && reverted != 4 {
				t.Fatalf("%s: a completed revert was lost (%d files reverted)", where, reverted)
			}
			tl := must(e.ws.timeline(e.s.ID()))(t)
			r := tl.Newest()
			switch {
			case r == nil:
				none++
				if reverted != 0 {
					t.Fatalf("%s: %d files reverted with no revert line", where, reverted)
				}
			case !r.Unfinished():
				adopted++
				if reverted != 4 {
					t.Fatalf("%s: a finished revert reverted %d files", where, reverted)
				}
				if !settled && !strings.Contains(strings.Join(notices, "\n"), "adopted") {
					t.Fatalf("%s: adopted with no notice: %v", where, notices)
				}
				if !completed && !settled && e.s.Head() != head {
					t.Fatalf("%s: an adopted revert moved the head", where)
				}
			default:
				pending++
				if _, err := e.s.Revert(ctx, p.ID, RevertFiles); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "did not finish") {
					t.Fatalf("%s: a revert after an unfinished one: %v", where, err)
				}
			}
			if r != nil {
				must(e.s.Unrevert(ctx))(t)
			}
			e.want(after)
			if e.s.Head() != head {
				t.Fatalf("%s: head %s after unrevert, want %s", where, e.s.Head(), head)
			}
			must(e.s.Revert(ctx, p.ID, RevertFiles))(t)
			e.want(before)
			if rep := must(e.st.Fsck(ctx))(t); len(rep.Problems) != 0 {
				t.Fatalf("%s: fsck: %+v", where, rep.Problems)
			}
			if completed {
				break
			}
		}
		if completed {
			break
		}
		points++
		if n > 200 {
			t.Fatal("the revert never completed")
		}
	}
	if points < 3 || pending == 0 || adopted == 0 {
		t.Fatalf("%d sync points: %d adopted, %d pending, %d never started", points, adopted, pending, none)
	}
	t.Logf("%d sync points: %d adopted, %d pending, %d never started", points, adopted, pending, none)
}

// TestFileUnrevertCrashAtEverySync stops an unrevert at every sync point:
// after the next open every file is either as the revert left it or put
// back, never a mix of a file; an unrevert whose line was durable is
// finished by that open (every file put back), one whose line was not
// never started, and the revert is still there to unrevert.
func TestFileUnrevertCrashAtEverySync(t *testing.T) {
	ctx := context.Background()
	big := strings.Repeat("forty thousand bytes, an object. ", 1250)
	reverted := map[string]string{"a.txt": "a0", "b.bin": big + "0", "c.txt": "c0", "d/new.txt": "<none>"}
	back := map[string]string{"a.txt": "a1", "b.bin": big + "1", "c.txt": "<none>", "d/new.txt": "made"}
	points, finished := 0, 0
	for n := 0; ; n++ {
		e := newRvEnv(t)
		for p, c := range reverted {
			if c != "<none>" {
				e.hand(p, c)
			}
		}
		e.mem.MkdirAll("d", 0o755)
		p := e.prompt("go")
		e.write("", "a.txt", "a1")
		e.write("", "b.bin", big+"1")
		e.rm("", "c.txt")
		e.write("", "d/new.txt", "made")
		must(e.s.Revert(ctx, p.ID, RevertFiles))(t)
		for _, d := range []string{".", "d"} {
			e.mem.SyncDir(d)
		}
		e.mem.FailAfterSyncs(n)
		_, err := e.s.Unrevert(ctx)
		if err != nil && !errors.Is(err, vfs.ErrCrashed) {
			t.Fatalf("sync point %d: %v", n, err)
		}
		completed := err == nil
		e.mem.Crash()
		e.s.files.Wait()
		tl0 := must(e.ws.timeline(e.s.ID()))(t)
		started := !tl0.Pending()
		e.reopen(SessionOptions{})
		where := fmt.Sprintf("sync point %d", n)
		for p := range reverted {
			if got := e.file(p); got != reverted[p] && got != back[p] {
				t.Fatalf("%s: %s holds %.20q", where, p, got)
			}
		}
		if started {
			finished++
			e.want(back)
		} else {
			e.want(reverted)
			must(e.s.Unrevert(ctx))(t)
			e.want(back)
		}
		if rep := must(e.st.Fsck(ctx))(t); len(rep.Problems) != 0 {
			t.Fatalf("%s: fsck: %+v", where, rep.Problems)
		}
		e.s.Close()
		e.st.Close()
		if completed {
			break
		}
		points++
		if n > 100 {
			t.Fatal("the unrevert never completed")
		}
	}
	if points < 2 || finished == 0 {
		t.Fatalf("%d sync points, %d finished by the next open", points, finished)
	}
}

// TestFileRevertEndsAnUnfinishedRedo: a file revert's line says every
// step before it was made, as a close line does, so the next open after a
// crash does not finish a redo before it again over the reverted file.
func TestFileRevertEndsAnUnfinishedRedo(t *testing.T) {
	ctx := context.Background()
	e := newRvEnv(t)
	e.hand("a.txt", "A")
	e.prompt("one")
	e.write("", "a.txt", "B")
	p2 := e.prompt("two")
	e.write("", "a.txt", "C")
	must(e.s.Undo(ctx))(t)
	must(e.s.Redo(ctx))(t)
	must(e.s.Revert(ctx, p2.ID, RevertFiles))(t)
	e.want(map[string]string{"a.txt": "B"})
	e.mem.Crash() // no close line
	e.reopen(SessionOptions{})
	e.want(map[string]string{"a.txt": "B"})
}
