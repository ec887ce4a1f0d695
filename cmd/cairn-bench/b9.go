package main

// B9 a file-edit hook pair: `cairn hook claude-code` run as the agent runs
// it, one whole process per event (fork to exit, the event's JSON on
// stdin), for PreToolUse and PostToolUse of an Edit of one 4 KiB file in a
// workspace of 10,000 files (2,000 with --quick), in a session that already
// holds a prompt and earlier edits. Between the two the bench plays the
// agent's write (untimed). The anchor is the floor of any hook: the same
// binary started for `cairn --version`. Goal: each hook at most 30 ms
// (the agent waits on it at every tool call); the ratio to the anchor is
// shown for scale.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

func init() { register(Case{Name: "B9", Run: runB9}) }

func runB9(env *Env) ([]Row, error) {
	files, edits := 10_000, 40
	if env.Quick {
		files, edits = 2_000, 10
	}
	bin := filepath.Join(env.Dir, "cairn")
	build := exec.Command("go", "build", "-o", bin, "cairn/cmd/cairn")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		return nil, fmt.Errorf("build cairn: %w", err)
	}
	home, ws := filepath.Join(env.Dir, "home"), filepath.Join(env.Dir, "ws")
	r := rand.New(rand.NewPCG(9, 9))
	names := make([]string, files)
	for i := range names {
		names[i] = filepath.Join(ws, fmt.Sprintf("d%03d", i/100), fmt.Sprintf("f%05d.go", i))
		if i%100 == 0 {
			if err := os.MkdirAll(filepath.Dir(names[i]), 0o755); err != nil {
				return nil, err
			}
		}
		if err := os.WriteFile(names[i], textBytes(r, 4<<10), 0o644); err != nil {
			return nil, err
		}
	}
	hook := func(ev map[string]any) (float64, error) {
		ev["session_id"], ev["cwd"], ev["transcript_path"] = "b9-session", ws, "/tmp/b9.jsonl"
		b, _ := json.Marshal(ev)
		cmd := exec.Command(bin, "hook", "claude-code")
		cmd.Env = append(os.Environ(), "CAIRN_HOME="+home)
		cmd.Stdin = bytes.NewReader(b)
		var errb bytes.Buffer
		cmd.Stderr = &errb
		start := time.Now()
		err := cmd.Run()
		ms := float64(time.Since(start).Nanoseconds()) / 1e6
		if err == nil && errb.Len() > 0 {
			err = fmt.Errorf("%s", errb.String())
		}
		return ms, err
	}
	if _, err := hook(map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "edit many files"}); err != nil {
		return nil, err
	}
	var pre, post, floor []float64
	for k := range edits {
		name := names[r.IntN(files)]
		in := map[string]any{"file_path": name, "old_string": "a", "new_string": "b"}
		id := fmt.Sprintf("toolu_%04d", k)
		p, err := hook(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_input": in, "tool_use_id": id})
		if err != nil {
			return nil, fmt.Errorf("PreToolUse: %w", err)
		}
		if err := os.WriteFile(name, textBytes(r, 4<<10), 0o644); err != nil {
			return nil, err
		}
		q, err := hook(map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Edit", "tool_input": in, "tool_use_id": id})
		if err != nil {
			return nil, fmt.Errorf("PostToolUse: %w", err)
		}
		f, err := timed(func() error { return exec.Command(bin, "--version").Run() })
		if err != nil {
			return nil, err
		}
		pre, post, floor = append(pre, p), append(post, q), append(floor, f)
	}
	size := fmt.Sprintf("%d files, %d edits", files, edits)
	fm := b4Median(floor)
	met := func(ms float64) func(float64) bool { return func(float64) bool { return ms <= 30 } }
	pm, qm := b4Median(pre), b4Median(post)
	return []Row{
		row("B9 PreToolUse", size, pm, "cairn --version", fm, "<=30 ms", met(pm), 0),
		row("B9 PostToolUse", size, qm, "cairn --version", fm, "<=30 ms", met(qm), 0),
	}, nil
}
