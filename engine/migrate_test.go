package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"cairn/engine/internal/layout"
	"cairn/engine/internal/migrate"
	"cairn/internal/vfs"
)

// migrateFixture makes, in store s, two sessions in directory from (a long
// payload, a tool output, change records, turns on two models), one in
// directory to (a turn on m1), and ledger lines for from of a deleted
// session, an ephemeral run and a child directory. It returns the ids in
// from.
func migrateFixture(t *testing.T, s *Store, from, to string) []string {
	t.Helper()
	ctx := context.Background()
	wa := must(s.Workspace(from))(t)
	wb := must(s.Workspace(to))(t)
	big := strings.Repeat("a long prompt stored as an object\n", 1000)
	var ids []string
	for i, model := range []string{"m1", "m2"} {
		sess := wa.Create(SessionOptions{})
		must(sess.Append(ctx, Item{Type: User, Text: big + model}))(t)
		must(sess.ToolWrite(ctx, "f.txt", []byte(strings.Repeat("x", 20000+i))))(t)
		must(sess.ToolWrite(ctx, "f.txt", []byte("y")))(t)
		must(sess.PutOutput(ctx, "grep", strings.NewReader("output of "+model)))(t)
		// A sub-agent task whose transcript holds a payload object.
		task, call := must2(sess.StartTask(ctx, TaskStart{Description: "look around"}))(t)
		must(task.Append(ctx, Item{Type: Assistant, Text: big + "from the sub-agent"}))(t)
		must(sess.Append(ctx, Item{Type: ToolResult, Call: call.ID, Text: "looked"}))(t)
		noErr(t, sess.EndTurn(ctx, Turn{Model: model, Spend: Spend{InputTokens: 100, OutputTokens: 10, CostUSD: 0.5}}))
		noErr(t, sess.Close())
		ids = append(ids, sess.ID())
	}
	sb := wb.Create(SessionOptions{})
	must(sb.Append(ctx, Item{Type: User, Text: "at the destination"}))(t)
	noErr(t, sb.EndTurn(ctx, Turn{Model: "m1", Spend: Spend{InputTokens: 7, CostUSD: 0.25}}))
	noErr(t, sb.Close())
	w := must(s.writeUsage(
		usageLine{V: 1, Kind: "usage", At: mkTime(s.Now()), Path: wa.Path(), Session: "00000000-0000-4000-8000-00000000dead", Model: "m1", InputTokens: 1, CostUSD: 1},
		usageLine{V: 1, Kind: "usage", At: mkTime(s.Now()), Path: wa.Path(), Session: "00000000-0000-4000-8000-00000000beef", Model: "m3", InputTokens: 2, CostUSD: 2, Ephemeral: true},
		usageLine{V: 1, Kind: "usage", At: mkTime(s.Now()), Path: filepath.Join(wa.Path(), "child"), Session: "00000000-0000-4000-8000-00000000cafe", Model: "m1", InputTokens: 3, CostUSD: 3},
	))(t)
	noErr(t, w.Close())
	return ids
}

// usageBy sums the ledger by directory and model.
func usageBy(t *testing.T, s *Store) map[[2]string]UsageSum {
	t.Helper()
	out := map[[2]string]UsageSum{}
	for _, u := range must(s.Usage(context.Background()))(t) {
		out[[2]string{u.Path, u.Model}] = u
	}
	return out
}

func totalCost(m map[[2]string]UsageSum) (cost float64, turns int) {
	for _, u := range m {
		cost += u.CostUSD
		turns += u.Turns
	}
	return
}

