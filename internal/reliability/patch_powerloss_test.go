package reliability

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"cairn/engine"
	"cairn/internal/vfs"
)

// The apply_patch power-loss round: a random multi-file patch (updates,
// adds, deletes, moves into new folders) cut at a random sync point, of
// the patch or of the end of its turn, by a power loss that keeps a random
// share of what was not synced. After the next open the files are all as
// before the patch (and it is not listed) or all as after (and one undo
// puts them all back): never a patch applied in part.

// patchCase is a workspace's files and a patch over them with the files
// it makes.
type patchCase struct {
	old, neu map[string]string
	patch    string
}

// randomPatch draws a workspace of a few files and an envelope that
// changes some of them.
func randomPatch(r *rand.Rand) patchCase {
	c := patchCase{old: map[string]string{}, neu: map[string]string{}}
	n := 2 + r.IntN(5)
	for i := range n {
		var b strings.Builder
		lines := 1 + r.IntN(4)
		if r.IntN(4) == 0 {
			lines = 900 // over 16 KiB: its pre-image is an object
		}
		for k := range lines {
			fmt.Fprintf(&b, "file %d line %d of the old content\n", i, k)
		}
		dir := []string{"", "src/", "src/deep/"}[r.IntN(3)]
		c.old[fmt.Sprintf("%sf%d.txt", dir, i)] = b.String()
	}
	maps.Copy(c.neu, c.old)
	var p strings.Builder
	p.WriteString("*** Begin Patch\n")
	for _, name := range slices.Sorted(maps.Keys(c.old)) {
		switch r.IntN(4) {
		case 0: // left alone
		case 1:
			fmt.Fprintf(&p, "*** Delete File: %s\n", name)
			delete(c.neu, name)
		default:
			first, _, _ := strings.Cut(c.old[name], "\n")
			to := name
			fmt.Fprintf(&p, "*** Update File: %s\n", name)
			if r.IntN(2) == 0 {
				to = fmt.Sprintf("moved%d/%s", r.IntN(2), strings.ReplaceAll(name, "/", "_"))
				fmt.Fprintf(&p, "*** Move to: %s\n", to)
				delete(c.neu, name)
			}
			fmt.Fprintf(&p, "@@\n-%s\n+%s (patched)\n", first, first)
			c.neu[to] = strings.Replace(c.old[name], first, first+" (patched)", 1)
		}
	}
	added := fmt.Sprintf("new%d/added.txt", r.IntN(3))
	fmt.Fprintf(&p, "*** Add File: %s\n+added\n*** End Patch\n", added)
	c.neu[added] = "added\n"
	c.patch = p.String()
	return c
}

// names is every file either side of the case names.
func (c patchCase) names() []string {
	all := maps.Clone(c.old)
	maps.Copy(all, c.neu)
	return slices.Sorted(maps.Keys(all))
}

func (c patchCase) files(fsys vfs.FS) map[string]string {
	got := map[string]string{}
	for _, n := range c.names() {
		if b, err := vfs.ReadFile(fsys, n); err == nil {
			got[n] = string(b)
		}
	}
	return got
}

func TestPatchPowerLoss(t *testing.T) {
	n := 40
	if *long {
		n = 600
	}
	ctx := context.Background()
	dir := t.TempDir()
	newWhole, oldWhole := 0, 0
	for i := range n {
		seed := uint64(500 + i)
		r := rand.New(rand.NewPCG(seed, 11))
		c := randomPatch(r)
		mem := vfs.NewMem()
		wsfs := engine.WithWorkspaceFS(func(string) (vfs.FS, error) { return mem, nil })
		store, err := engine.OpenFS(mem, "/mem", wsfs)
		if err != nil {
			t.Fatal(err)
		}
		ws, _ := store.Workspace(dir)
		s := ws.Create(engine.SessionOptions{})
		if _, err := s.ToolWrite(ctx, "warm.txt", []byte("materializes the session")); err != nil {
			t.Fatal(err)
		}
		for name, content := range c.old {
			if _, err := s.ToolWrite(ctx, name, []byte(content)); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		mem.FailAfterSyncs(r.IntN(30))
		_, err = s.ToolPatch(ctx, []byte(c.patch))
		if err == nil {
			err = s.Commit(ctx)
		}
		if err != nil && !errors.Is(err, vfs.ErrCrashed) {
			t.Fatalf("seed %d: %v\n%s", seed, err, c.patch)
		}
		mem.CrashPartial(r)
		mem.FailAfterSyncs(-1)
		s.Close()
		store.Close()

		store, err = engine.OpenFS(mem, "/mem", wsfs)
		if err != nil {
			t.Fatal(err)
		}
		ws, _ = store.Workspace(dir)
		s, err = ws.Open(ctx, s.ID(), engine.SessionOptions{})
		if err != nil {
			t.Fatalf("seed %d: open: %v", seed, err)
		}
		got := c.files(mem)
		isNew, isOld := maps.Equal(got, c.neu), maps.Equal(got, c.old)
		if !isNew && !isOld {
			t.Fatalf("seed %d: the patch is applied in part after opening:\n%v\npatch:\n%s", seed, slices.Sorted(maps.Keys(got)), c.patch)
		}
		l, err := s.Snapshots(ctx)
		if err != nil {
			t.Fatal(err)
		}
		listed := l.Snapshots[len(l.Snapshots)-1].Tool == engine.ToolPatchName
		if listed != isNew {
			t.Fatalf("seed %d: the patch is listed: %v; its files are new: %v", seed, listed, isNew)
		}
		if isNew {
			newWhole++
			if _, err := s.Undo(ctx); err != nil {
				t.Fatalf("seed %d: undo: %v", seed, err)
			}
			if got := c.files(mem); !maps.Equal(got, c.old) {
				t.Fatalf("seed %d: undo left %v", seed, slices.Sorted(maps.Keys(got)))
			}
		} else {
			oldWhole++
		}
		s.Close()
		store.Close()
	}
	if newWhole == 0 || oldWhole == 0 {
		t.Fatalf("%d patches survived whole, %d were unmade: a round should see both", newWhole, oldWhole)
	}
	t.Logf("%d patches survived whole, %d were unmade", newWhole, oldWhole)
}
