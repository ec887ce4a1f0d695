package reliability

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"cairn/engine"
	"cairn/engine/retention"
	"cairn/internal/vfs"
)

// The sweep's crash round: a state folder with sessions to trim, to forget
// and a forgotten one to purge, a sweep cut by a power loss at each of its
// sync points in turn (and at random points keeping a random share of the
// unsynced changes), then the state after the crash is checked (every
// session in exactly one place, nothing damaged, the usage ledger as it
// was) and a second sweep must reach the same state as a sweep never cut.

type sweepEnv struct {
	mem   *vfs.Mem
	store *engine.Store
	dir   string
	mu    sync.Mutex
	now   time.Time
	ids   []string // made in order, one day apart; ids[0] forgotten first
}

func (e *sweepEnv) clock() time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.now
}

func (e *sweepEnv) advance(d time.Duration) {
	e.mu.Lock()
	e.now = e.now.Add(d)
	e.mu.Unlock()
}

func (e *sweepEnv) open(t *testing.T) {
	t.Helper()
	s, err := engine.OpenFS(e.mem, "/mem", engine.WithClock(e.clock))
	if err != nil {
		t.Fatal(err)
	}
	e.store = s
}

func (e *sweepEnv) ws(t *testing.T) *engine.Workspace {
	t.Helper()
	ws, err := e.store.Workspace(e.dir)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

var sweepCfg = func() engine.Config {
	c := engine.DefaultConfig()
	c.Storage.Trim = retention.Policy{Last: 4}
	c.Storage.Forget = retention.Policy{Last: 2}
	return c
}

// newSweepEnv makes six sessions a day apart, each with a payload object,
// a tool output, shell history and a turn with spend, the first with a
// file tool's pre-image too; forgets the first; and moves the clock eight
// days on, so the sweep trims one, forgets three and purges the first.
func newSweepEnv(t *testing.T) *sweepEnv {
	t.Helper()
	ctx := context.Background()
	e := &sweepEnv{mem: vfs.NewMem(), dir: t.TempDir(), now: time.Now().Add(time.Hour).UTC().Truncate(time.Millisecond)}
	e.mem.SetClock(e.clock)
	if err := e.mem.MkdirAll("workspaces", vfs.DirPerm); err != nil {
		t.Fatal(err)
	}
	e.mem.SyncDir(".")
	e.open(t)
	ws := e.ws(t)
	for i := range 6 {
		s := ws.Create(engine.SessionOptions{})
		steps := []func() error{
			func() error {
				_, err := s.Append(ctx, engine.Item{Type: engine.User, Text: fmt.Sprintf("prompt %d", i)})
				return err
			},
			func() error {
				_, err := s.Append(ctx, engine.Item{Type: engine.Assistant, Text: fmt.Sprintf("%d %s", i, strings.Repeat("a payload kept as an object\n", 800))})
				return err
			},
			func() error {
				_, err := s.PutOutput(ctx, "grep", strings.NewReader(fmt.Sprintf("output %d", i)))
				return err
			},
			func() error {
				run, err := s.ShellStart(ctx, "make")
				if err == nil {
					err = run.Finish(ctx, 0, []byte("built"), nil)
				}
				return err
			},
			func() error {
				if i > 0 {
					return nil
				}
				_, err := s.ToolWrite(ctx, "a.txt", []byte(strings.Repeat("pre-image\n", 3000)))
				if err == nil {
					_, err = s.ToolWrite(ctx, "a.txt", []byte("after"))
				}
				return err
			},
			func() error {
				return s.EndTurn(ctx, engine.Turn{Model: "m", Spend: engine.Spend{InputTokens: 10, CostUSD: 0.25}})
			},
			s.Close,
		}
		for _, f := range steps {
			if err := f(); err != nil {
				t.Fatal(err)
			}
		}
		e.ids = append(e.ids, s.ID())
		e.advance(24 * time.Hour)
	}
	if _, err := e.store.RunRetention(ctx, engine.RetentionOptions{Action: engine.ActionForget, Sessions: e.ids[:1]}); err != nil {
		t.Fatal(err)
	}
	e.advance(8 * 24 * time.Hour)
	return e
}

// sweepState is what a sweep decides: the sessions listed with their
// tiers, and those in the trash, by their place in ids.
type sweepState struct {
	Listed map[int]string
	Trash  []int
}

func (e *sweepEnv) state(t *testing.T) sweepState {
	t.Helper()
	ctx := context.Background()
	st := sweepState{Listed: map[int]string{}}
	l, _, err := e.ws(t).List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range l {
		st.Listed[slices.Index(e.ids, s.ID)] = s.Tier
	}
	tr, err := e.store.TrashList(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range tr {
		st.Trash = append(st.Trash, slices.Index(e.ids, x.Session))
	}
	slices.Sort(st.Trash)
	return st
}

var oidIn = regexp.MustCompile(`"oid":"([0-9a-f]{64})"`)

// checkAfterCrash: every session is listed or in the trash, never in
// neither (the first may be purged), and once the trash is settled never
// in both; nothing fsck sees is damaged; every object a trash journal
// names is there; the usage ledger is as it was.
func (e *sweepEnv) checkAfterCrash(t *testing.T, usage []byte) {
	t.Helper()
	for settled := range 2 {
		if settled == 1 {
			if err := e.store.SettleTrash(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		st := e.state(t)
		for i := range e.ids {
			_, listed := st.Listed[i]
			trashed := slices.Contains(st.Trash, i)
			if listed && trashed && settled == 1 || !listed && !trashed && i > 0 {
				t.Errorf("session %d (settled %d): listed %v, in the trash %v", i, settled, listed, trashed)
			}
		}
	}
	st := e.state(t)
	rep, err := e.store.Fsck(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Problems {
		t.Errorf("fsck: %s: %s", p.Path, p.Problem)
	}
	ws := e.ws(t)
	for _, i := range st.Trash {
		id := e.ids[i]
		b, err := vfs.ReadFile(e.mem, path.Join("trash", id, "sessions", id+".items.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range oidIn.FindAllSubmatch(b, -1) {
			if _, err := e.mem.Stat(path.Join(strings.TrimPrefix(ws.Folder(), "/mem/"), "objects", string(m[1][:2]), string(m[1][2:]))); err != nil {
				if _, zerr := e.mem.Stat(path.Join(strings.TrimPrefix(ws.Folder(), "/mem/"), "objects", string(m[1][:2]), string(m[1][2:])+".zst")); zerr != nil {
					t.Errorf("trash session %s names object %s, which is gone", id, m[1])
				}
			}
		}
	}
	if got, _ := vfs.ReadFile(e.mem, "usage.jsonl"); string(got) != string(usage) {
		t.Errorf("usage ledger changed by the sweep:\n%s\nwas\n%s", got, usage)
	}
}

func TestSweepPowerLoss(t *testing.T) {
	ctx := context.Background()
	// The sweep never cut: what every cut sweep must end at.
	e := newSweepEnv(t)
	usage, _ := vfs.ReadFile(e.mem, "usage.jsonl")
	before := e.mem.Syncs()
	if _, err := e.store.Sweep(ctx, sweepCfg(), time.UTC); err != nil {
		t.Fatal(err)
	}
	total := e.mem.Syncs() - before
	want := e.state(t)
	if len(want.Listed) != 2 || len(want.Trash) != 3 {
		t.Fatalf("uncut sweep ended at %+v", want)
	}
	e.checkAfterCrash(t, usage)
	round := func(t *testing.T, k int, r *rand.Rand) {
		e := newSweepEnv(t)
		usage, _ := vfs.ReadFile(e.mem, "usage.jsonl")
		e.mem.FailAfterSyncs(k)
		if _, err := e.store.Sweep(ctx, sweepCfg(), time.UTC); err != nil && !errors.Is(err, vfs.ErrCrashed) {
			t.Fatalf("sweep: %v", err)
		}
		if r != nil {
			e.mem.CrashPartial(r)
		} else {
			e.mem.Crash()
		}
		e.store.Close()
		e.open(t)
		e.checkAfterCrash(t, usage)
		if _, err := e.store.Sweep(ctx, sweepCfg(), time.UTC); err != nil {
			t.Fatalf("sweep after the crash: %v", err)
		}
		if got := e.state(t); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("after the crash and a second sweep %+v, want %+v", got, want)
		}
		e.checkAfterCrash(t, usage)
	}
	step := 1
	if !*long {
		step = max(1, total/25) // every sync point with -long
	}
	for k := 0; k <= total; k += step {
		t.Run(fmt.Sprintf("sync%d", k), func(t *testing.T) { round(t, k, nil) })
	}
	n := 5
	if *long {
		n = 100
	}
	for i := range n {
		r := rand.New(rand.NewPCG(uint64(i), 15))
		k := r.IntN(total + 1)
		t.Run(fmt.Sprintf("partial%d-sync%d", i, k), func(t *testing.T) { round(t, k, r) })
	}
	t.Logf("sweep sync points: %d", total)
}
