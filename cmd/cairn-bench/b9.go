package main

// B9 a file-edit hook pair: `cairn hook claude-code` run as the agent runs
// it, one whole process per event (fork to exit, the event's JSON on
// stdin), for PreToolUse and PostToolUse of an Edit of one 4 KiB file in a
// workspace of 10,000 files (2,000 with --quick), in a session that already
// holds a prompt and earlier edits. Between the two the bench plays the
// agent's write (untimed). Then again in a long session: about 5,000 items
// brought in from a 30 MB transcript (6 MB with --quick), where each round
// is a turn as the agent plays it: the prompt's hook (which brings in what
// the transcript gained since the last one), the transcript's lines, the
// edit's two hooks. The anchor is the floor of any hook: the same binary
// started for `cairn --version`. Goal: each hook at most 30 ms (the agent
// waits on it at every tool call and prompt), whatever the session's
// size; the ratio to the anchor is shown for scale.
//
// The hooks are played in turn by `cairn hook claude-code` and by the hook
// program that hook install writes, `cairn-hook claude-code` (built beside
// cairn; for an old binary, the one beside it if there is one): its rows
// end in "(cairn-hook)". Both are built as the README installs them,
// without cgo.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"cairn/engine"
	"cairn/importer"
)

func init() { register(Case{Name: "B9", Run: runB9}) }

func runB9(env *Env) ([]Row, error) {
	bin := filepath.Join(env.Dir, "cairn")
	for _, p := range []string{"cairn", "cairn-hook"} {
		// As the README installs them: static (no cgo).
		build := exec.Command("go", "build", "-o", filepath.Join(env.Dir, p), "cairn/cmd/"+p)
		build.Env, build.Stderr = append(os.Environ(), "CGO_ENABLED=0"), os.Stderr
		if err := build.Run(); err != nil {
			return nil, fmt.Errorf("build %s: %w", p, err)
		}
	}
	old := os.Getenv("CAIRN_BENCH_B9_OLD")
	if old == "" {
		return runB9With(env, bin, "", filepath.Join(env.Dir, "new"))
	}
	// Another build (CAIRN_BENCH_B9_OLD names its binary) in the same
	// run, before this one, its rows marked "old".
	rows, err := runB9With(env, old, "old ", filepath.Join(env.Dir, "old"))
	if err != nil {
		return nil, err
	}
	more, err := runB9With(env, bin, "", filepath.Join(env.Dir, "new"))
	return append(rows, more...), err
}

// b9Programs are the hook commands B9 plays in turn: `bin hook`, and the
// hook program beside bin when there is one.
func b9Programs(bin string) [][]string {
	progs := [][]string{{bin, "hook", "claude-code"}}
	hook := filepath.Join(filepath.Dir(bin), "cairn-hook")
	if fi, err := os.Stat(hook); err == nil && fi.Mode()&0o111 != 0 {
		progs = append(progs, []string{hook, "claude-code"})
	}
	return progs
}

