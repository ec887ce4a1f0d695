package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"cairn/internal/vfs"
)

// TestToolPatchCrashAtEverySyncPoint: a power loss at each sync point of
// apply_patch, and of the end of its turn, leaves every file old or new;
// the next owner finds the patch whole or unmakes what of it was applied,
// so the files are all old (and no snapshot of the patch is listed) or all
// new (and one undo makes them all old). A patch that returned, with its
// turn ended, is never lost. No temp file is left in the workspace after
// a whole power loss.
func TestToolPatchCrashAtEverySyncPoint(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	big := strings.Repeat("a line of the big file\n", 1500) // over 16 KiB: an object pre-image
	old := map[string]string{"a.txt": "a1\na2\n", "b.txt": "b\n", "src/c.txt": big, "d.txt": "untouched\n"}
	neu := map[string]string{"a.txt": "a1\nA2\n", "lib/c.txt": strings.Replace(big, "a line", "A LINE", 1), "new/e.txt": "e\n", "d.txt": "untouched\n"}
	patch := []byte("*** Begin Patch\n*** Update File: a.txt\n@@\n-a2\n+A2\n*** Delete File: b.txt\n" +
		"*** Update File: src/c.txt\n*** Move to: lib/c.txt\n@@\n-a line of the big file\n+A LINE of the big file\n" +
		"*** Add File: new/e.txt\n+e\n*** End Patch\n")
	names := []string{"a.txt", "b.txt", "src/c.txt", "d.txt", "lib/c.txt", "new/e.txt"}
	files := func(mem *vfs.Mem) map[string]string {
		got := map[string]string{}
		for _, n := range names {
			if b, err := vfs.ReadFile(mem, n); err == nil {
				got[n] = string(b)
			}
		}
		return got
	}
	lists := func(l *SnapshotList) bool {
		for _, sn := range l.Snapshots {
			if sn.Tool == ToolPatchName {
				return true
			}
		}
		return false
	}
	points, mixed := 0, 0
	for n := 0; ; n++ {
		completed := false
		for seed := range 4 {
			mem := vfs.NewMem()
			wsfs := WithWorkspaceFS(func(string) (vfs.FS, error) { return mem, nil })
			st := must(OpenFS(mem, "/mem", wsfs))(t)
			ws := must(st.Workspace(dir))(t)
			s := ws.Create(SessionOptions{})
			must(s.ToolWrite(ctx, "warm.txt", []byte("materializes the session")))(t)
			if err := mem.MkdirAll("src", 0o755); err != nil {
				t.Fatal(err)
			}
			for name, content := range old {
				if err := vfs.WriteFileAtomic(mem, name, []byte(content)); err != nil {
					t.Fatal(err)
				}
			}
			for _, d := range []string{".", "src"} {
				if err := mem.SyncDir(d); err != nil {
					t.Fatal(err)
				}
			}
			mem.FailAfterSyncs(n)
			_, err := s.ToolPatch(ctx, patch)
			if err == nil {
				err = s.Commit(ctx) // the end of the turn: the patch is durable
			}
			if err != nil && !errors.Is(err, vfs.ErrCrashed) {
				t.Fatalf("sync point %d: %v", n, err)
			}
			completed = err == nil
			if seed == 0 {
				mem.Crash()
			} else {
				mem.CrashPartial(rand.New(rand.NewPCG(uint64(n), uint64(seed))))
			}
			s.Close()
			st.Close()

			found := files(mem)
			foundNew, foundOld := maps.Equal(found, neu), maps.Equal(found, old)
			if !foundNew && !foundOld {
				mixed++
			}
			if completed && seed == 0 && !foundNew {
				t.Fatalf("sync point %d: a completed patch was lost: %v", n, found)
			}
			st = must(OpenFS(mem, "/mem", wsfs))(t)
			ws = must(st.Workspace(dir))(t)
			if l := must(ws.Snapshots(ctx, s.ID()))(t); lists(l) != foundNew {
				t.Fatalf("sync point %d seed %d: a reader lists the patch: %v; its files are all new: %v: %v", n, seed, lists(l), foundNew, slices.Sorted(maps.Keys(found)))
			}
			s2, err := ws.Open(ctx, s.ID(), SessionOptions{})
			if err != nil {
				t.Fatalf("sync point %d seed %d: open: %v", n, seed, err)
			}
			got := files(mem)
			isNew := maps.Equal(got, neu)
			if !isNew && !maps.Equal(got, old) {
				t.Fatalf("sync point %d seed %d: the patch is applied in part after opening: %v", n, seed, got)
			}
			if isNew != foundNew {
				t.Fatalf("sync point %d seed %d: opening changed a whole patch", n, seed)
			}
			if l := must(s2.Snapshots(ctx))(t); lists(l) != isNew {
				t.Fatalf("sync point %d seed %d: the owner lists the patch: %v; its files are new: %v", n, seed, lists(l), isNew)
			}
			if isNew {
				must(s2.Undo(ctx))(t)
				if got := files(mem); !maps.Equal(got, old) {
					t.Fatalf("sync point %d seed %d: undo gave %v", n, seed, got)
				}
			}
			s2.Close()
			// A partial power loss may keep a temp file staged before the
			// change line while losing the unsynced hint that names its
			// folder (temps.go says so): only a whole one is checked.
			for _, d := range []string{".", "src", "lib", "new"} {
				if seed > 0 {
					break
				}
				entries, _ := mem.ReadDir(d)
				for _, en := range entries {
					if strings.HasSuffix(en.Name(), ".cairn-tmp") {
						t.Fatalf("sync point %d seed %d: a temp file is left: %s/%s", n, seed, d, en.Name())
					}
				}
			}
			st.Close()
			if completed {
				break
			}
		}
		if completed {
			break
		}
		points++
		if n > 200 {
			t.Fatal("ToolPatch never completed")
		}
	}
	if mixed == 0 {
		t.Fatal("no crash left the patch applied in part")
	}
	t.Logf("%d sync points, %d crashes left the patch applied in part", points, mixed)
}

