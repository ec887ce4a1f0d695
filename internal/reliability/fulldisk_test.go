package reliability

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"

	"cairn/engine"
	"cairn/internal/vfs"
)

// The full-disk recovery round: a session run as the REPL runs one
// (Degrade, a turn per prompt, a commit per tool line) meets a fault that
// comes and goes. Every prompt must reach its journal in order once the
// fault is gone, the tools must snapshot again, undo must work, and no
// tool may destroy a file's content without a pre-image meanwhile.

// replStep is one line typed at the REPL: a prompt, a tool line or /undo.
type replStep struct {
	kind string // "prompt", "write", "rm", "undo"
	path string
	text string
}

// replScript is what the round types: prompts, writes over one file and
// new ones, an rm of a file it made, and undos.
func replScript(n int) []replStep {
	var out []replStep
	for i := range n {
		out = append(out, replStep{kind: "prompt", text: fmt.Sprintf("prompt %d", i)})
		switch i % 4 {
		case 0:
			out = append(out, replStep{kind: "write", path: "keep.txt", text: fmt.Sprintf("keep v%d", i)})
		case 1:
			out = append(out, replStep{kind: "write", path: fmt.Sprintf("new%d.txt", i), text: fmt.Sprintf("new %d", i)})
		case 2:
			out = append(out, replStep{kind: "rm", path: fmt.Sprintf("new%d.txt", i-1)})
		case 3:
			out = append(out, replStep{kind: "undo"})
		}
	}
	return out
}

// diskFault is a way the disks fail while the fault lasts.
type diskFault struct {
	name   string
	inject func(state, files *vfs.Faulty)
}

var diskFaults = []diskFault{
	{"both-full", func(state, files *vfs.Faulty) {
		for _, f := range []*vfs.Faulty{state, files} {
			f.Inject(vfs.Rule{Op: vfs.OpWrite, Err: syscall.ENOSPC})
			f.Inject(vfs.Rule{Op: vfs.OpCreate, Err: syscall.ENOSPC})
		}
	}},
	{"state-full", func(state, _ *vfs.Faulty) {
		state.Inject(vfs.Rule{Op: vfs.OpWrite, Err: syscall.ENOSPC})
		state.Inject(vfs.Rule{Op: vfs.OpCreate, Err: syscall.ENOSPC})
	}},
	{"state-sync-eio", func(state, _ *vfs.Faulty) {
		state.Inject(vfs.Rule{Op: vfs.OpSync, Err: syscall.EIO})
	}},
}

// TestFullDiskRecoveryREPL runs the script with the fault on from step
// from to step to, for windows starting every few steps (every step with
// -long) and of a few lengths, for every fault kind.
func TestFullDiskRecoveryREPL(t *testing.T) {
	script, every := replScript(8), 3
	if *long {
		script, every = replScript(16), 1
	}
	rounds := 0
	for _, fault := range diskFaults {
		for from := 0; from < len(script); from += every {
			for _, length := range []int{1, 4, 9} {
				to := min(from+length, len(script))
				name := fmt.Sprintf("%s/steps-%d-%d", fault.name, from, to)
				fullDiskRound(t, name, script, fault, from, to)
				rounds++
			}
		}
	}
	t.Logf("%d rounds", rounds)
}