// checkMoved: every session of ids is in to's workspace and not in from's,
// with its items (the payload too), its output, a changes journal that
// starts again, nothing to undo, and fsck finds nothing wrong.
func checkMoved(t *testing.T, s *Store, from, to string, ids []string) {
	t.Helper()
	ctx := context.Background()
	wb := must(s.Workspace(to))(t)
	l, _ := must2(wb.List(ctx))(t)
	for _, id := range ids {
		if !slices.ContainsFunc(l, func(e Summary) bool { return e.ID == id }) {
			t.Fatalf("session %s is not listed at the destination", id)
		}
		v := must(wb.Read(ctx, id))(t)
		if v.Record.Path != wb.Path() {
			t.Errorf("moved session %s says it belongs to %s", id, v.Record.Path)
		}
		if items := v.AllItems(); len(items) == 0 || !strings.HasPrefix(items[0].Text, "a long prompt") || items[0].Unavailable != nil {
			t.Errorf("moved session %s lost its payload: %+v", id, items)
		}
		sess := must(wb.Open(ctx, id, SessionOptions{}))(t)
		if _, err := sess.Undo(ctx); err == nil {
			t.Errorf("moved session %s undid a change made in the old directory", id)
		}
		noErr(t, sess.Close())
		// Its sub-agent task came along, transcript and payload.
		if tv, err := wb.ReadTask(ctx, id, "look-around"); err != nil {
			t.Errorf("moved session %s lost its task: %v", id, err)
		} else if tr := tv.Transcript(); len(tr) != 1 || !strings.HasSuffix(tr[0].Text, "from the sub-agent") || tr[0].Unavailable != nil {
			t.Errorf("moved session %s's task transcript: %+v", id, tr)
		}
		b := must(vfs.ReadFile(s.fsys, changesName(wb.dir, id)))(t)
		if !bytes.HasPrefix(b, []byte(`{"v":1,"kind":"start",`)) || !bytes.Contains(b, []byte(`"why":"moved"`)) {
			t.Errorf("moved session's changes journal does not start again: %s", b)
		}
		if src := s.workspaceOfPath(from); src != nil {
			for _, n := range []string{itemsName(src.dir, id), recordName(src.dir, id), changesName(src.dir, id), outputDir(src.dir, id), taskDir(src.dir, id)} {
				if _, err := s.fsys.Lstat(n); err == nil {
					t.Errorf("%s left behind", n)
				}
			}
		}
	}
	if ents, _ := s.fsys.ReadDir(layout.Moves); len(ents) > 0 {
		t.Errorf("plans left behind: %v", ents)
	}
	rep := must(s.Fsck(ctx))(t)
	for _, p := range rep.Problems {
		t.Errorf("fsck after a move: %s: %s", p.Path, p.Problem)
	}
}

func must2[A, B any](a A, b B, err error) func(testing.TB) (A, B) {
	return func(t testing.TB) (A, B) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return a, b
	}
}

// A whole-directory move from a directory that is gone: sessions moved with
// their conversations, usage reattributed for that exact directory (a
// deleted session's and an ephemeral run's included, a child directory's
// not), an overlapping bucket added to, the ledger's sums kept.
func TestMigrateWithUsage(t *testing.T) {
	ctx := context.Background()
	s, _ := testStore(t)
	from, to := filepath.Join(t.TempDir(), "old"), t.TempDir()
	noErr(t, os.Mkdir(from, 0o700))
	from = must(Canonical(from))(t)
	ids := migrateFixture(t, s, from, to)
	noErr(t, os.RemoveAll(from))
	before := usageBy(t, s)
	ledger := must(os.ReadFile(filepath.Join(s.Home(), usageName)))(t)

	res := must(s.MigrateSessions(ctx, from, to, MigrateOptions{}))(t)
	slices.Sort(ids)
	slices.Sort(res.Sessions)
	if !slices.Equal(res.Sessions, ids) {
		t.Fatalf("moved %v, want %v", res.Sessions, ids)
	}
	to = must(Canonical(to))(t)
	// Buckets of from: m1 (two sessions and a deleted one), m2, m3
	// (ephemeral); the destination had m1.
	if u := res.Usage; u == nil || u.Moved != 2 || u.Merged != 1 || u.Empty || u.Lines != 4 {
		t.Fatalf("usage move: %+v", res.Usage)
	}
	after := usageBy(t, s)
	for k := range after {
		if k[0] == from {
			t.Errorf("usage still attributed to %s: %+v", from, after[k])
		}
	}
	for _, m := range []string{"m1", "m2", "m3"} {
		want := before[[2]string{from, m}]
		had := before[[2]string{to, m}]
		got := after[[2]string{to, m}]
		if got.Turns != want.Turns+had.Turns || got.CostUSD != want.CostUSD+had.CostUSD || got.InputTokens != want.InputTokens+had.InputTokens {
			t.Errorf("model %s at the destination: %+v, want %+v plus %+v", m, got, want, had)
		}
	}
	if c := after[[2]string{filepath.Join(from, "child"), "m1"}]; c.CostUSD != 3 {
		t.Errorf("a child directory's usage moved: %+v", c)
	}
	bc, bt := totalCost(before)
	ac, at := totalCost(after)
	if bc != ac || bt != at {
		t.Errorf("ledger sums changed: %v/%d before, %v/%d after", bc, bt, ac, at)
	}
	// Append-only: the old lines are there as they were.
	now := must(os.ReadFile(filepath.Join(s.Home(), usageName)))(t)
	if !bytes.HasPrefix(now, ledger) || !bytes.Contains(now[len(ledger):], []byte(`"kind":"move"`)) {
		t.Errorf("the ledger was rewritten, not appended to:\n%s", now[len(ledger):])
	}
	checkMoved(t, s, from, to, ids)
	// Moving again: nothing is left, and the ledger says so.
	if _, err := s.MigrateSessions(ctx, from, to, MigrateOptions{NoUsage: true}); !errors.Is(err, ErrNotFound) {
		t.Errorf("a second move of nothing: %v", err)
	}
	if _, err := s.MigrateSessions(ctx, from, to, MigrateOptions{}); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "ledger holds nothing") {
		t.Errorf("a second move: %v", err)
	}
}