// runB9With runs B9 with the binary bin in the folder dir, its rows'
// names starting with label.
func runB9With(env *Env, bin, label, dir string) ([]Row, error) {
	files, edits := 10_000, 40
	bigSize := int64(30 << 20)
	if env.Quick {
		files, edits, bigSize = 2_000, 10, 6<<20
	}
	home, ws := filepath.Join(dir, "home"), filepath.Join(dir, "ws")
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
	run := func(stdin []byte, argv ...string) (float64, error) {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = append(os.Environ(), "CAIRN_HOME="+home)
		cmd.Stdin = bytes.NewReader(stdin)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		start := time.Now()
		err := cmd.Run()
		ms := float64(time.Since(start).Nanoseconds()) / 1e6
		if err == nil && errb.Len()+out.Len() > 0 {
			err = fmt.Errorf("%s%s", out.String(), errb.String())
		}
		return ms, err
	}
	progs := b9Programs(bin)
	// hookOf plays a hook by the k-th program, in turn.
	hookOf := func(session, transcript string, k int) func(ev map[string]any) (float64, error) {
		return func(ev map[string]any) (float64, error) {
			ev["session_id"], ev["cwd"], ev["transcript_path"] = session, ws, transcript
			b, _ := json.Marshal(ev)
			return run(b, progs[k%len(progs)]...)
		}
	}
	// Each program's times, and their rows.
	type times struct{ pre, post, prompt, floor []float64 }
	each := make([]times, len(progs))
	name := func(k int, what string) string {
		if k == 0 {
			return label + "B9 " + what
		}
		return label + "B9 " + what + " (cairn-hook)"
	}
	floor := func() (float64, error) { return timed(func() error { return exec.Command(bin, "--version").Run() }) }
	met := func(ms float64) func(float64) bool { return func(float64) bool { return ms <= 30 } }

	// A short session: a prompt, then the edits.
	if _, err := hookOf("b9-session", filepath.Join(dir, "none.jsonl"), 0)(map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "edit many files"}); err != nil {
		return nil, err
	}
	for k := range edits {
		p, q, err := b9Edit(hookOf("b9-session", filepath.Join(dir, "none.jsonl"), k), r, names, fmt.Sprintf("toolu_%04d", k))
		if err != nil {
			return nil, err
		}
		f, err := floor()
		if err != nil {
			return nil, err
		}
		t := &each[k%len(progs)]
		t.pre, t.post, t.floor = append(t.pre, p), append(t.post, q), append(t.floor, f)
	}
	size := fmt.Sprintf("%d files, %d edits", files, edits)
	var rows []Row
	for k, t := range each {
		fm, pm, qm := b4Median(t.floor), b4Median(t.pre), b4Median(t.post)
		rows = append(rows,
			row(name(k, "PreToolUse"), size, pm, "cairn --version", fm, "<=30 ms", met(pm), 0),
			row(name(k, "PostToolUse"), size, qm, "cairn --version", fm, "<=30 ms", met(qm), 0))
	}
	each = make([]times, len(progs))

	// A long session: its transcript brought in, then turns.
	const sid = "b9b1b9b1-0000-4000-8000-000000000009"
	tpath := filepath.Join(dir, sid+".jsonl")
	tf, err := os.Create(tpath)
	if err != nil {
		return nil, err
	}
	err = importer.GenerateClaudeCodeScaled(tf, 99, bigSize, sid, ws, 4)
	if cerr := tf.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	imp := exec.Command(bin, "import", "claude-code", tpath)
	imp.Env = append(os.Environ(), "CAIRN_HOME="+home)
	if out, err := imp.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("import: %v: %s", err, out)
	}
	fi, _ := os.Stat(tpath)
	turn := 0
	// The first prompt hook reads the whole transcript once (untimed):
	// every later one reads on from where it stopped.
	if _, err := hookOf(sid, tpath, 0)(map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "go on"}); err != nil {
		return nil, err
	}
	last := b9LastUUID(tpath)
	for k := range edits {
		turn++
		big := hookOf(sid, tpath, k)
		prompt := fmt.Sprintf("edit file %d", k)
		id := fmt.Sprintf("toolu_big_%04d", k)
		q, err := big(map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": prompt})
		if err != nil {
			return nil, fmt.Errorf("UserPromptSubmit: %w", err)
		}
		u := fmt.Sprintf("b9-%04d-u", k)
		if err := b9Lines(tpath, sid, ws, &last,
			map[string]any{"type": "user", "uuid": u, "message": map[string]any{"role": "user", "content": prompt}},
			map[string]any{"type": "assistant", "uuid": u + "-a", "message": map[string]any{"id": "msg_" + u, "role": "assistant", "model": "claude-opus-4-6",
				"content": []any{map[string]any{"type": "tool_use", "id": id, "name": "Edit", "input": map[string]any{"file_path": "x"}}}}}); err != nil {
			return nil, err
		}
		p, s, err := b9Edit(big, r, names, id)
		if err != nil {
			return nil, err
		}
		if err := b9Lines(tpath, sid, ws, &last,
			map[string]any{"type": "user", "uuid": u + "-r", "message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": "ok"}}}},
			map[string]any{"type": "assistant", "uuid": u + "-t", "message": map[string]any{"id": "msg_" + u + "t", "role": "assistant", "model": "claude-opus-4-6",
				"content": []any{map[string]any{"type": "text", "text": "Edited."}}}}); err != nil {
			return nil, err
		}
		f, err := floor()
		if err != nil {
			return nil, err
		}
		t := &each[k%len(progs)]
		t.pre, t.post, t.prompt, t.floor = append(t.pre, p), append(t.post, s), append(t.prompt, q), append(t.floor, f)
	}
	items, err := b9Items(bin, home, ws, sid)
	if err != nil {
		return nil, err
	}
	size = fmt.Sprintf("%d items, %d MB transcript", items, fi.Size()>>20)
	for k, t := range each {
		fm, pm, qm, um := b4Median(t.floor), b4Median(t.pre), b4Median(t.post), b4Median(t.prompt)
		rows = append(rows,
			row(name(k, "PreToolUse"), size, pm, "cairn --version", fm, "<=30 ms", met(pm), 0),
			row(name(k, "PostToolUse"), size, qm, "cairn --version", fm, "<=30 ms", met(qm), 0),
			row(name(k, "UserPromptSubmit"), size, um, "cairn --version", fm, "<=30 ms", met(um), 0))
	}
	return rows, nil
}

