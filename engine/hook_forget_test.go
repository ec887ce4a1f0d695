package engine

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestForgetMovesHookMarkers: a forget of a session the hooks made takes
// its pending markers (hooks/<id>/) into the trash with it, and a restore
// brings them back, so the post-tool hook of an edit begun before the
// forget still records it. An orphaned marker folder (an older build's
// forget left it) is noted by fsck and removed by a prune once a week
// old.
func TestForgetMovesHookMarkers(t *testing.T) {
	e := newSnapEnv(t, "")
	a := AgentSession{Agent: "claude-code", ID: "forget-me"}
	e.put("a.txt", "a0")
	e.hookPair(a, func(s *Session) {
		must(s.Append(e.ctx, Item{Type: User, Text: "edit"}))(t)
		must(s.beginHookChange(e.ctx, "write", "toolu_1", []string{"a.txt"}))(t)
		must(s.BeginExec(e.ctx, "bash", "toolu_2", "rm b.txt", ""))(t)
	})
	id := ImportSessionID(a.Agent, a.ID)
	markers := filepath.Join(e.ws.Folder(), "hooks", id)
	must(e.store.RunRetention(e.ctx, RetentionOptions{Action: ActionForget, Sessions: []string{id}}))(t)
	if _, err := os.Stat(markers); !os.IsNotExist(err) {
		t.Fatalf("markers left in the workspace after forget: %v", err)
	}
	if ms, _ := filepath.Glob(filepath.Join(e.store.home, "trash", id, "hooks", id, "*")); len(ms) != 3 {
		t.Fatalf("markers in the trash: %v", ms)
	}
	if rep := must(e.store.Fsck(e.ctx))(t); len(rep.Problems) != 0 {
		t.Fatalf("fsck after forget: %+v", rep.Problems)
	}
	must(e.store.Restore(e.ctx, id))(t)
	e.put("a.txt", "a1")
	e.hookPair(a, func(s *Session) {
		if ans := must(s.SettleChange(e.ctx, "toolu_1"))(t); ans == nil || ans.Snapshot == nil {
			t.Fatalf("the edit begun before the forget: %+v", ans)
		}
		must(s.Undo(e.ctx))(t)
	})
	e.want("a.txt", "a0")

	// An orphaned folder: noted, and pruned once old.
	orphan := filepath.Join(e.ws.Folder(), "hooks", "00000000-0000-4000-8000-000000000000")
	os.MkdirAll(orphan, 0o700)
	os.WriteFile(filepath.Join(orphan, "toolu_x.json"), []byte(`{"v":1}`), 0o600)
	rep := must(e.store.Fsck(e.ctx))(t)
	found := false
	for _, p := range rep.Notes {
		found = found || strings.Contains(p.Path, "00000000-0000-4000-8000-000000000000") && strings.Contains(p.Problem, "no session")
	}
	if !found || len(rep.Problems) != 0 {
		t.Fatalf("fsck does not note the orphaned markers: %+v", rep)
	}
	old := time.Now().Add(-8 * 24 * time.Hour)
	os.Chtimes(filepath.Join(orphan, "toolu_x.json"), old, old)
	must(e.store.Prune(e.ctx, PruneOptions{}))(t)
	if _, err := os.Stat(orphan); !os.IsNotExist(err) {
		t.Fatalf("orphaned markers not pruned: %v", err)
	}
}

// TestRestoreWhenTheSessionCameBack: an agent's hooks (or an import) make
// a session again, under the id of one that was forgotten. The forgotten
// copy is its own: settling the trash keeps it (it used to be dropped, or
// the new session removed when both journals had the same size), a
// restore is refused while the new one is there and changes nothing, and
// a forget of the new one skips it rather than overwrite the trash's.
func TestRestoreWhenTheSessionCameBack(t *testing.T) {
	e := newSnapEnv(t, "")
	a := AgentSession{Agent: "claude-code", ID: "came-back"}
	e.hookPair(a, func(s *Session) {
		must(s.Append(e.ctx, Item{Type: User, Text: "first prompt, a long history"}))(t)
		must(s.Append(e.ctx, Item{Type: User, Text: "second prompt"}))(t)
	})
	id := ImportSessionID(a.Agent, a.ID)
	must(e.store.RunRetention(e.ctx, RetentionOptions{Action: ActionForget, Sessions: []string{id}}))(t)
	e.hookPair(a, func(s *Session) {
		must(s.Append(e.ctx, Item{Type: User, Text: "after the forget"}))(t)
	})
	texts := func() []string {
		v := must(e.ws.Read(e.ctx, id))(t)
		var out []string
		for _, it := range v.Transcript() {
			out = append(out, it.Text)
		}
		return out
	}
	inTrash := func(when string) {
		t.Helper()
		if tr := must(e.store.TrashList(e.ctx))(t); len(tr) != 1 || tr[0].Session != id {
			t.Fatalf("%s: trash %+v", when, tr)
		}
	}
	must(0, e.store.SettleTrash(e.ctx))(t)
	inTrash("after a settle")
	if _, err := e.store.Restore(e.ctx, id); !errors.Is(err, ErrRefused) {
		t.Fatalf("restore over the new session: %v", err)
	}
	inTrash("after the refused restore")
	if got := texts(); !slices.Equal(got, []string{"after the forget"}) {
		t.Fatalf("the new session holds %q", got)
	}
	plan := must(e.store.RunRetention(e.ctx, RetentionOptions{Action: ActionForget, Sessions: []string{id}}))(t)
	if len(plan.Skipped) != 1 {
		t.Fatalf("forget of the new session: %+v", plan)
	}
	inTrash("after the skipped forget")
	if got := texts(); !slices.Equal(got, []string{"after the forget"}) {
		t.Fatalf("the new session holds %q after the skipped forget", got)
	}
	trashed := filepath.Join(e.store.home, "trash", id, "sessions", id+".items.jsonl")
	if b, err := os.ReadFile(trashed); err != nil || !strings.Contains(string(b), "second prompt") {
		t.Fatalf("the trash's journal: %v %q", err, b)
	}

	// A new journal of the very size of the forgotten one is no copy of it
	// either: the settle leaves it in the workspace.
	old := must(os.ReadFile(trashed))(t)
	other := []byte(strings.Replace(string(old), "second prompt", "SECOND PROMPT", 1))
	must0(t, os.WriteFile(filepath.Join(e.ws.Folder(), "sessions", id+".items.jsonl"), other, 0o600))
	must(0, e.store.SettleTrash(e.ctx))(t)
	inTrash("after a settle with a journal of the same size")
	if b, err := os.ReadFile(filepath.Join(e.ws.Folder(), "sessions", id+".items.jsonl")); err != nil || string(b) != string(other) {
		t.Fatalf("the workspace's journal after the settle: %v", err)
	}
}
