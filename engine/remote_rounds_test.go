package engine

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"cairn/engine/internal/remote"
)

var syncRounds = flag.Int("sync-rounds", 3, "rounds of TestSyncFaultRounds (a fault drawn at random in each push); raise it for a long run")

// faultOf draws one fault of a push: a request refused, a server gone
// after a few requests went through, or an upload cut mid-object.
func faultOf(r *rand.Rand) remote.Rule {
	prefixes := []string{"objects/", "journals/", "log/", "machines/", ""}
	rule := remote.Rule{Prefix: prefixes[r.IntN(len(prefixes))], Skip: r.IntN(3), Times: 1 + r.IntN(2)}
	switch r.IntN(3) {
	case 0:
		rule.Err = remote.ErrRefused
	case 1:
		rule.Op = "put"
		rule.Cut = true
	default:
		rule.Err = remote.ErrGone
	}
	return rule
}

// TestSyncFaultRounds: in each round machine A writes a turn in one of
// its sessions and pushes through a fault drawn at random, then pushes
// again with the fault gone; machine B then pulls, and reads every
// session as A has it. -sync-rounds N runs N rounds (3 by default).
func TestSyncFaultRounds(t *testing.T) {
	remoteKinds(t, func(t *testing.T, newURL func(t *testing.T) string) {
		ctx := context.Background()
		a, b, fa, project := faultMachines(t, newURL(t))
		var ids []string
		for range 3 {
			id, _ := aSession(t, a, project)
			ids = append(ids, id)
		}
		if _, err := a.Sync(ctx, "", SyncOptions{}); err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(uint64(*syncRounds), 1))
		wa, _ := a.Workspace(project)
		for round := range *syncRounds {
			id := ids[r.IntN(len(ids))]
			sess, err := wa.Open(ctx, id, SessionOptions{})
			if err != nil {
				t.Fatal(err)
			}
			sess.Append(ctx, Item{Type: User, Text: fmt.Sprintf("round %d", round)})
			sess.Append(ctx, Item{Type: Assistant, Text: fmt.Sprintf("answer %d %s", round, strings.Repeat("x", r.IntN(3)*40000))})
			if err := sess.EndTurn(ctx, Turn{Model: "m"}); err != nil {
				t.Fatal(err)
			}
			sess.Close()
			rule := faultOf(r)
			fa.Fail(rule)
			a.Sync(ctx, "", SyncOptions{}) // may fail: what it says is its own test's
			fa.Heal()
			if _, err := a.Sync(ctx, "", SyncOptions{}); err != nil {
				t.Fatalf("round %d (%+v): the push after the fault: %v", round, rule, err)
			}
			if _, err := b.Sync(ctx, "", SyncOptions{}); err != nil {
				t.Fatalf("round %d (%+v): B's pull: %v", round, rule, err)
			}
			for _, sid := range ids {
				want := transcriptOf(t, a, project, sid)
				got := transcriptOf(t, b, project, sid)
				if len(got) != len(want) {
					t.Fatalf("round %d (%+v): B reads %d items of %s, A %d", round, rule, len(got), sid, len(want))
				}
				for i := range want {
					if got[i].Text != want[i].Text {
						t.Fatalf("round %d (%+v): item %d of %s differs on B", round, rule, i, sid)
					}
				}
			}
		}
	})
}

// transcriptOf reads session id on s as it is there.
func transcriptOf(t *testing.T, s *Store, project, id string) []Item {
	t.Helper()
	w, _ := s.Workspace(project)
	sess, err := w.Open(context.Background(), id, SessionOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	return sess.Transcript()
}
