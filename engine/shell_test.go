package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"testing"
	"unicode/utf8"

	"cairn/engine/internal/shell"
	"cairn/internal/vfs"
)

func TestShellStartFinishHistory(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t)
	s := newSession(t, e.ws)
	r1, err := s.ShellStart(ctx, "cargo test --release")
	if err != nil {
		t.Fatal(err)
	}
	r2, err := s.ShellStart(ctx, "cargo test")
	if err != nil {
		t.Fatal(err)
	}
	r3, err := s.ShellStart(ctx, "./secret-script --token abc")
	if err != nil {
		t.Fatal(err)
	}
	if r1.ID() != "shell-cargo-test" || r2.ID() != "shell-cargo-test-2" || r3.ID() != "shell" {
		t.Fatalf("run ids %q %q %q", r1.ID(), r2.ID(), r3.ID())
	}
	if err := r1.Finish(ctx, 101, []byte("out"), []byte("err")); err != nil {
		t.Fatal(err)
	}
	if err := r1.Finish(ctx, 0, nil, nil); !errors.Is(err, ErrBadInput) {
		t.Fatalf("second Finish: %v", err)
	}
	h, err := e.ws.ShellHistory(ctx, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	got := ""
	for _, x := range h {
		got += fmt.Sprintf("%s|%s|%s|%d|%s|%s;", x.Run, x.Cmd, x.Status, x.Exit, x.Stdout, x.Stderr)
	}
	want := "shell-cargo-test|cargo test --release|finished|101|out|err;" +
		"shell-cargo-test-2|cargo test|running|0||;" +
		"shell|./secret-script --token abc|running|0||;"
	if got != want {
		t.Fatalf("history:\n%s\nwant\n%s", got, want)
	}
	if h[0].StartedAt.IsZero() || h[0].EndedAt.IsZero() || !h[1].EndedAt.IsZero() {
		t.Fatalf("times: %+v", h[:2])
	}
	// Closing the session while a command runs leaves it interrupted; a
	// reopen does not revive it, and the next run id does not reuse it.
	id := s.ID()
	s.Close()
	if err := r2.Finish(ctx, 0, nil, nil); err == nil {
		t.Fatal("Finish after Close succeeded")
	}
	s2, err := e.ws.Open(ctx, id, SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	h, _ = e.ws.ShellHistory(ctx, id)
	if len(h) != 3 || h[1].Status != ShellInterrupted || h[2].Status != ShellInterrupted || h[0].Status != ShellFinished {
		t.Fatalf("after reopen: %+v", h)
	}
	r4, err := s2.ShellStart(ctx, "cargo test")
	if err != nil || r4.ID() != "shell-cargo-test-3" {
		t.Fatalf("after reopen: %v %v", r4, err)
	}
}

// The start line is written and synced before ShellStart returns: after a
// power loss right then, the command reads as interrupted.
func TestShellInterruptedAfterCrash(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t)
	s := newSession(t, e.ws)
	done, err := s.ShellStart(ctx, "go vet ./...")
	if err != nil {
		t.Fatal(err)
	}
	if err := done.Finish(ctx, 0, []byte("ok"), nil); err != nil {
		t.Fatal(err)
	}
	syncs := e.mem.Syncs()
	r, err := s.ShellStart(ctx, "go test ./...")
	if err != nil {
		t.Fatal(err)
	}
	if e.mem.Syncs() == syncs {
		t.Fatal("ShellStart returned without a sync")
	}
	if h, _ := e.ws.ShellHistory(ctx, s.ID()); len(h) != 2 || h[1].Status != ShellRunning {
		t.Fatalf("before the crash: %+v", h)
	}
	e.mem.Crash()
	h, err := e.ws.ShellHistory(ctx, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != 2 || h[0].Status != ShellFinished || h[0].Stdout != "ok" || h[1].Run != r.ID() || h[1].Status != ShellInterrupted {
		t.Fatalf("after the crash: %+v", h)
	}
	// A new owner sees it interrupted too, and never finishes it.
	s2, err := e.ws.Open(ctx, s.ID(), SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if h, _ := e.ws.ShellHistory(ctx, s.ID()); len(h) != 2 || h[1].Status != ShellInterrupted {
		t.Fatalf("after reopen: %+v", h)
	}
}

// If the start cannot be recorded, ShellStart fails and nothing is
// recorded; once the fault is gone, commands record again.
func TestShellStartWriteFault(t *testing.T) {
	ctx := context.Background()
	for _, op := range []vfs.Op{vfs.OpWrite, vfs.OpSync, vfs.OpCreate} {
		t.Run(op.String(), func(t *testing.T) {
			e := newMemEnv(t)
			s := newSession(t, e.ws)
			e.faulty.Inject(vfs.Rule{Op: op, Path: "workspaces/*/sessions/*.shell.jsonl", Err: errENOSPC})
			if _, err := s.ShellStart(ctx, "make"); err == nil {
				t.Fatal("ShellStart succeeded without recording")
			}
			if h, err := e.ws.ShellHistory(ctx, s.ID()); err != nil || len(h) != 0 {
				t.Fatalf("recorded after a failed start: %+v %v", h, err)
			}
			e.faulty.Reset()
			r, err := s.ShellStart(ctx, "make")
			if err != nil {
				t.Fatal(err)
			}
			if err := r.Finish(ctx, 2, nil, []byte("boom")); err != nil {
				t.Fatal(err)
			}
			h, _ := e.ws.ShellHistory(ctx, s.ID())
			if len(h) != 1 || h[0].Run != "shell-make" || h[0].Exit != 2 || h[0].Stderr != "boom" {
				t.Fatalf("after the fault: %+v", h)
			}
		})
	}
}

// A failed Finish can be retried; meanwhile the command reads as running.
func TestShellFinishRetry(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t)
	s := newSession(t, e.ws)
	r, err := s.ShellStart(ctx, "ls")
	if err != nil {
		t.Fatal(err)
	}
	e.faulty.Inject(vfs.Rule{Op: vfs.OpSync, Path: "workspaces/*/sessions/*.shell.jsonl", Count: 1})
	if err := r.Finish(ctx, 0, []byte("a"), nil); err == nil {
		t.Fatal("Finish hid a failed sync")
	}
	if err := r.Finish(ctx, 0, []byte("a"), nil); err != nil {
		t.Fatal(err)
	}
	h, _ := e.ws.ShellHistory(ctx, s.ID())
	// The unsynced first end line may or may not be there: either way one
	// finished entry.
	if len(h) != 1 || h[0].Status != ShellFinished || h[0].Stdout != "a" {
		t.Fatalf("%+v", h)
	}
}

func TestShellKeepsTheEndOfEachStream(t *testing.T) {
	ctx := context.Background()
	_, ws := testStore(t)
	s := newSession(t, ws)
	out := bytes.Repeat([]byte("0123456789"), 10000) // 100,000 bytes
	out = append(out, "THE END"...)
	errb := append([]byte("é"), bytes.Repeat([]byte("é"), ShellKeepBytes/2)...) // 2-byte runes; the cut falls mid-rune
	errb = append([]byte("x"), errb...)
	r, _ := s.ShellStart(ctx, "cat big")
	if err := r.Finish(ctx, 0, out, errb); err != nil {
		t.Fatal(err)
	}
	h, err := ws.ShellHistory(ctx, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	x := h[0]
	if len(x.Stdout) != ShellKeepBytes || !strings.HasSuffix(x.Stdout, "THE END") || x.StdoutCut != int64(len(out)-ShellKeepBytes) {
		t.Fatalf("stdout: %d bytes, cut %d", len(x.Stdout), x.StdoutCut)
	}
	if !utf8.ValidString(x.Stderr) || len(x.Stderr) > ShellKeepBytes || int64(len(x.Stderr))+x.StderrCut != int64(len(errb)) {
		t.Fatalf("stderr: %d bytes, cut %d, valid %v", len(x.Stderr), x.StderrCut, utf8.ValidString(x.Stderr))
	}
	// A caller that kept only the tail of a stream: the bytes it dropped
	// count as cut too, with what the history cuts of what it was given.
	r, _ = s.ShellStart(ctx, "cat bigger")
	if err := r.finishTails(ctx, 0, shellTail{Bytes: out, Dropped: 1000}, shellTail{Bytes: []byte("e"), Dropped: 7}); err != nil {
		t.Fatal(err)
	}
	h, _ = ws.ShellHistory(ctx, s.ID())
	if y := h[1]; y.StdoutCut != int64(len(out)-ShellKeepBytes)+1000 || y.Stdout != x.Stdout || y.StderrCut != 7 || y.Stderr != "e" {
		t.Fatalf("dropped tails: stdout cut %d, stderr %q cut %d", y.StdoutCut, y.Stderr, y.StderrCut)
	}
	// Short streams are kept whole.
	r, _ = s.ShellStart(ctx, "echo hi")
	r.Finish(ctx, 0, []byte("hi\n"), nil)
	h, _ = ws.ShellHistory(ctx, s.ID())
	if h[2].Stdout != "hi\n" || h[2].StdoutCut != 0 || h[2].Stderr != "" {
		t.Fatalf("short: %+v", h[2])
	}
}

// More than 400 settled commands rewrite the journal with the newest 200;
// ShellHistory never returns more than 200 settled ones; a running
// command survives the rewrite.
func TestShellHistoryCap(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t)
	s := newSession(t, e.ws)
	long, err := s.ShellStart(ctx, "cargo build")
	if err != nil {
		t.Fatal(err)
	}
	size := func() int64 {
		fi, err := e.mem.Stat(shellName(e.ws.dir, s.ID()))
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	var peak int64
	for i := 1; i <= 450; i++ {
		r, err := s.ShellStart(ctx, fmt.Sprintf("echo %d", i))
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Finish(ctx, i%3, []byte(fmt.Sprint(i)), nil); err != nil {
			t.Fatal(err)
		}
		peak = max(peak, size())
		if i == 300 {
			h, _ := e.ws.ShellHistory(ctx, s.ID())
			if len(h) != ShellKeep+1 || h[0].Run != "shell-cargo-build" || h[1].Stdout != "101" || h[ShellKeep].Stdout != "300" {
				t.Fatalf("at 300: %d entries, first %+v", len(h), h[0])
			}
		}
	}
	// 401 settled triggered a rewrite down to 200 (after the taken line of
	// the ids it dropped); 49 more since.
	n := 0
	journalLines(t, e.mem, shellName(e.ws.dir, s.ID()), func(string) { n++ })
	if n != 1+2*(ShellKeep+49)+1 {
		t.Fatalf("journal holds %d lines after the rewrite", n)
	}
	if size() >= peak {
		t.Fatalf("the journal did not shrink: %d, peak %d", size(), peak)
	}
	h, err := e.ws.ShellHistory(ctx, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != ShellKeep+1 || h[0].Status != ShellRunning || h[1].Stdout != "251" || h[ShellKeep].Stdout != "450" {
		t.Fatalf("after the rewrite: %d entries, %+v ... %+v", len(h), h[1], h[len(h)-1])
	}
	if err := long.Finish(ctx, 0, []byte("built"), nil); err != nil {
		t.Fatal(err)
	}
	h, _ = e.ws.ShellHistory(ctx, s.ID())
	if len(h) != ShellKeep || h[0].Run != "shell-cargo-build" || h[0].Stdout != "built" || h[1].Stdout != "252" {
		t.Fatalf("the long run settled: %d, first %+v", len(h), h[0])
	}
	// Ids stay unique across the rewrite.
	seen := map[string]bool{}
	for _, x := range h {
		if seen[x.Run] {
			t.Fatalf("run id %q twice", x.Run)
		}
		seen[x.Run] = true
	}
	// The rewrite is durable.
	e.mem.Crash()
	h, _ = e.ws.ShellHistory(ctx, s.ID())
	if len(h) != ShellKeep || h[0].Run != "shell-cargo-build" || h[1].Stdout != "252" {
		t.Fatalf("after a crash: %d, last %+v", len(h), h[len(h)-1])
	}
}

func journalLines(t *testing.T, fsys vfs.FS, name string, fn func(string)) {
	t.Helper()
	b, err := vfs.ReadFile(fsys, name)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		fn(l)
	}
}

func TestShellHistoryNotInForksDeletedWithSession(t *testing.T) {
	ctx := context.Background()
	_, ws := testStore(t)
	s := newSession(t, ws)
	r, _ := s.ShellStart(ctx, "pwd")
	r.Finish(ctx, 0, []byte("/x"), nil)
	other := newSession(t, ws)
	if h, err := ws.ShellHistory(ctx, other.ID()); err != nil || len(h) != 0 {
		t.Fatalf("another session's history: %+v %v", h, err)
	}
	if err := ws.deleteShellHistory(s.ID()); err != nil {
		t.Fatal(err)
	}
	if h, err := ws.ShellHistory(ctx, s.ID()); err != nil || len(h) != 0 {
		t.Fatalf("after delete: %+v %v", h, err)
	}
	if _, err := ws.ShellHistory(ctx, newSessionID()); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown session: %v", err)
	}
	if _, err := ws.ShellHistory(ctx, "../x"); !errors.Is(err, ErrBadInput) {
		t.Fatalf("bad id: %v", err)
	}
}

// Another process owning the session: its start line reads as running
// while it holds the lock, interrupted once it is gone.
func TestShellHistoryOtherOwner(t *testing.T) {
	ctx := context.Background()
	e := newMemEnv(t)
	s := newSession(t, e.ws)
	id := s.ID()
	s.Close()
	// A start written by pid 1 (not this process).
	name := shellName(e.ws.dir, id)
	line := fmt.Sprintf(`{"v":1,"kind":"start","run":"shell-ls","at":%q,"cmd":"ls","pid":1,"owner":"o-x"}`+"\n", mkTime(e.clock()).Format(timeLayout))
	vfs.WriteFileAtomic(e.mem, name, []byte(line))
	if h, _ := e.ws.ShellHistory(ctx, id); len(h) != 1 || h[0].Status != ShellInterrupted {
		t.Fatalf("no owner: %+v", h)
	}
	l, err := e.mem.Lock(lockName(e.ws.dir, id))
	if err != nil {
		t.Fatal(err)
	}
	l.File().Truncate(0)
	l.File().Write([]byte("1\n"))
	if h, _ := e.ws.ShellHistory(ctx, id); len(h) != 1 || h[0].Status != ShellRunning {
		t.Fatalf("owned by pid 1: %+v", h)
	}
	l.Release()
	if h, _ := e.ws.ShellHistory(ctx, id); len(h) != 1 || h[0].Status != ShellInterrupted {
		t.Fatalf("owner gone: %+v", h)
	}
}

// A run id is never given again once the rewrite dropped its command (seed
// 000: existing ids stay valid; use the returned id unchanged): an old
// reference to a dropped run must not name a newer command. The rewrite
// keeps, per label, the highest suffix it dropped; a session opened again
// reads it back.
func TestShellIDsNotReusedAfterRewrite(t *testing.T) {
	ctx := context.Background()
	_, ws := testStore(t)
	s := newSession(t, ws)
	given := map[string]bool{}
	run := func(s *Session, cmd string) string {
		t.Helper()
		r := must(s.ShellStart(ctx, cmd))(t)
		must(0, r.Finish(ctx, 0, nil, nil))(t)
		if given[r.ID()] {
			t.Fatalf("run id %s given twice", r.ID())
		}
		given[r.ID()] = true
		return r.ID()
	}
	run(s, "ls")
	for range shell.CompactAt + 1 {
		run(s, "echo hi")
	}
	run(s, "echo again") // after the rewrite dropped shell-ls and the first echoes
	run(s, "ls")
	must(0, s.Close())(t)
	re := must(ws.Open(ctx, s.ID(), SessionOptions{}))(t)
	defer re.Close()
	run(re, "echo reopened")
	run(re, "ls")
}

// deleteShellHistory removes session's shell history (with the session).
func (w *Workspace) deleteShellHistory(session string) error {
	if !validSessionID(session) {
		return fmt.Errorf("%w: %q is not a session id", ErrBadInput, session)
	}
	name := shellName(w.dir, session)
	if err := w.s.fsys.Remove(name); err != nil {
		if vfs.IsNotExist(err) {
			return nil
		}
		return fmt.Errorf("engine: delete shell history: %w", err)
	}
	return w.s.fsys.SyncDir(path.Dir(name))
}
