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

// TestPropBackToBackCrash: random runs of file writes and removals back to
// back, small (the new content in the change line, the folder's sync left
// to the end of the turn) and large (synced in the background) mixed, an
// end of turn (Commit) now and then, cut by a power loss at a random sync
// point (every call after it fails), the crash clean or keeping a random
// share of what was not synced. Opened again, the files hold every write
// that returned, but for the newest line's (its tool may have stopped
// before its write; on the background path the write before it with it):
// the first n or n-1 of the n that returned, or the n and the write the
// crash stopped (its line may be the newest, and its file as it left it). The owner lists what a reader
// lists, and undoing everything gives the initial files back.
// PROP_BTB_SEEDS (default 150) sets how many runs.
func TestPropBackToBackCrash(t *testing.T) {
	seeds := propEnvInt("PROP_BTB_SEEDS", 150)
	first, last := 0, seeds
	if one := propEnvInt("PROP_SEED", -1); one >= 0 {
		first, last = one, one+1
	}
	dir := t.TempDir()
	failed := 0
	for seed := first; seed < last; seed++ {
		if !t.Run(fmt.Sprint(seed), func(t *testing.T) { propBackToBack(t, dir, uint64(seed)) }) {
			if failed++; failed >= 5 {
				t.Fatalf("stopping after %d failing seeds", failed)
			}
		}
	}
}

func propBackToBack(t *testing.T, dir string, seed uint64) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(seed, 0xb7b))
	mem := vfs.NewMem()
	wsfs := WithWorkspaceFS(func(string) (vfs.FS, error) { return mem, nil })
	st := must(OpenFS(mem, "/mem", wsfs))(t)
	ws := must(st.Workspace(dir))(t)
	files := propFiles[:3]
	initial := propSeed(t, mem, r, func(f string) string { return "initial " + f }) // prop_test.go
	s := ws.Create(SessionOptions{})
	must(s.Append(ctx, Item{Type: User, Text: "go"}))(t)
	must(0, s.EndTurn(ctx, Turn{}))(t)
	id := s.ID()
	models := []propState{initial} // the files after each write that returned
	var underway propState         // the files had the write the crash stopped been made
	var trace []string
	fail := func(format string, a ...any) {
		t.Helper()
		t.Fatalf("seed %d: %s\ntrace:\n  %s", seed, fmt.Sprintf(format, a...), strings.Join(trace, "\n  "))
	}
	point := r.IntN(40)
	mem.FailAfterSyncs(point)
	for i := range 20 {
		f := files[r.IntN(len(files))]
		cur := models[len(models)-1]
		next := propState{}
		for k, v := range cur {
			next[k] = v
		}
		var op string
		var err error
		switch k := r.IntN(10); {
		case k < 6:
			c := fmt.Sprintf("v%d of %s\n", i, f)
			op = "write " + f
			next[f] = c
			_, err = s.ToolWrite(ctx, f, []byte(c))
		case k < 8:
			c := strings.Repeat(fmt.Sprintf("big %d of %s ", i, f), 1500) // > 16 KiB: not in the line
			op = "write big " + f
			next[f] = c
			_, err = s.ToolWrite(ctx, f, []byte(c))
		case k < 9:
			op = "rm " + f
			delete(next, f)
			_, err = s.ToolRm(ctx, f)
			if _, ok := cur[f]; !ok && err != nil && !errors.Is(err, vfs.ErrCrashed) {
				err = nil // nothing to remove: refused, nothing changed
				next = nil
			}
		default:
			op = "commit"
			next = nil
			err = s.Commit(ctx)
		}
		trace = append(trace, fmt.Sprintf("%d: %s -> %v", i, op, err))
		if err != nil {
			if !errors.Is(err, vfs.ErrCrashed) {
				fail("%s: %v", op, err)
			}
			underway = next
			break
		}
		if next != nil {
			models = append(models, next)
		}
	}
	if r.IntN(2) == 0 {
		mem.Crash()
		trace = append(trace, fmt.Sprintf("crash at sync point %d", point))
	} else {
		mem.CrashPartial(rand.New(rand.NewPCG(seed, 7)))
		trace = append(trace, fmt.Sprintf("partial crash at sync point %d", point))
	}
	s.Close()
	st.Close()
	st = must(OpenFS(mem, "/mem", wsfs))(t)
	defer st.Close()
	ws = must(st.Workspace(dir))(t)
	reader, err := ws.Snapshots(ctx, id)
	if err != nil {
		fail("reader: %v", err)
	}
	s, err = ws.Open(ctx, id, SessionOptions{})
	if err != nil {
		fail("open after crash: %v", err)
	}
	defer func() { s.Close() }()
	got := propSnap(t, mem)
	n := len(models) - 1
	if got.String() != models[n].String() && (n == 0 || got.String() != models[n-1].String()) && (underway == nil || got.String() != underway.String()) {
		fail("opened again, the files are %s; %d writes returned: want %s or, the newest lost, %s, or, the one under way made, %s",
			got, n, models[n], models[max(n-1, 0)], underway)
	}
	owner := must(s.Snapshots(ctx))(t)
	if propList(owner) != propList(reader) {
		fail("after crash: reader lists %s, owner %s", propList(reader), propList(owner))
	}
	for {
		if _, err := s.Undo(ctx); err != nil {
			if !errors.Is(err, ErrRefused) {
				fail("final undo: %v", err)
			}
			break
		}
	}
	if got := propSnap(t, mem); got.String() != initial.String() {
		fail("after crash and undoing everything: files %s, initial %s", got, initial)
	}
}
