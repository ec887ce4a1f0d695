package engine

import (
	"cairn/engine/internal/stats"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStatsEstimateIsWhatPruneFrees: over several shapes of state, what
// storage stats says a prune would reclaim is exactly what the prune then
// removes, file for file and byte for byte, and what the prune reports.
func TestStatsEstimateIsWhatPruneFrees(t *testing.T) {
	big := strings.Repeat("a line of a file big enough to be stored as an object\n", 2000)
	shapes := map[string]func(t *testing.T, e *snapEnv, later func()){
		// A session whose pre-images only its trash entry names, forgotten
		// a week before the prune.
		"old trash naming objects": func(t *testing.T, e *snapEnv, later func()) {
			s := newSession(t, e.ws)
			e.put("big.txt", big)
			must(s.ToolWrite(e.ctx, "big.txt", []byte(big+"x")))(t)
			must(s.ToolWrite(e.ctx, "big.txt", []byte(big+"y")))(t)
			noErr(t, s.Close())
			must(e.store.RunRetention(e.ctx, RetentionOptions{Action: ActionForget, Sessions: []string{s.ID()}}))(t)
			later()
		},
		// The same, forgotten just now: kept whole, its objects too.
		"young trash naming old objects": func(t *testing.T, e *snapEnv, later func()) {
			s := newSession(t, e.ws)
			e.put("big.txt", big)
			must(s.ToolWrite(e.ctx, "big.txt", []byte(big+"x")))(t)
			noErr(t, s.Close())
			later()
			must(e.store.RunRetention(e.ctx, RetentionOptions{Action: ActionForget, Sessions: []string{s.ID()}}))(t)
		},
		// Orphans of a session deleted by hand, and dead writers' temps.
		"orphans and temps": func(t *testing.T, e *snapEnv, later func()) {
			s := newSession(t, e.ws)
			must(s.PutOutput(e.ctx, "grep", strings.NewReader(big)))(t)
			must(s.ToolWrite(e.ctx, "a.txt", []byte(big)))(t)
			noErr(t, s.Close())
			noErr(t, os.Remove(filepath.Join(e.ws.Folder(), "sessions", s.ID()+".items.jsonl")))
			hooks := filepath.Join(e.ws.Folder(), "hooks", s.ID())
			noErr(t, os.MkdirAll(hooks, 0o700))
			noErr(t, os.WriteFile(filepath.Join(hooks, "toolu_1.json"), []byte(`{"v":1}`), 0o600))
			noErr(t, os.MkdirAll(filepath.Join(e.ws.Folder(), "owners"), 0o700))
			noErr(t, os.WriteFile(filepath.Join(e.ws.Folder(), "owners", s.ID()), []byte("1\n"), 0o600))
			live := newSession(t, e.ws)
			noErr(t, live.Close())
			for _, dir := range []string{e.store.Home(), filepath.Join(e.ws.Folder(), "sessions"), filepath.Join(e.ws.Folder(), "objects", "ab")} {
				noErr(t, os.MkdirAll(dir, 0o700))
				noErr(t, os.WriteFile(filepath.Join(dir, ".x.json.2147483646-0123456789abcdef.cairn-tmp"), []byte("tmp"), 0o600))
			}
			noErr(t, os.MkdirAll(filepath.Join(e.store.Home(), "trash", ".purge-00000000-0000-4000-8000-000000000000", "sessions"), 0o700))
			later()
		},
		// Records the undo stack dropped: their pre-images go, the kept
		// ones stay.
		"dropped records": func(t *testing.T, e *snapEnv, later func()) {
			s := newSession(t, e.ws)
			for i := range 5 {
				must(s.ToolWrite(e.ctx, "a.txt", []byte(big+strings.Repeat("!", i))))(t)
			}
			noErr(t, s.Close())
			later()
		},
		// Nothing old: nothing to reclaim, nothing removed.
		"nothing old": func(t *testing.T, e *snapEnv, later func()) {
			s := newSession(t, e.ws)
			must(s.ToolWrite(e.ctx, "a.txt", []byte(big)))(t)
			noErr(t, s.Close())
		},
	}
	for name, shape := range shapes {
		t.Run(name, func(t *testing.T) {
			now := time.Now()
			config := ""
			if name == "dropped records" {
				config = `{"snapshots":{"max_per_session":2}}`
			}
			e := newSnapEnv(t, config, WithClock(func() time.Time { return now }))
			shape(t, e, func() { now = now.Add(8 * 24 * time.Hour) })
			ctx := context.Background()
			st := must(e.store.Stats(ctx))(t)
			before := stateSizes(t, e.store)
			rep := must(e.store.Prune(ctx, PruneOptions{}))(t)
			after := stateSizes(t, e.store)
			var freed Size
			for n, z := range before {
				if _, ok := after[n]; !ok {
					freed.Add(z)
				}
			}
			est := st.Reclaim.Size
			if freed.Bytes != est.Bytes || freed.Files != est.Files || freed.Folders != est.Folders || freed.Disk != est.Disk {
				t.Fatalf("stats said a prune would reclaim %+v (%+v); it freed %+v", est, st.Reclaim, freed)
			}
			if rep.Freed != freed {
				t.Fatalf("prune reports %+v freed, it freed %+v", rep.Freed, freed)
			}
			if (name == "nothing old") != (freed.Files == 0) {
				t.Fatalf("freed %+v", freed)
			}
			if again := must(e.store.Stats(ctx))(t); again.Reclaim.Size != (Size{}) {
				t.Fatalf("after the prune stats still says %+v", again.Reclaim)
			}
			for _, p := range must(e.store.Fsck(ctx))(t).Problems {
				t.Errorf("fsck: %s: %s", p.Path, p.Problem)
			}
		})
	}
}

// stateSizes is what each file and folder of the state folder takes by
// itself, by name.
func stateSizes(t *testing.T, s *Store) map[string]Size {
	t.Helper()
	out := map[string]Size{}
	noErr(t, stats.Walk(context.Background(), s.FS(), func(name, _ string, fi fs.FileInfo, z stats.Size) error {
		out[name] = Size(z)
		return nil
	}))
	return out
}