// b9Edit plays one Edit: its PreToolUse hook, the agent's write, its
// PostToolUse hook; the two hooks' times.
func b9Edit(hook func(map[string]any) (float64, error), r *rand.Rand, names []string, id string) (float64, float64, error) {
	name := names[r.IntN(len(names))]
	in := map[string]any{"file_path": name, "old_string": "a", "new_string": "b"}
	p, err := hook(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_input": in, "tool_use_id": id})
	if err != nil {
		return 0, 0, fmt.Errorf("PreToolUse: %w", err)
	}
	if err := os.WriteFile(name, textBytes(r, 4<<10), 0o644); err != nil {
		return 0, 0, err
	}
	q, err := hook(map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Edit", "tool_input": in, "tool_use_id": id})
	if err != nil {
		return 0, 0, fmt.Errorf("PostToolUse: %w", err)
	}
	return p, q, nil
}

// b9Lines appends transcript lines, each under the one before (last).
func b9Lines(path, sid, cwd string, last *string, lines ...map[string]any) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	for _, l := range lines {
		l["parentUuid"], l["sessionId"], l["cwd"], l["timestamp"] = *last, sid, cwd, time.Now().UTC().Format(time.RFC3339Nano)
		b, _ := json.Marshal(l)
		if _, err := f.Write(append(b, '\n')); err != nil {
			return err
		}
		*last = l["uuid"].(string)
	}
	return nil
}

// b9LastUUID is the uuid of the transcript's last line that has one.
func b9LastUUID(path string) string {
	b, _ := os.ReadFile(path)
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		var l struct{ UUID string }
		if json.Unmarshal(lines[i], &l) == nil && l.UUID != "" {
			return l.UUID
		}
	}
	return ""
}

// b9Items is how many items the agent session sid holds, as `cairn
// sessions --json` says.
func b9Items(bin, home, ws, sid string) (int, error) {
	cmd := exec.Command(bin, "-C", ws, "sessions", "--json")
	cmd.Env = append(os.Environ(), "CAIRN_HOME="+home)
	out, err := cmd.Output()
	if err != nil {
		return 0, err
	}
	var ss []struct {
		ID    string `json:"id"`
		Items int    `json:"items"`
	}
	if err := json.Unmarshal(out, &ss); err != nil {
		return 0, err
	}
	for _, s := range ss {
		if s.ID == sessionOf(sid) {
			return s.Items, nil
		}
	}
	return 0, fmt.Errorf("session of %s not listed", sid)
}

// sessionOf is the cairn session id of Claude Code session sid.
func sessionOf(sid string) string { return engine.ImportSessionID(importer.AgentClaudeCode, sid) }