// TestToolPatchSwapFails: a file that cannot be put in place while the
// patch runs puts back the files before it and cancels the change, so
// nothing was changed; when one of those cannot be put back either, the
// change stays, the error says so, and one undo puts back every file.
func TestToolPatchSwapFails(t *testing.T) {
	for _, stuck := range []bool{false, true} {
		t.Run(map[bool]string{false: "put back", true: "stuck"}[stuck], func(t *testing.T) {
			ctx := context.Background()
			mem := vfs.NewMem()
			faulty := vfs.NewFaulty(mem)
			st := must(OpenFS(mem, "/mem", WithWorkspaceFS(func(string) (vfs.FS, error) { return faulty, nil })))(t)
			defer st.Close()
			ws := must(st.Workspace(t.TempDir()))(t)
			s := ws.Create(SessionOptions{})
			defer s.Close()
			old := map[string]string{"a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n"}
			for name, content := range old {
				if err := vfs.WriteFileAtomic(mem, name, []byte(content)); err != nil {
					t.Fatal(err)
				}
			}
			files := func() map[string]string {
				got := map[string]string{}
				for name := range old {
					if b, err := vfs.ReadFile(mem, name); err == nil {
						got[name] = string(b)
					}
				}
				return got
			}
			faulty.Inject(vfs.Rule{Op: vfs.OpRename, Path: "c.txt"})
			if stuck {
				faulty.Inject(vfs.Rule{Op: vfs.OpRename, Path: "a.txt", Skip: 1})
			}
			_, err := s.ToolPatch(ctx, []byte("*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n*** Delete File: b.txt\n*** Update File: c.txt\n@@\n-c\n+C\n*** End Patch\n"))
			if err == nil {
				t.Fatal("the patch went through")
			}
			l := must(s.Snapshots(ctx))(t)
			if !stuck {
				if !strings.Contains(err.Error(), "nothing was changed") || !maps.Equal(files(), old) || len(l.Snapshots) != 0 {
					t.Fatalf("error %v; files %v; %d snapshots", err, files(), len(l.Snapshots))
				}
				return
			}
			if !strings.Contains(err.Error(), "applied in part") || len(l.Snapshots) != 1 {
				t.Fatalf("error %v; %d snapshots", err, len(l.Snapshots))
			}
			faulty.Reset()
			must(s.Undo(ctx))(t)
			if got := files(); !maps.Equal(got, old) {
				t.Fatalf("undo gave %v", got)
			}
		})
	}
}

// meddler is a workspace whose file a.txt someone else rewrites just before
// its second read: after the patch's plan read it, before its pre-image.
type meddler struct {
	vfs.FS
	reads int
}

func (m *meddler) OpenFile(name string, flag int, perm fs.FileMode) (vfs.File, error) {
	if name == "a.txt" && flag == os.O_RDONLY {
		if m.reads++; m.reads == 2 {
			if err := vfs.WriteFileAtomic(m.FS, "a.txt", []byte("theirs\n")); err != nil {
				return nil, err
			}
		}
	}
	return m.FS.OpenFile(name, flag, perm)
}