// Without usage the ledger is left as it was, byte for byte; a
// single-session move keeps its own counters and leaves the ledger too.
func TestMigrateWithoutUsageAndSingleSession(t *testing.T) {
	ctx := context.Background()
	s, _ := testStore(t)
	from, to := t.TempDir(), t.TempDir()
	ids := migrateFixture(t, s, from, to)
	ledger := must(os.ReadFile(filepath.Join(s.Home(), usageName)))(t)
	spend := must(readRecord(s.fsys, s.workspaceOfPath(must(Canonical(from))(t)).dir, ids[0]))(t).Spend

	res := must(s.MigrateSessions(ctx, from, to, MigrateOptions{Session: ids[0][:8]}))(t)
	if len(res.Sessions) != 1 || res.Sessions[0] != ids[0] || res.Usage != nil {
		t.Fatalf("single move: %+v", res)
	}
	checkMoved(t, s, must(Canonical(from))(t), to, ids[:1])
	wb := must(s.Workspace(to))(t)
	if got := must(wb.Read(ctx, ids[0]))(t).Record.Spend; got != spend {
		t.Errorf("moved session's counters %+v, had %+v", got, spend)
	}
	wa := must(s.Workspace(from))(t)
	if _, err := wa.Read(ctx, ids[1]); err != nil {
		t.Errorf("the other session moved too: %v", err)
	}
	res = must(s.MigrateSessions(ctx, from, to, MigrateOptions{NoUsage: true}))(t)
	if len(res.Sessions) != 1 || res.Usage != nil {
		t.Fatalf("move without usage: %+v", res)
	}
	checkMoved(t, s, must(Canonical(from))(t), to, ids)
	if now := must(os.ReadFile(filepath.Join(s.Home(), usageName)))(t); !bytes.Equal(now, ledger) {
		t.Errorf("the ledger changed:\n%s", now[len(ledger):])
	}
}

// A session owned by another process refuses the whole move: nothing moves.
func TestMigrateRefusedWhileBusy(t *testing.T) {
	ctx := context.Background()
	s, _ := testStore(t)
	from, to := t.TempDir(), t.TempDir()
	ids := migrateFixture(t, s, from, to)
	other := must(Open(s.Home()))(t) // another process, as far as flock goes
	defer other.Close()
	owner := must(must(other.Workspace(from))(t).Open(ctx, ids[1], SessionOptions{}))(t)
	defer owner.Close()
	var busy *BusyError
	if _, err := s.MigrateSessions(ctx, from, to, MigrateOptions{}); !errors.As(err, &busy) || busy.ID != ids[1] {
		t.Fatalf("a move while a session is open elsewhere: %v", err)
	}
	wa := must(s.Workspace(from))(t)
	for _, id := range ids {
		if _, err := wa.Read(ctx, id); err != nil {
			t.Errorf("session %s moved (or broke) though the move was refused: %v", id, err)
		}
	}
	if u := usageBy(t, s); u[[2]string{wa.Path(), "m2"}].Turns != 1 {
		t.Errorf("usage moved though the move was refused: %+v", u)
	}
}

