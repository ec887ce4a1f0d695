package reliability

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"cairn/engine"
	"cairn/internal/vfs"
	"cairn/journal"
)

// script is a deterministic sequence of engine operations on one store. It
// records what was acknowledged: what a caller was told is durable.
type script struct {
	r     *rand.Rand
	ws    *engine.Workspace
	sess  *engine.Session
	acked map[string][]string // session -> item texts acknowledged, in order
	turns map[string]int      // session -> turns acknowledged (each with spend)
	ids   []string
	forks []string
	big   string
}

func newScript(seed uint64, ws *engine.Workspace) *script {
	return &script{r: rand.New(rand.NewPCG(seed, seed)), ws: ws, acked: map[string][]string{}, turns: map[string]int{},
		big: strings.Repeat("a payload big enough to be stored as an object\n", 500)}
}

// run performs n operations and stops at the first error (the simulated
// crash). pending holds texts appended but not yet acknowledged.
func (s *script) run(ctx context.Context, n int) error {
	var pending []string
	for i := range n {
		if s.sess == nil {
			s.sess = s.ws.Create(engine.SessionOptions{})
			pending = nil
		}
		switch op := s.r.IntN(10); {
		case op < 4:
			text := fmt.Sprintf("prompt %d", i)
			if s.r.IntN(4) == 0 {
				text = fmt.Sprintf("%d %s", i, s.big)
			}
			if _, err := s.sess.Append(ctx, engine.Item{Type: engine.User, Text: text}); err != nil {
				return err
			}
			pending = append(pending, text)
		case op < 7:
			if _, err := s.sess.Append(ctx, engine.Item{Type: engine.Assistant, Text: fmt.Sprintf("answer %d", i)}); err != nil {
				return err
			}
			pending = append(pending, fmt.Sprintf("answer %d", i))
			// A turn syncs its items journal only: its trail and usage
			// lines are put back from it after a crash.
			if err := s.sess.EndTurn(ctx, engine.Turn{Labels: []string{"turn"}, Model: "m", Spend: engine.Spend{InputTokens: int64(i)}}); err != nil {
				return err
			}
			s.ack(pending)
			s.turns[s.sess.ID()]++
			pending = nil
		case op < 8:
			if !s.sess.Recorded() {
				continue
			}
			if err := s.sess.Rename(ctx, fmt.Sprintf("name %d", i)); err != nil {
				return err
			}
			s.ack(pending)
			pending = nil
		case op < 9:
			if !s.sess.Recorded() || len(s.sess.Transcript()) == 0 {
				continue
			}
			if err := s.sess.Commit(ctx); err != nil {
				return err
			}
			s.ack(pending)
			pending = nil
			res, err := s.sess.Fork(ctx, "")
			if err != nil {
				return err
			}
			s.forks = append(s.forks, res.Session)
		default:
			if err := s.sess.Close(); err != nil {
				return err
			}
			if s.sess.Recorded() {
				s.ack(pending)
			}
			s.sess, pending = nil, nil
		}
	}
	return nil
}

func (s *script) ack(texts []string) {
	id := s.sess.ID()
	if _, ok := s.acked[id]; !ok {
		s.ids = append(s.ids, id)
	}
	s.acked[id] = append(s.acked[id], texts...)
}