// TestToolPatchFileChangedMeanwhile: a file that changes between the plan
// and its pre-image refuses the patch, which changes nothing: the patch
// was worked out from content that is no longer there.
func TestToolPatchFileChangedMeanwhile(t *testing.T) {
	ctx := context.Background()
	mem := vfs.NewMem()
	m := &meddler{FS: mem}
	st := must(OpenFS(mem, "/mem", WithWorkspaceFS(func(string) (vfs.FS, error) { return m, nil })))(t)
	defer st.Close()
	ws := must(st.Workspace(t.TempDir()))(t)
	s := ws.Create(SessionOptions{})
	defer s.Close()
	must(s.ToolWrite(ctx, "b.txt", []byte("b\n")))(t)
	if err := vfs.WriteFileAtomic(mem, "a.txt", []byte("a\n")); err != nil {
		t.Fatal(err)
	}
	_, err := s.ToolPatch(ctx, []byte("*** Begin Patch\n*** Update File: b.txt\n@@\n-b\n+B\n*** Update File: a.txt\n@@\n-a\n+A\n*** End Patch\n"))
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "a.txt changed while the patch was applied") {
		t.Fatalf("error %v", err)
	}
	for name, want := range map[string]string{"a.txt": "theirs\n", "b.txt": "b\n"} {
		if b, _ := vfs.ReadFile(mem, name); string(b) != want {
			t.Fatalf("%s holds %q, want %q", name, b, want)
		}
	}
	if l := must(s.Snapshots(ctx))(t); len(l.Snapshots) != 1 {
		t.Fatalf("%d snapshots", len(l.Snapshots))
	}
}

// TestToolPatchFullDisk: while the changes journal cannot be written, a
// patch that would replace or remove a file is refused and changes
// nothing (its pre-image could not be kept); one that only makes files
// goes through without a snapshot and says so.
func TestToolPatchFullDisk(t *testing.T) {
	ctx := context.Background()
	state, files := vfs.NewFaulty(vfs.NewMem()), vfs.NewMem()
	st := must(OpenFS(state, "/mem", WithWorkspaceFS(func(string) (vfs.FS, error) { return files, nil })))(t)
	defer st.Close()
	ws := must(st.Workspace(t.TempDir()))(t)
	s := ws.Create(SessionOptions{Degrade: true})
	defer s.Close()
	must(s.ToolWrite(ctx, "a.txt", []byte("a\n")))(t)
	state.Inject(vfs.Rule{Op: vfs.OpWrite, Err: syscall.ENOSPC})
	state.Inject(vfs.Rule{Op: vfs.OpCreate, Err: syscall.ENOSPC})
	_, err := s.ToolPatch(ctx, []byte("*** Begin Patch\n*** Add File: new.txt\n+n\n*** Update File: a.txt\n@@\n-a\n+A\n*** End Patch\n"))
	if !errors.Is(err, ErrRefused) {
		t.Fatalf("error %v, want a refusal", err)
	}
	if b, _ := vfs.ReadFile(files, "a.txt"); string(b) != "a\n" {
		t.Fatalf("a.txt holds %q", b)
	}
	if _, err := vfs.ReadFile(files, "new.txt"); err == nil {
		t.Fatal("new.txt was made")
	}
	ans, err := s.ToolPatch(ctx, []byte("*** Begin Patch\n*** Add File: new.txt\n+n\n*** Add File: sub/two.txt\n+2\n*** End Patch\n"))
	if err != nil {
		t.Fatal(err)
	}
	if ans.Snapshot != nil || len(ans.Skipped) != 2 {
		t.Fatalf("answer %+v", ans)
	}
	if b, _ := vfs.ReadFile(files, "sub/two.txt"); string(b) != "2\n" {
		t.Fatalf("sub/two.txt holds %q", b)
	}
}

