package engine

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"path"
	"slices"
	"strings"
	"testing"

	"cairn/engine/internal/fileplan"
	"cairn/engine/internal/trash"
	"cairn/internal/vfs"
)

// sessionFiles reads session id's files under root (a workspace folder or
// a trash entry), by their place under it (sessionSubs), nil when it has
// no items journal there. The record is left out: it is derived, and
// rebuilt where a restore puts it.
func sessionFiles(t *testing.T, fsys vfs.FS, root, id string) map[string]string {
	t.Helper()
	subs, err := trash.SessionFiles(fsys, root, id)
	if vfs.IsNotExist(err) {
		return nil
	}
	noErr(t, err)
	out := map[string]string{}
	for _, sub := range subs {
		if sub == path.Join(sessionsDir, id+".json") {
			continue
		}
		out[sub] = string(must(vfs.ReadFile(fsys, path.Join(root, sub)))(t))
	}
	return out
}

// retentionCrashEnv is a store on Mem holding one session with a bit of
// everything a forget moves and a trim drops: items with a payload object,
// change records, a shell history, a tool output.
func retentionCrashEnv(t *testing.T) (*memEnv, string) {
	t.Helper()
	ctx := context.Background()
	e := newMemEnv(t)
	s := e.ws.Create(SessionOptions{})
	must(s.Append(ctx, Item{Type: User, Text: strings.Repeat("a prompt long enough to be a payload object ", 400)}))(t)
	must(s.ToolWrite(ctx, "a.txt", []byte("one")))(t)
	must(s.ToolWrite(ctx, "a.txt", []byte("two")))(t)
	must(s.Exec(ctx, "echo shell", ExecOptions{}))(t)
	must(s.PutOutput(ctx, "grep", strings.NewReader("an output")))(t)
	noErr(t, s.Close())
	return e, s.ID()
}

// TestRetentionCrashAtEverySync: a forget, a restore and a trim stopped at
// each of their sync points and crashed (losing everything not synced, or
// a random part of it) leave, once the store is opened again, the session
// whole in exactly one place, byte for byte: listed and readable in its
// workspace with nothing of it in the trash, or in the trash with nothing
// of it in the workspace; a trim leaves it untouched or trimmed. No plan is
// left, fsck finds nothing, and the operation then runs to its end.
func TestRetentionCrashAtEverySync(t *testing.T) {
	ctx := context.Background()
	ops := map[string]func(e *memEnv, id string) error{
		"forget": func(e *memEnv, id string) error {
			return ranWhole(e.store.RunRetention(ctx, RetentionOptions{Action: ActionForget, Sessions: []string{id}}))
		},
		"restore": func(e *memEnv, id string) error {
			_, err := e.store.Restore(ctx, id)
			return err
		},
		"trim": func(e *memEnv, id string) error {
			return ranWhole(e.store.RunRetention(ctx, RetentionOptions{Action: ActionTrim, Sessions: []string{id}}))
		},
	}
	for _, op := range []string{"forget", "restore", "trim"} {
		t.Run(op, func(t *testing.T) {
			setup := func() (*memEnv, string, map[string]string) {
				e, id := retentionCrashEnv(t)
				if op == "restore" {
					noErr(t, ops["forget"](e, id))
				}
				before := sessionFiles(t, e.mem, e.ws.dir, id)
				if op == "restore" {
					before = sessionFiles(t, e.mem, trash.Entry(id), id)
				}
				return e, id, before
			}
			e, id, _ := setup()
			start := e.mem.Syncs()
			noErr(t, ops[op](e, id))
			points := e.mem.Syncs() - start
			if points < 4 {
				t.Fatalf("only %d sync points in a %s", points, op)
			}
			for k := range 2 * (points + 1) {
				n, partial := k/2, k%2 == 1
				e, id, before := setup()
				e.mem.FailAfterSyncs(n)
				err := ops[op](e, id)
				if err == nil && n < points {
					t.Fatalf("sync point %d: the %s did not stop", n, op)
				}
				if partial {
					e.mem.CrashPartial(rand.New(rand.NewPCG(uint64(n), 7)))
				} else {
					e.mem.Crash()
				}
				s := must(OpenFS(e.mem, "/mem", WithClock(e.clock)))(t) // settles what the crash cut short
				e.store = s
				e.ws = must(s.Workspace(e.ws.Path()))(t)
				if names, _ := vfs.ReadDirNames(e.mem, trash.PlansDir); len(names) > 0 {
					t.Fatalf("sync point %d: plans left after an open: %v", n, names)
				}
				checkOnePlace(t, e, id, before, op, n)
				// It runs again to its end.
				if op == "trim" || sessionFiles(t, e.mem, e.ws.dir, id) != nil == (op == "forget") {
					noErr(t, ops[op](e, id))
				}
				checkOnePlace(t, e, id, before, op, n)
			}
		})
	}
}

// ranWhole is a run's error, or one when it did not remove its one
// session.
func ranWhole(p *RetentionPlan, err error) error {
	if err == nil && (len(p.Skipped) > 0 || p.Removals() != 1) {
		return fmt.Errorf("skipped %v of %d removals", sessIDs(p.Skipped), p.Removals())
	}
	return err
}