// Power is cut at each sync point of a move in turn. After the crash the
// next open of the store either finishes each session's move or rolls it
// back: every session is whole in exactly one place, nothing names a missing
// object, and running the move again completes it with the ledger's sums
// kept. The destination has sessions already, or is a directory never used:
// then the move makes its workspace folder, and a crash between that folder
// and its workspace.json leaves a folder the move that runs again must name.
func TestMigrateCrashAtEverySyncPoint(t *testing.T) {
	t.Run("used", func(t *testing.T) { migrateCrashAtEverySyncPoint(t, false) })
	t.Run("new", func(t *testing.T) { migrateCrashAtEverySyncPoint(t, true) })
}

func migrateCrashAtEverySyncPoint(t *testing.T, newDest bool) {
	ctx := context.Background()
	from, to := t.TempDir(), t.TempDir()
	fixtureTo := to
	if newDest {
		fixtureTo = t.TempDir() // the fixture's other directory; to stays unused
	}
	setup := func() (*vfs.Mem, *Store, []string) {
		mem := vfs.NewMem()
		s := must(OpenFS(mem, "/mem"))(t)
		return mem, s, migrateFixture(t, s, from, fixtureTo)
	}
	mem, s, _ := setup()
	start := mem.Syncs()
	must(s.MigrateSessions(ctx, from, to, MigrateOptions{}))(t)
	points := mem.Syncs() - start
	if points < 10 {
		t.Fatalf("only %d sync points in a move of two sessions", points)
	}
	if newDest {
		// Once the destination's folder is made the move is the one into
		// a used directory: the points are those of making the folder (no
		// sync comes before them) and the one just after.
		mem, s, _ := setup()
		wb := must(s.Workspace(to))(t)
		start := mem.Syncs()
		noErr(t, wb.ensure())
		points = mem.Syncs() - start + 1
	}
	for k := range 2 * points {
		// Each point twice: once losing everything not synced, once
		// keeping a random part of it.
		n, partial := k/2, k%2 == 1
		mem, s, ids := setup()
		cost, turns := totalCost(usageBy(t, s))
		mem.FailAfterSyncs(n)
		if _, err := s.MigrateSessions(ctx, from, to, MigrateOptions{}); err == nil {
			t.Fatalf("sync point %d: the move did not stop", n)
		}
		if partial {
			mem.CrashPartial(rand.New(rand.NewPCG(uint64(n), 1)))
		} else {
			mem.Crash()
		}
		s = must(OpenFS(mem, "/mem"))(t) // recovers
		if ents, _ := mem.ReadDir(layout.Moves); len(ents) > 0 {
			t.Fatalf("sync point %d: plans left after recovery: %v", n, ents)
		}
		wa := must(s.Workspace(from))(t)
		wb := must(s.Workspace(to))(t)
		for _, id := range ids {
			_, errA := mem.Stat(itemsName(wa.dir, id))
			_, errB := mem.Stat(itemsName(wb.dir, id))
			if (errA == nil) == (errB == nil) {
				t.Fatalf("sync point %d: session %s in both or neither place (%v, %v)", n, id, errA, errB)
			}
			w := wa
			if errB == nil {
				w = wb
			}
			v := must(w.Read(ctx, id))(t)
			if items := v.AllItems(); len(items) == 0 || items[0].Unavailable != nil {
				t.Fatalf("sync point %d: session %s lost its items: %+v", n, id, items)
			}
		}
		rep := must(s.Fsck(ctx))(t)
		for _, p := range rep.Problems {
			if strings.Contains(p.Problem, "unreadable record") {
				continue
			}
			t.Errorf("sync point %d: %s: %s", n, p.Path, p.Problem)
		}
		if c, tt := totalCost(usageBy(t, s)); c != cost || tt != turns {
			t.Fatalf("sync point %d: ledger sums %v/%d, were %v/%d", n, c, tt, cost, turns)
		}
		// The move runs again to the end (a partial crash may have kept
		// the usage line: then nothing is left to move).
		if _, err := s.MigrateSessions(ctx, from, to, MigrateOptions{}); err != nil && !(partial && errors.Is(err, ErrNotFound)) {
			t.Fatalf("sync point %d: moving again: %v", n, err)
		}
		checkMoved(t, s, from, to, ids)
		if c, tt := totalCost(usageBy(t, s)); c != cost || tt != turns {
			t.Fatalf("sync point %d: ledger sums %v/%d after the move, were %v/%d", n, c, tt, cost, turns)
		}
		if u := usageBy(t, s); u[[2]string{from, "m2"}].Turns != 0 {
			t.Fatalf("sync point %d: usage left at the source: %+v", n, u)
		}
	}
	t.Logf("%d sync points", points)
}

