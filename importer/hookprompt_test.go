package importer

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"cairn/engine"
)

// shapeByContent is a session's items as their types, tools, texts, and
// the same of their parents and calls, recursively, ids aside (the hooks'
// prompts have ids of their own), with the head's: what a session holds,
// whoever made it.
func shapeByContent(t *testing.T, store *engine.Store, dir, id string) []string {
	t.Helper()
	ws, err := store.ImportWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	v, err := ws.Read(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]engine.Item{}
	for _, it := range v.AllItems() {
		byID[it.ID] = it
	}
	memo := map[string]string{}
	var canon func(id string) string
	canon = func(id string) string {
		if id == "" {
			return "-"
		}
		if c, ok := memo[id]; ok {
			return c
		}
		it := byID[id]
		// The parent's and the call's by their hashes: a path's shape,
		// not its whole text again at every item.
		h := sha256.Sum256(fmt.Appendf(nil, "%s %s %q <%s> call:%s", it.Type, it.Tool, it.Text, canon(it.Parent), canon(it.Call)))
		c := fmt.Sprintf("%s %s %.40q %x", it.Type, it.Tool, it.Text, h[:8])
		memo[id] = c
		return c
	}
	var out []string
	for id := range byID {
		out = append(out, canon(id))
	}
	slices.Sort(out)
	head := v.Transcript()
	return append(out, "head "+canon(head[len(head)-1].ID))
}

// transcriptWriter appends Claude Code transcript lines, each under the
// one before.
type transcriptWriter struct {
	t         *testing.T
	path, sid string
	cwd, last string
	n         int
}