// checkOnePlace checks the promises of TestRetentionCrashAtEverySync.
func checkOnePlace(t *testing.T, e *memEnv, id string, before map[string]string, op string, n int) {
	t.Helper()
	ctx := context.Background()
	inWS := sessionFiles(t, e.mem, e.ws.dir, id)
	inTrash := sessionFiles(t, e.mem, trash.Entry(id), id)
	trashed := false
	for _, x := range must(e.store.TrashList(ctx))(t) {
		trashed = trashed || x.Session == id
	}
	listedNow := false
	for _, x := range listed(t, e.ws) {
		listedNow = listedNow || x == id
	}
	switch {
	case op == "trim":
		if !listedNow || inTrash != nil {
			t.Fatalf("sync point %d: a trimmed session is not listed, or in the trash", n)
		}
		rec := must(readRecord(e.mem, e.ws.dir, id))(t)
		untouched := maps.Equal(inWS, before)
		trimmed := rec.Tier == "transcript" && !trash.HasArtifacts(e.ws.s.fsys, e.ws.dir, id)
		if untouched == trimmed {
			t.Fatalf("sync point %d: the session is neither untouched nor trimmed (tier %s): %v", n, rec.Tier, keysOf(inWS))
		}
	case inWS != nil:
		if inTrash != nil || trashed || !listedNow || !maps.Equal(inWS, before) {
			t.Fatalf("sync point %d: live, but in the trash %v (listed there %v), listed %v, whole %v: %v", n, inTrash != nil, trashed, listedNow, maps.Equal(inWS, before), keysOf(inWS))
		}
	default:
		if !trashed || listedNow || !maps.Equal(inTrash, before) || len(trash.LeftIn(e.store.fsys, e.ws.dir, id)) > 0 {
			t.Fatalf("sync point %d: in neither place, or split: trash %v listed %v whole %v, left %v", n, trashed, listedNow, maps.Equal(inTrash, before), trash.LeftIn(e.store.fsys, e.ws.dir, id))
		}
	}
	if inWS != nil {
		v := must(e.ws.Read(ctx, id))(t)
		for _, it := range v.AllItems() {
			if it.Unavailable != nil {
				t.Fatalf("sync point %d: item %s unavailable", n, it.ID)
			}
		}
	}
	for _, p := range must(e.store.Fsck(ctx))(t).Problems {
		t.Errorf("sync point %d: fsck: %s: %s", n, p.Path, p.Problem)
	}
}

func keysOf(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestFsckNamesSplitSessionAndPlans: a session a build before the plans
// left split (its items journal in the trash, its record and change
// records in the workspace) is a problem fsck names, and the next forget
// finishes its forget, after which a restore brings it back whole. A plan
// a crash left is noted; one that is no plan is a problem.
func TestFsckNamesSplitSessionAndPlans(t *testing.T) {
	ctx := context.Background()
	e, id := retentionCrashEnv(t)
	before := sessionFiles(t, e.mem, e.ws.dir, id)
	noErr(t, ranWhole(e.store.RunRetention(ctx, RetentionOptions{Action: ActionForget, Sessions: []string{id}})))
	// As an older build's forget cut short left it: everything but the
	// items journal back in the workspace.
	for sub, data := range sessionFiles(t, e.mem, trash.Entry(id), id) {
		if strings.HasSuffix(sub, ".items.jsonl") {
			continue
		}
		noErr(t, vfs.MkdirAllDurable(e.mem, path.Dir(path.Join(e.ws.dir, sub)), vfs.DirPerm))
		noErr(t, vfs.WriteFileAtomic(e.mem, path.Join(e.ws.dir, sub), []byte(data)))
		noErr(t, e.mem.Remove(path.Join(trash.Entry(id), sub)))
	}
	rep := must(e.store.Fsck(ctx))(t)
	if !slices.ContainsFunc(rep.Problems, func(p FsckProblem) bool {
		return p.Path == trash.Entry(id) && strings.Contains(p.Problem, "split")
	}) {
		t.Fatalf("fsck does not name the split session: %+v", rep.Problems)
	}
	must(e.store.RunRetention(ctx, RetentionOptions{Action: ActionForget}))(t) // an empty policy: it only settles
	if left := trash.LeftIn(e.store.fsys, e.ws.dir, id); len(left) > 0 {
		t.Fatalf("still split after a forget: %v", left)
	}
	for _, p := range must(e.store.Fsck(ctx))(t).Problems {
		t.Errorf("fsck after the settle: %s: %s", p.Path, p.Problem)
	}
	must(e.store.Restore(ctx, id))(t)
	if got := sessionFiles(t, e.mem, e.ws.dir, id); !maps.Equal(got, before) {
		t.Fatalf("restored %v, was %v", keysOf(got), keysOf(before))
	}

	// A plan left behind (its session's lock held: a forget running now)
	// is a note; a file in plans/ that is no plan is a problem.
	noErr(t, e.ws.trimSession(ctx, id))
	p := e.ws.newPlan(trash.KindTrim, id, "run")
	noErr(t, fileplan.Write(e.mem, trash.PlansDir, p))
	l := must(e.mem.Lock(lockName(e.ws.dir, id)))(t)
	noErr(t, vfs.WriteFileAtomic(e.mem, path.Join(trash.PlansDir, "00000000-0000-4000-8000-000000000000.json"), []byte(`{"v":1,"kind":"forget"}`)))
	rep = must(e.store.Fsck(ctx))(t)
	l.Release()
	if !slices.ContainsFunc(rep.Notes, func(p FsckProblem) bool { return strings.Contains(p.Path, id) && strings.Contains(p.Problem, "trim") }) ||
		!slices.ContainsFunc(rep.Problems, func(p FsckProblem) bool { return strings.Contains(p.Path, "00000000-0000") }) {
		t.Fatalf("fsck on plans: notes %+v problems %+v", rep.Notes, rep.Problems)
	}
}