// check reopens the store after a crash and verifies every promise.
func (s *script) check(t *testing.T, fsys vfs.FS, dir string) {
	t.Helper()
	ctx := context.Background()
	store, err := engine.OpenFS(fsys, "/mem")
	if err != nil {
		t.Fatalf("reopen after crash: %v", err)
	}
	ws, err := store.Workspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range s.ids {
		v, err := ws.Read(ctx, id)
		if err != nil {
			t.Fatalf("acknowledged session %s lost: %v", id, err)
		}
		var got []string
		for _, it := range v.AllItems() {
			got = append(got, it.Text)
		}
		want := s.acked[id]
		if len(got) < len(want) {
			t.Fatalf("session %s: %d items survive, %d were acknowledged", id, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("session %s item %d = %.30q, acknowledged %.30q", id, i, got[i], want[i])
			}
		}
	}
	for _, id := range s.forks {
		if _, err := ws.Read(ctx, id); err != nil {
			t.Fatalf("acknowledged fork %s lost: %v", id, err)
		}
	}
	rep, err := store.Fsck(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Problems {
		// A record older than its journal is expected after a crash: it
		// is rebuilt on open. Anything else is a broken promise.
		if strings.Contains(p.Problem, "unreadable record") {
			continue
		}
		t.Errorf("after a crash: %s: %s", p.Path, p.Problem)
	}
	// Every session opens (records rebuilt, torn tails cut), and works.
	l, _, err := ws.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range l {
		sess, err := ws.Open(ctx, e.ID, engine.SessionOptions{})
		if err != nil {
			t.Fatalf("open %s after a crash: %v", e.ID, err)
		}
		if _, err := sess.Append(ctx, engine.Item{Type: engine.User, Text: "after"}); err != nil {
			t.Fatal(err)
		}
		if err := sess.Close(); err != nil {
			t.Fatal(err)
		}
	}
	// Every acknowledged turn has its trail line and its usage line, once,
	// when its session has been opened again (which puts back what a crash
	// lost of them).
	for _, id := range s.ids {
		sess, err := ws.Open(ctx, id, engine.SessionOptions{Notice: func(m string) { t.Error(m) }})
		if err != nil {
			t.Fatalf("open %s after a crash: %v", id, err)
		}
		if err := sess.Close(); err != nil {
			t.Fatal(err)
		}
	}
	usage := map[string][]int{}
	if _, err := journal.Read(fsys, "usage.jsonl", func(b []byte) error {
		var u struct {
			Session     string
			Turn        int
			InputTokens int64 `json:"input_tokens"`
		}
		if json.Unmarshal(b, &u) == nil && u.Session != "" {
			usage[u.Session] = append(usage[u.Session], u.Turn)
		}
		return nil
	}); err != nil && s.turns != nil && len(s.turns) > 0 {
		t.Fatalf("usage ledger: %v", err)
	}
	for _, id := range s.ids {
		n := s.turns[id]
		var trail []int
		if _, err := ws.Trail(ctx, id, func(b []byte) error {
			var l struct {
				Kind string
				Turn int
			}
			if json.Unmarshal(b, &l) == nil && l.Kind == "turn" {
				trail = append(trail, l.Turn)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if !firstTurns(trail, n) {
			t.Fatalf("session %s: %d turns acknowledged, trail holds turns %v", id, n, trail)
		}
		if !firstTurns(usage[id], n) {
			t.Fatalf("session %s: %d turns acknowledged, usage ledger holds turns %v", id, n, usage[id])
		}
	}
}

// firstTurns reports whether got begins with turns 1..n, each once (a turn
// that was not acknowledged may follow).
func firstTurns(got []int, n int) bool {
	seen := map[int]int{}
	for _, x := range got {
		seen[x]++
	}
	for i := 1; i <= n; i++ {
		if seen[i] != 1 {
			return false
		}
	}
	return true
}

const powerOps = 40

// TestPowerLossAtEverySyncPoint runs the script and cuts the power at each
// sync point in turn: after the crash, every acknowledged operation is there
// and nothing names an object that is missing.
func TestPowerLossAtEverySyncPoint(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	seeds := []uint64{1, 2}
	if *long {
		seeds = []uint64{1, 2, 3, 4, 5, 6, 7, 8}
	}
	points := 0
	for _, seed := range seeds {
		// A dry run counts the sync points.
		mem := vfs.NewMem()
		store, err := engine.OpenFS(mem, "/mem")
		if err != nil {
			t.Fatal(err)
		}
		ws, _ := store.Workspace(dir)
		if err := newScript(seed, ws).run(ctx, powerOps); err != nil {
			t.Fatal(err)
		}
		total := mem.Syncs()
		for k := 0; k <= total; k++ {
			mem := vfs.NewMem()
			store, err := engine.OpenFS(mem, "/mem")
			if err != nil {
				t.Fatal(err)
			}
			ws, _ := store.Workspace(dir)
			s := newScript(seed, ws)
			mem.FailAfterSyncs(k)
			err = s.run(ctx, powerOps)
			if err != nil && !errors.Is(err, vfs.ErrCrashed) {
				t.Fatalf("seed %d crash point %d: %v", seed, k, err)
			}
			mem.Crash()
			mem.FailAfterSyncs(-1)
			t.Run(fmt.Sprintf("seed%d/sync%d", seed, k), func(t *testing.T) { s.check(t, mem, dir) })
			points++
		}
	}
	t.Logf("crash points tried: %d", points)
}

// TestPowerLossPartial crashes at random sync points keeping a random share
// of the unsynced changes.
func TestPowerLossPartial(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	n := 30
	if *long {
		n = 400
	}
	for i := range n {
		seed := uint64(100 + i)
		r := rand.New(rand.NewPCG(seed, 7))
		mem := vfs.NewMem()
		store, err := engine.OpenFS(mem, "/mem")
		if err != nil {
			t.Fatal(err)
		}
		ws, _ := store.Workspace(dir)
		s := newScript(seed, ws)
		mem.FailAfterSyncs(r.IntN(120))
		if err := s.run(ctx, powerOps); err != nil && !errors.Is(err, vfs.ErrCrashed) {
			t.Fatal(err)
		}
		mem.CrashPartial(r)
		mem.FailAfterSyncs(-1)
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) { s.check(t, mem, dir) })
	}
}