// TestToolPatchKilledBetweenFiles: a process killed after its patch's
// change line and k of its files (no power loss: what it wrote stays)
// leaves the line the journal's last and the files k new, the rest old.
// For every k the next owner makes them all old and writes the abort; at
// k = all it keeps the patch, which one undo takes back.
func TestToolPatchKilledBetweenFiles(t *testing.T) {
	patch := []byte("*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n*** Delete File: b.txt\n" +
		"*** Update File: c.txt\n*** Move to: d/c.txt\n@@\n-c\n+C\n*** Add File: e.txt\n+e\n*** End Patch\n")
	old := map[string]string{"a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n", "d/c.txt": "<absent>", "e.txt": "<absent>"}
	neu := map[string]string{"a.txt": "A\n", "b.txt": "<absent>", "c.txt": "<absent>", "d/c.txt": "C\n", "e.txt": "e\n"}
	order := []string{"a.txt", "b.txt", "c.txt", "d/c.txt", "e.txt"} // the change line's
	for k := 0; k <= len(order); k++ {
		t.Run(fmt.Sprint(k), func(t *testing.T) {
			e := newSnapEnv(t, "")
			for name, content := range old {
				if content != "<absent>" {
					e.put(name, content)
				}
			}
			s := e.session()
			ans := must(s.ToolPatch(e.ctx, patch))(t)
			for i, f := range ans.Files {
				if f != e.path(order[i]) {
					t.Fatalf("answer files %v", ans.Files)
				}
			}
			id := s.ID()
			must0(t, s.Close())
			// The journal as the kill left it: the change line last.
			name := filepath.Join(e.ws.Folder(), "sessions", id+".changes.jsonl")
			b := must(os.ReadFile(name))(t)
			lines := strings.SplitAfter(string(b), "\n")
			last := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, `"tool":"apply_patch"`) })
			must0(t, os.WriteFile(name, []byte(strings.Join(lines[:last+1], "")), 0o600))
			// The files: the first k as the patch made them, the rest old.
			for i, f := range order {
				want := neu[f]
				if i >= k {
					want = old[f]
				}
				if want == "<absent>" {
					os.Remove(e.path(f))
				} else {
					e.put(f, want)
				}
			}
			s = must(e.ws.Open(e.ctx, id, SessionOptions{}))(t)
			defer s.Close()
			want, kept := old, k == len(order)
			if kept {
				want = neu
			}
			for f, content := range want {
				e.want(f, content)
			}
			if kinds := e.kinds(s); strings.HasSuffix(kinds, "change,abort") == kept {
				t.Fatalf("journal kinds %s", kinds)
			}
			if kept {
				must(s.Undo(e.ctx))(t)
				for f, content := range old {
					e.want(f, content)
				}
			}
		})
	}
}

// TestToolPatchFileRevert: file revert takes a patch's files back with
// the rest of the turn, every file of its one change line (a rename's two
// sides, a created and a deleted file), and unrevert puts them back.
func TestToolPatchFileRevert(t *testing.T) {
	e := newRvEnv(t)
	e.hand("a.txt", "a0\n")
	e.hand("b.txt", "b0\n")
	e.hand("c.txt", "c0\n")
	e.prompt("warm up")
	p := e.prompt("patch it")
	c := e.call(ToolPatchName)
	must(e.s.ToolPatch(e.ctx, []byte("*** Begin Patch\n*** Update File: a.txt\n@@\n-a0\n+a1\n*** Delete File: b.txt\n"+
		"*** Update File: c.txt\n*** Move to: d/c.txt\n@@\n-c0\n+c1\n*** Add File: n.txt\n+n\n*** End Patch\n"), ToolOptions{Call: c.ID}))(t)
	e.result(c)
	after := map[string]string{"a.txt": "a1\n", "b.txt": "<none>", "c.txt": "<none>", "d/c.txt": "c1\n", "n.txt": "n\n"}
	e.want(after)
	must(e.s.Revert(e.ctx, p.ID, RevertFiles))(t)
	e.want(map[string]string{"a.txt": "a0\n", "b.txt": "b0\n", "c.txt": "c0\n", "d/c.txt": "<none>", "n.txt": "<none>"})
	must(e.s.Unrevert(e.ctx))(t)
	e.want(after)
}

// TestToolPatchSwapBackLeavesATemp: a patch put back after a file could
// not be put in place says so when the temp file that held a put-back
// file's patched content cannot be removed, rather than dropping it; the
// files are as they were.
func TestToolPatchSwapBackLeavesATemp(t *testing.T) {
	ctx := context.Background()
	mem := vfs.NewMem()
	faulty := vfs.NewFaulty(mem)
	st := must(OpenFS(mem, "/mem", WithWorkspaceFS(func(string) (vfs.FS, error) { return faulty, nil })))(t)
	defer st.Close()
	ws := must(st.Workspace(t.TempDir()))(t)
	s := ws.Create(SessionOptions{})
	defer s.Close()
	for name, content := range map[string]string{"a.txt": "a\n", "c.txt": "c\n"} {
		if err := vfs.WriteFileAtomic(mem, name, []byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	faulty.Inject(vfs.Rule{Op: vfs.OpRename, Path: "c.txt"})
	faulty.Inject(vfs.Rule{Op: vfs.OpRemove, Path: "*" + vfs.TempSuffix, Err: syscall.EACCES})
	_, err := s.ToolPatch(ctx, []byte("*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n*** Update File: c.txt\n@@\n-c\n+C\n*** End Patch\n"))
	if err == nil || !strings.Contains(err.Error(), "nothing was changed") || !errors.Is(err, syscall.EACCES) ||
		!strings.Contains(err.Error(), "temporary file") {
		t.Fatalf("error %v; want nothing changed, and the temp file left named", err)
	}
	if b, _ := vfs.ReadFile(mem, "a.txt"); string(b) != "a\n" {
		t.Fatalf("a.txt holds %q", b)
	}
}
