package engine

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"cairn/engine/internal/changes"
	"cairn/internal/vfs"
)

// memExecEnv is a store on the crashable in-memory filesystem m, with the
// workspace dir on the disk (shell lines run there).
func memExecEnv(t *testing.T, m vfs.FS, dir string) *snapEnv {
	t.Helper()
	st := must(OpenFS(m, "/mem/home"))(t)
	ws := must(st.Workspace(dir))(t)
	return &snapEnv{t: t, ctx: context.Background(), store: st, ws: ws, dir: dir}
}

// recordTree writes n files of distinct content in folders of 20 under
// dir, with a link and two files of the same content.
func recordTree(t *testing.T, dir string, n int) {
	t.Helper()
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("d%d", i/20), fmt.Sprintf("f%d.txt", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(fmt.Sprintf("file %d: %s\n", i, strings.Repeat("x", i))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"same1.txt", "d0/same2.txt"} {
		if err := os.WriteFile(filepath.Join(dir, p), []byte("the same content"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("d0/f0.txt", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
}

// TestFirstRecordSyncsOncePerFolder: the first whole-workspace record of
// a tree stores every file it reads, and makes them durable together (an
// objects.Batch): one sync of their data and one per folder of the object
// store, not a file sync and a folder sync per file.
func TestFirstRecordSyncsOncePerFolder(t *testing.T) {
	dir := must(Canonical(t.TempDir()))(t)
	const files = 150
	recordTree(t, dir, files)
	putFile(t, dir, "a.txt", "a0")
	m := vfs.NewMem()
	e := memExecEnv(t, m, dir)
	s := e.ws.Create(SessionOptions{})
	defer s.Close()
	e.exec(s, "pwd") // the session's files exist
	before := m.Syncs()
	a := e.exec(s, "x=1; echo $x > a.txt")
	syncs := m.Syncs() - before
	if a.Snapshot == nil || len(e.objectIDs()) < files {
		t.Fatalf("record %+v, %d objects", a, len(e.objectIDs()))
	}
	shards := len(must(m.ReadDir(path.Join(e.ws.dir, "objects")))(t))
	// Beside the objects: the session's files, the shell history line, the
	// call and record lines, the output (about 15 syncs).
	t.Logf("%d files, %d object folders: %d syncs", files, shards, syncs)
	if limit := shards + 20; syncs > limit {
		t.Fatalf("the first record of %d files made %d syncs, want at most %d (%d object folders + 20)", files, syncs, limit, shards)
	}
	if r := e.lastRecord(s); len(r.Files) != 1 || e.content(r.Files[0].Before) != "a0" {
		t.Fatalf("record %+v", r)
	}
}

// TestFirstRecordCrashAtEverySync stops a shell line's first record of a
// tree at every sync point in turn and loses power (cleanly, and with a
// random share of the unsynced changes kept): every object left verifies
// (fsck), a record line that survived names contents before that are
// stored and whole, and a record the call returned is kept. Data before
// the line that names it: the batch of the walk before the call is
// durable before the call line, the one after before the record line.
func TestFirstRecordCrashAtEverySync(t *testing.T) {
	ctx := context.Background()
	dir := must(Canonical(t.TempDir()))(t)
	recordTree(t, dir, 30)
	points, kept := 0, 0
	for n := 0; ; n++ {
		if n > 200 {
			t.Fatal("the record never finished")
		}
		done := false
		for seed := range 3 {
			putFile(t, dir, "a.txt", "a0")
			m := vfs.NewMem()
			e := memExecEnv(t, m, dir)
			s := e.ws.Create(SessionOptions{})
			e.exec(s, "pwd") // a line that only reads: the session's files exist, no record yet
			if k := e.recKinds(s); k != "" {
				t.Fatalf("records before the first one: %s", k)
			}
			m.FailAfterSyncs(n)
			a, err := s.Exec(ctx, "x=1; echo $x > a.txt", ExecOptions{})
			where := fmt.Sprintf("sync point %d seed %d", n, seed)
			if err != nil && !errors.Is(err, vfs.ErrCrashed) {
				t.Fatalf("%s: %v", where, err)
			}
			done = err == nil && a.Snapshot != nil
			if seed == 0 {
				m.Crash()
			} else {
				m.CrashPartial(rand.New(rand.NewPCG(uint64(n), uint64(seed))))
			}
			s.Close()
			e.store.Close()

			e = memExecEnv(t, m, dir)
			if rep := must(e.store.Fsck(ctx))(t); len(rep.Problems) != 0 {
				t.Fatalf("%s: fsck: %+v", where, rep.Problems)
			}
			var rec *recSeen
			for _, l := range e.recLines(s) {
				if l.Kind == changes.KindRecord {
					rec = &l
				}
			}
			switch {
			case rec != nil:
				kept++
				if len(rec.Files) != 1 || rec.Files[0].Path != "a.txt" || e.content(rec.Files[0].Before) != "a0" {
					t.Fatalf("%s: record %+v", where, rec)
				}
			case done:
				t.Fatalf("%s: the record the call returned was lost", where)
			}
			e.store.Close()
		}
		points++
		if done {
			break
		}
	}
	t.Logf("%d sync points, %d records kept", points, kept)
	if kept == 0 || points < 10 {
		t.Fatalf("%d sync points, %d records kept", points, kept)
	}
}

// putFile writes content to rel under dir.
func putFile(t *testing.T, dir, rel, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, rel), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestExecBatchSyncFailureBlocks: when the sync that makes a walk's
// stored files durable fails, the line is blocked (nothing runs) and the
// stat cache learns none of the walk's hashes: the next record reads the
// files again and stores them, so the content before it names is there.
func TestExecBatchSyncFailureBlocks(t *testing.T) {
	e, state := faultyEnv(t)
	s := e.session()
	e.exec(s, "pwd") // the session's files exist
	e.put("a.txt", "a0")
	e.put("b.txt", "b0")
	state.Inject(vfs.Rule{Op: vfs.OpSync, Path: "workspaces/*/objects/*", Err: syscall.EIO})
	_, err := s.Exec(e.ctx, "x=1; echo $x > a.txt", ExecOptions{})
	if err == nil || !strings.Contains(err.Error(), "nothing was run") {
		t.Fatalf("err %v", err)
	}
	e.want("a.txt", "a0")
	state.Reset()
	if n := s.calls.Cache.Len(); n != 0 {
		t.Fatalf("the stat cache learned %d hashes of a walk whose objects are not durable", n)
	}
	a := e.exec(s, "x=1; echo $x > a.txt")
	if a.Snapshot == nil {
		t.Fatalf("%+v", a)
	}
	if r := e.lastRecord(s); len(r.Files) != 1 || e.content(r.Files[0].Before) != "a0" {
		t.Fatalf("record %+v", r)
	}
}
