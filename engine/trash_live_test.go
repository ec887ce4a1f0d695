package engine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"cairn/engine/retention"
)

// importOf is an import source of n prompts big enough to be stored as
// objects, in dir, made at created.
func importOf(dir string, n int, created time.Time) *ImportSource {
	src := &ImportSource{Agent: "claude-code", SourceID: "came-back", Dir: dir, Created: created}
	for i := range n {
		src.Items = append(src.Items, ImportItem{Key: fmt.Sprint("u", i), Type: User, At: src.Created.Add(time.Duration(i) * time.Minute),
			Text: fmt.Sprint(i, strings.Repeat(" a prompt long enough to be a payload object", 400))})
		if i > 0 {
			src.Items[i].ParentKey = fmt.Sprint("u", i-1)
		}
	}
	return src
}

// TestLiveSessionNeverTrashedForAnOlderEntry: whichever way a session of
// a forgotten session's id is live again in its workspace (an import of
// the same content or of more, an agent's hooks, a restore, a forget an
// older build cut short after copying the journal), no settle, forget,
// sweep or prune moves it into the trash or removes any of it: it stays
// listed and whole, its objects too, while the older entry waits apart
// for its purge.
func TestLiveSessionNeverTrashedForAnOlderEntry(t *testing.T) {
	for _, way := range []string{"identical import", "grown import", "hooks", "restore", "legacy forget cut short"} {
		t.Run(way, func(t *testing.T) {
			now := time.Now()
			made := now.Add(-time.Hour).UTC().Truncate(time.Millisecond)
			e := newSnapEnv(t, "", WithClock(func() time.Time { return now }))
			ctx := e.ctx
			id := ImportSessionID("claude-code", "came-back")
			must(e.ws.Import(ctx, importOf(e.dir, 2, made)))(t)
			other := newSession(t, e.ws)
			noErr(t, other.Close())
			must(e.store.RunRetention(ctx, RetentionOptions{Action: ActionForget, Sessions: []string{id}}))(t)
			trashed := filepath.Join(e.store.Home(), "trash", id, "sessions", id+".items.jsonl")
			live := filepath.Join(e.ws.Folder(), "sessions", id+".items.jsonl")
			entry := true // the older entry stays apart
			switch way {
			case "identical import":
				must(e.ws.Import(ctx, importOf(e.dir, 2, made)))(t)
			case "grown import":
				must(e.ws.Import(ctx, importOf(e.dir, 3, made)))(t)
			case "hooks":
				e.hookPair(AgentSession{Agent: "claude-code", ID: "came-back"}, func(s *Session) {
					must(s.Append(ctx, Item{Type: User, Text: "after the forget"}))(t)
				})
			case "restore":
				must(e.store.Restore(ctx, id))(t)
				entry = false
			case "legacy forget cut short":
				// An older build copied the items journal into the trash
				// first and had not removed the workspace's yet: every
				// file is in the workspace again, the journal in both.
				for _, name := range must(filepath.Glob(filepath.Join(e.store.Home(), "trash", id, "sessions", "*")))(t) {
					noErr(t, os.WriteFile(filepath.Join(e.ws.Folder(), "sessions", filepath.Base(name)), must(os.ReadFile(name))(t), 0o600))
				}
			}
			want := must(os.ReadFile(live))(t)
			items := len(must(e.ws.Read(ctx, id))(t).AllItems())
			check := func(when string) {
				t.Helper()
				if got, err := os.ReadFile(live); err != nil || string(got) != string(want) {
					t.Fatalf("%s: the live session's journal: %v", when, err)
				}
				if !slices.Contains(listed(t, e.ws), id) {
					t.Fatalf("%s: the live session is not listed", when)
				}
				v := must(e.ws.Read(ctx, id))(t)
				all := v.AllItems()
				if len(all) != items {
					t.Fatalf("%s: %d items, were %d", when, len(all), items)
				}
				for _, it := range all {
					if it.Unavailable != nil {
						t.Fatalf("%s: item %s unavailable: %+v", when, it.ID, it.Unavailable)
					}
				}
				if _, err := os.Stat(trashed); (err == nil) != entry {
					t.Fatalf("%s: the older entry (want it there: %v): %v", when, entry, err)
				}
			}
			check("made again")
			noErr(t, e.store.SettleTrash(ctx))
			check("settle")
			if _, err := e.store.Restore(ctx, id); entry && !errors.Is(err, ErrRefused) {
				t.Fatalf("restore over the live session: %v", err)
			}
			check("refused restore")
			all := retention.Policy{Last: -1}
			must(e.store.RunRetention(ctx, RetentionOptions{Action: ActionForget, Policy: all}))(t)
			check("forget keeping all")
			must(e.store.RunRetention(ctx, RetentionOptions{Action: ActionForget, Sessions: []string{other.ID()}}))(t)
			check("forget of another session")
			plan := must(e.store.RunRetention(ctx, RetentionOptions{Action: ActionForget, Sessions: []string{id}}))(t)
			if entry && len(plan.Skipped) != 1 {
				t.Fatalf("a forget of the live session over the older entry: %+v", plan)
			}
			if !entry {
				// No older entry: the forget is a real one; bring it back.
				must(e.store.Restore(ctx, id))(t)
			}
			check("forget of the live session")
			must(e.store.Sweep(ctx, Config{Storage: StorageConfig{Forget: all}}, time.UTC))(t)
			check("sweep")
			must(e.store.Prune(ctx, PruneOptions{}))(t)
			check("prune")
			// A week on: the entry is purged, the live session whole.
			now = now.Add(8 * 24 * time.Hour)
			entry = false
			must(e.store.Prune(ctx, PruneOptions{}))(t)
			check("prune a week on")
			if tr := must(e.store.TrashList(ctx))(t); slices.ContainsFunc(tr, func(x Trashed) bool { return x.Session == id }) {
				t.Fatalf("the entry was not purged: %+v", tr)
			}
			for _, p := range must(e.store.Fsck(ctx))(t).Problems {
				t.Errorf("fsck: %s: %s", p.Path, p.Problem)
			}
		})
	}
}
