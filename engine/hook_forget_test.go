package engine

import (
	"os"
	"path/filepath"
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
		must(s.BeginChange(e.ctx, "write", "toolu_1", []string{"a.txt"}))(t)
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