// A project renamed with a link left at its old place: the sessions stored
// under the old path move, found by the path as stored, not by where the
// link leads now.
func TestMigrateFromALinkedOldPath(t *testing.T) {
	ctx := context.Background()
	s, _ := testStore(t)
	root := must(filepath.EvalSymlinks(t.TempDir()))(t)
	old, renamed := filepath.Join(root, "old"), filepath.Join(root, "new")
	noErr(t, os.Mkdir(old, 0o700))
	ids := migrateFixture(t, s, old, t.TempDir())
	noErr(t, os.Rename(old, renamed))
	noErr(t, os.Symlink(renamed, old))
	res := must(s.MigrateSessions(ctx, old, renamed, MigrateOptions{}))(t)
	if len(res.Sessions) != 2 || res.From != old {
		t.Fatalf("move from a linked old path: %+v", res)
	}
	checkMoved(t, s, old, renamed, ids)
}

// The ledger's move lines apply to the lines before them only, and chain:
// A to B then B to C puts A's and B's earlier spend at C, while spend at A
// after the move stays at A.
func TestUsageMoveLinesChain(t *testing.T) {
	ctx := context.Background()
	s, _ := testStore(t)
	line := func(p string, cost float64) usageLine {
		return usageLine{V: 1, Kind: "usage", At: mkTime(s.Now()), Path: p, Session: "00000000-0000-4000-8000-000000000001", Model: "m", CostUSD: cost, Turn: 1}
	}
	app := func(v ...any) {
		w := must(s.appendLedger(v...))(t)
		noErr(t, w.Close())
	}
	app(line("/a", 1), line("/b", 2))
	app(usageMoveLine{V: 1, Kind: "move", From: "/a", To: "/b"})
	app(line("/a", 4))
	app(usageMoveLine{V: 1, Kind: "move", From: "/b", To: "/c"})
	app(line("/b", 8))
	got := map[string]float64{}
	for _, u := range must(s.Usage(ctx))(t) {
		got[u.Path] = u.CostUSD
	}
	if want := map[string]float64{"/a": 4, "/b": 8, "/c": 3}; !maps.Equal(got, want) {
		t.Fatalf("sums %v, want %v", got, want)
	}
}

// fsck notes a plan left in moves/ and names one no open can act on.
func TestFsckNamesMovePlans(t *testing.T) {
	ctx := context.Background()
	s, _ := testStore(t)
	noErr(t, vfs.MkdirAllDurable(s.fsys, layout.Moves, vfs.DirPerm))
	p := migrate.Plan{V: 1, Kind: "move", Session: "00000000-0000-4000-8000-000000000001", From: "-a", To: "-b", FromPath: "/a", ToPath: "/b"}
	b := must(json.Marshal(p))(t)
	noErr(t, vfs.WriteFileAtomic(s.fsys, migrate.PlanName(p.Session), b))
	noErr(t, vfs.WriteFileAtomic(s.fsys, migrate.PlanName("00000000-0000-4000-8000-000000000002"), []byte("junk")))
	rep := must(s.Fsck(ctx))(t)
	if len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].Path, "000000000002") {
		t.Errorf("problems: %+v", rep.Problems)
	}
	if !slices.ContainsFunc(rep.Notes, func(n FsckProblem) bool { return strings.Contains(n.Problem, "is moving from /a to /b") }) {
		t.Errorf("notes: %+v", rep.Notes)
	}
}