func fullDiskRound(t *testing.T, name string, script []replStep, fault diskFault, from, to int) {
	ctx := context.Background()
	state, files := vfs.NewFaulty(vfs.NewMem()), vfs.NewFaulty(vfs.NewMem())
	store, err := engine.OpenFS(state, "/mem", engine.WithWorkspaceFS(func(string) (vfs.FS, error) { return files, nil }))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ws, err := store.Workspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var notices []string
	opts := engine.SessionOptions{Degrade: true, Notice: func(m string) { notices = append(notices, m) }}
	s := ws.Create(opts)
	defer func() { s.Close() }()
	fail := func(format string, a ...any) {
		t.Helper()
		t.Fatalf("%s: %s\nnotices: %q", name, fmt.Sprintf(format, a...), notices)
	}
	read := func(p string) (string, bool) {
		b, err := vfs.ReadFile(files, p)
		return string(b), err == nil
	}
	var prompts []string
	for i, step := range script {
		if i == from {
			fault.inject(state, files)
		}
		if i == to {
			state.Reset()
			files.Reset()
		}
		faulted := i >= from && i < to
		switch step.kind {
		case "prompt":
			if _, err := s.Append(ctx, engine.Item{Type: engine.User, Text: step.text}); err != nil {
				fail("step %d: a prompt failed: %v", i, err)
			}
			if err := s.EndTurn(ctx, engine.Turn{Labels: []string{"prompt"}}); err != nil {
				fail("step %d: a turn failed: %v", i, err)
			}
			prompts = append(prompts, step.text)
		case "write", "rm":
			before, existed := read(step.path)
			var a *engine.ToolAnswer
			if step.kind == "write" {
				a, err = s.ToolWrite(ctx, step.path, []byte(step.text))
			} else {
				a, err = s.ToolRm(ctx, step.path)
			}
			after, exists := read(step.path)
			changed := after != before || exists != existed
			if err != nil {
				if changed {
					fail("step %d: %s %s failed (%v) yet changed the file", i, step.kind, step.path, err)
				}
				if !faulted && !errors.Is(err, engine.ErrBadInput) {
					fail("step %d: %s %s failed with no fault on: %v", i, step.kind, step.path, err)
				}
				continue
			}
			if existed && a.Snapshot == nil {
				fail("step %d: %s destroyed %s with no pre-image", i, step.kind, step.path)
			}
			if !faulted && a.Snapshot == nil {
				fail("step %d: %s %s took no snapshot with no fault on", i, step.kind, step.path)
			}
			if err := s.Commit(ctx); err != nil {
				fail("step %d: commit: %v", i, err)
			}
		case "undo":
			if _, err := s.Undo(ctx); err != nil && !faulted && !errors.Is(err, engine.ErrRefused) {
				fail("step %d: undo with no fault on: %v", i, err)
			}
		}
	}
	if to >= len(script) {
		state.Reset()
		files.Reset()
	}
	// Once the fault is gone: undo, and a write after it, work.
	if _, err := s.Undo(ctx); err != nil && !errors.Is(err, engine.ErrRefused) {
		fail("undo after the fault: %v", err)
	}
	a, err := s.ToolWrite(ctx, "keep.txt", []byte("after the fault"))
	if err != nil || a.Snapshot == nil {
		fail("a write after the fault: %+v, %v", a, err)
	}
	if _, err := s.Undo(ctx); err != nil {
		fail("undo of the write after the fault: %v", err)
	}
	if got, _ := read("keep.txt"); got == "after the fault" {
		fail("undo did not put keep.txt back")
	}
	if !s.Recorded() {
		fail("still unrecorded after the fault: %v", s.Unrecorded())
	}
	id := s.ID()
	if err := s.Close(); err != nil {
		fail("close: %v", err)
	}
	if got := countNotices(notices, "recorded again"); got != countNotices(notices, "cannot be recorded") {
		fail("%d notices of going unrecorded, %d of being recorded again", countNotices(notices, "cannot be recorded"), got)
	}
	rep, err := store.Fsck(ctx)
	if err != nil {
		fail("fsck: %v", err)
	}
	for _, p := range rep.Problems {
		fail("fsck: %s: %s", p.Path, p.Problem)
	}
	r, err := ws.Open(ctx, id, engine.SessionOptions{})
	if err != nil {
		fail("reopen: %v", err)
	}
	defer r.Close()
	var got []string
	for _, it := range r.Transcript() {
		got = append(got, it.Text)
	}
	if strings.Join(got, "|") != strings.Join(prompts, "|") {
		fail("transcript on disk %q, want %q", got, prompts)
	}
}

func countNotices(ns []string, words string) int {
	n := 0
	for _, m := range ns {
		if strings.Contains(m, words) {
			n++
		}
	}
	return n
}