func (w *transcriptWriter) line(l map[string]any) {
	w.t.Helper()
	w.n++
	uuid := fmt.Sprintf("00000000-0000-4000-8000-%012d", w.n)
	l["uuid"], l["sessionId"], l["cwd"], l["timestamp"] = uuid, w.sid, w.cwd, time.Now().UTC().Format(time.RFC3339Nano)
	if w.last != "" {
		l["parentUuid"] = w.last
	}
	b, _ := json.Marshal(l)
	f, err := os.OpenFile(w.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		w.t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(append(b, '\n')); err != nil {
		w.t.Fatal(err)
	}
	w.last = uuid
}

func (w *transcriptWriter) prompt(text string) {
	w.line(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": text}})
}

// The safety net of the prompt hook's index and appended mark: a session
// the hooks built over many turns (random prompts, the same text again,
// tool calls with their pre- and post-tool hooks between, a prompt's
// transcript line written before its hook or after it, a turn's end now
// and then by a Stop hook or a whole open, a SessionEnd hook last) holds
// what a full import of the same transcript makes.
func TestHookPromptsEqualImport(t *testing.T) {
	ctx := context.Background()
	for seed := range 3 {
		r := rand.New(rand.NewPCG(29, uint64(seed)))
		work := t.TempDir()
		sid := fmt.Sprintf("5afe7e00-0000-4000-8000-%012d", seed)
		tw := &transcriptWriter{t: t, path: filepath.Join(t.TempDir(), sid+".jsonl"), sid: sid, cwd: work}
		hooks := openStore(t)
		ws, err := hooks.ImportWorkspace(work)
		if err != nil {
			t.Fatal(err)
		}
		a := engine.AgentSession{Agent: AgentClaudeCode, ID: sid, Transcript: tw.path}
		opts := engine.SessionOptions{Brief: true}
		catchUp := func(s *engine.Session, p *engine.PendingPrompt) {
			if _, err := os.Stat(tw.path); err != nil {
				return
			}
			if _, err := CatchUp(ctx, ws, s, a, tw.path, p); err != nil {
				t.Fatal(err)
			}
		}
		texts := []string{"continue", "go on", "fix the test"}
		for turn := range 25 {
			text := texts[r.IntN(len(texts))]
			if r.IntN(2) == 0 {
				text = fmt.Sprintf("turn %d: edit the file", turn)
			}
			first := r.IntN(2) == 0 // the agent wrote the prompt's line before the hook ran
			if first {
				tw.prompt(text)
			}
			p := &engine.PendingPrompt{Text: text, At: time.Now()}
			if _, err := ws.RecordAgentPrompt(ctx, a, opts, time.Second, text, "", func(s *engine.Session) { catchUp(s, p) }); err != nil {
				t.Fatalf("turn %d: %v", turn, err)
			}
			if !first {
				tw.prompt(text)
			}
			for c := range r.IntN(3) {
				call := fmt.Sprintf("toolu_%d_%d_%d", seed, turn, c)
				file := filepath.Join(work, fmt.Sprintf("f%d.txt", r.IntN(4)))
				tw.line(map[string]any{"type": "assistant", "message": map[string]any{"id": "msg_" + call, "role": "assistant", "model": "claude-opus-4-6",
					"content": []any{map[string]any{"type": "tool_use", "id": call, "name": "Write", "input": map[string]any{"file_path": file}}}}})
				if _, err := ws.BeginAgentChange(ctx, a, opts, time.Second, "write", call, []string{file}); err != nil {
					t.Fatal(err)
				}
				os.WriteFile(file, fmt.Appendf(nil, "turn %d call %d\n", turn, c), 0o644)
				if _, err := ws.SettleAgentChange(ctx, a, opts, time.Second, call); err != nil {
					t.Fatal(err)
				}
				tw.line(map[string]any{"type": "user", "message": map[string]any{"role": "user",
					"content": []any{map[string]any{"type": "tool_result", "tool_use_id": call, "content": "ok"}}}})
			}
			tw.line(map[string]any{"type": "assistant", "message": map[string]any{"id": fmt.Sprintf("msg_t%d", turn), "role": "assistant", "model": "claude-opus-4-6",
				"content": []any{map[string]any{"type": "text", "text": "Done with " + text}}}})
			switch r.IntN(4) {
			case 0:
				// A turn's end, as the Stop hook records it: the session
				// opened from the index, the transcript brought in.
				if err := ws.EndAgentTurn(ctx, a, opts, time.Second, &engine.Turn{Labels: []string{AgentClaudeCode}}, func(s *engine.Session) { catchUp(s, nil) }); err != nil {
					t.Fatal(err)
				}
			case 1:
				// A whole open (the REPL, an older cairn) brings it in.
				s, err := ws.OpenAgent(ctx, a, opts, false, time.Second)
				if err != nil {
					t.Fatal(err)
				}
				catchUp(s, nil)
				if err := s.EndTurn(ctx, engine.Turn{Labels: []string{AgentClaudeCode}}); err != nil {
					t.Fatal(err)
				}
				s.Close()
			}
		}
		// SessionEnd: the transcript brought in, no turn.
		if err := ws.EndAgentTurn(ctx, a, opts, time.Second, nil, func(s *engine.Session) { catchUp(s, nil) }); err != nil {
			t.Fatal(err)
		}

		whole := openStore(t)
		rep, err := Run(ctx, whole, AgentClaudeCode, []string{tw.path}, Options{})
		if err != nil || rep.Sessions[0].Error != "" {
			t.Fatalf("import: %v %+v", err, rep.Sessions)
		}
		id := engine.ImportSessionID(AgentClaudeCode, sid)
		got, want := shapeByContent(t, hooks, work, id), shapeByContent(t, whole, work, id)
		if !slices.Equal(got, want) {
			for i := range min(len(got), len(want)) {
				if got[i] != want[i] {
					t.Fatalf("seed %d: the hooks' session and the import differ (%d and %d items); first difference:\n%s\n%s", seed, len(got), len(want), got[i], want[i])
				}
			}
			t.Fatalf("seed %d: %d items from the hooks, %d from the import", seed, len(got), len(want))
		}
		if n := strings.Count(strings.Join(got, "\n"), "\nuser  "); n < 25 {
			t.Fatalf("seed %d: %d prompts", seed, n)
		}
	}
}