// TestMigrateRefusedWithPendingRevert: a session whose file revert can
// still be unreverted is not moved while its directory is there (the move
// would start its changes journal again and lose what unrevert puts
// back); nothing moves, and the unrevert still works. Once the directory
// is gone, so are the files, and the move goes ahead.
func TestMigrateRefusedWithPendingRevert(t *testing.T) {
	ctx := context.Background()
	s, _ := testStore(t)
	from, to := t.TempDir(), t.TempDir()
	ids := migrateFixture(t, s, from, to)
	wa := must(s.Workspace(from))(t)
	sess := must(wa.Open(ctx, ids[0], SessionOptions{}))(t)
	p := must(sess.Append(ctx, Item{Type: User, Text: "make it z"}))(t)
	must(sess.ToolWrite(ctx, "f.txt", []byte("z")))(t)
	must(sess.Revert(ctx, p.ID, RevertFiles))(t)
	noErr(t, sess.Close())
	for _, dry := range []bool{true, false} {
		if _, err := s.MigrateSessions(ctx, from, to, MigrateOptions{DryRun: dry}); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), ids[0]) {
			t.Fatalf("a move (dry run %v) of a session with a pending file revert: %v", dry, err)
		}
	}
	for _, id := range ids {
		if _, err := wa.Read(ctx, id); err != nil {
			t.Errorf("session %s moved though the move was refused: %v", id, err)
		}
	}
	sess = must(wa.Open(ctx, ids[0], SessionOptions{}))(t)
	must(sess.Unrevert(ctx))(t)
	noErr(t, sess.Close())
	if b := must(os.ReadFile(filepath.Join(from, "f.txt")))(t); string(b) != "z" {
		t.Fatalf("after unrevert f.txt holds %q", b)
	}

	// Reverted again, then the directory goes: the move is no longer refused.
	sess = must(wa.Open(ctx, ids[0], SessionOptions{}))(t)
	must(sess.Revert(ctx, p.ID, RevertFiles))(t)
	noErr(t, sess.Close())
	noErr(t, os.RemoveAll(from))
	res := must(s.MigrateSessions(ctx, from, to, MigrateOptions{}))(t)
	if len(res.Sessions) != len(ids) {
		t.Fatalf("moved %v once the directory was gone", res.Sessions)
	}
}

// TestMoveRecoveryFailureIsNamed: a move a crash interrupted whose finish
// or undo fails at the next open (its files cannot be removed) is not
// dropped in silence: the store names it (Unrecovered) and fsck calls it a
// problem; the open after the fault finishes or undoes it.
func TestMoveRecoveryFailureIsNamed(t *testing.T) {
	ctx := context.Background()
	from, to := t.TempDir(), t.TempDir()
	finished, undone := 0, 0
	for n := 0; ; n++ {
		mem := vfs.NewMem()
		s := must(OpenFS(mem, "/mem"))(t)
		migrateFixture(t, s, from, to)
		mem.FailAfterSyncs(n)
		if _, err := s.MigrateSessions(ctx, from, to, MigrateOptions{}); err == nil {
			break // past the last sync point
		}
		mem.Crash()
		plans, _ := mem.ReadDir(layout.Moves)
		if len(plans) == 0 {
			continue
		}
		faulty := vfs.NewFaulty(mem)
		faulty.Inject(vfs.Rule{Op: vfs.OpRemove, Path: "workspaces/*/sessions/*"})
		s = must(OpenFS(faulty, "/mem"))(t)
		u := s.Unrecovered()
		if len(u) == 0 || !strings.HasPrefix(u[0].Path, layout.Moves+"/") || !errors.Is(u[0], syscall.EIO) {
			t.Fatalf("sync point %d: Unrecovered %v; want the plan named, with its error", n, u)
		}
		if strings.Contains(u[0].Error(), "finish moving") {
			finished++
		} else {
			undone++
		}
		rep := must(s.Fsck(ctx))(t)
		if !slices.ContainsFunc(rep.Problems, func(p FsckProblem) bool {
			return p.Path == u[0].Path && strings.Contains(p.Problem, "could not finish or undo")
		}) {
			t.Fatalf("sync point %d: fsck does not name the move it could not recover: %+v", n, rep.Problems)
		}
		s = must(OpenFS(mem, "/mem"))(t)
		if u := s.Unrecovered(); len(u) != 0 {
			t.Fatalf("sync point %d: without the fault: %v", n, u)
		}
		if left, _ := mem.ReadDir(layout.Moves); len(left) != 0 {
			t.Fatalf("sync point %d: plans left once the fault is gone: %v", n, left)
		}
	}
	if finished == 0 || undone == 0 {
		t.Fatalf("recoveries failed: %d finishing, %d undoing; want both kinds", finished, undone)
	}
}
