package importer

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"cairn/engine"
)

const shapes = "../testdata/import/shapes"

// importOne imports files of agent into a fresh store and returns the
// report and a view of the first session.
func importOne(t *testing.T, agent string, files ...string) (*Report, *engine.Workspace, *engine.View) {
	t.Helper()
	store := openStore(t)
	rep, err := Run(context.Background(), store, agent, files, Options{})
	if err != nil {
		t.Fatal(err)
	}
	sr := rep.Sessions[0]
	if sr.Error != "" {
		t.Fatalf("%s: %s", sr.File, sr.Error)
	}
	ws, err := store.ImportWorkspace(sr.Dir)
	if err != nil {
		t.Fatal(err)
	}
	v, err := ws.Read(context.Background(), sr.Session)
	if err != nil {
		t.Fatal(err)
	}
	return rep, ws, v
}

// headCallsAnswered checks that every tool call on the head path has its
// result on the path too, and that every tool call and result the
// session holds is on it (the files hold one conversation, no branch).
func headCallsAnswered(t *testing.T, file string, v *engine.View) {
	t.Helper()
	head := v.Transcript()
	on := map[string]bool{}
	answered := map[string]bool{}
	for _, it := range head {
		on[it.ID] = true
		if it.Type == engine.ToolResult && it.Call != "" {
			answered[it.Call] = true
		}
	}
	calls, results, offCalls, offResults := 0, 0, 0, 0
	for _, it := range v.AllItems() {
		switch it.Type {
		case engine.ToolCall:
			calls++
			if !on[it.ID] {
				offCalls++
			} else if !answered[it.ID] {
				t.Errorf("%s: call %s (%s) is on the head path, its result is not", file, it.ID, it.Tool)
			}
		case engine.ToolResult:
			results++
			if !on[it.ID] {
				offResults++
			}
		}
	}
	if offCalls > 0 || offResults > 0 {
		t.Errorf("%s: %d of %d calls and %d of %d results are off the head path", file, offCalls, calls, offResults, results)
	}
}

// Claude Code 2.1.x parents each parallel tool result to its own tool_use
// line: imported, all the results of one assistant turn are on the head
// path, in a row, and what follows them follows all of them. The real
// vendored transcripts (CLI 2.1.38–39) and the shape written small.
func TestClaudeCodeParallelResultsOnPath(t *testing.T) {
	files := []string{filepath.Join(shapes, "claude-code", "parallel-results.jsonl")}
	real, err := Files(AgentClaudeCode, []string{ccDir})
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range append(files, real...) {
		_, _, v := importOne(t, AgentClaudeCode, file)
		headCallsAnswered(t, file, v)
	}
	_, _, v := importOne(t, AgentClaudeCode, files[0])
	var got []string
	for _, it := range v.Transcript() {
		w := firstWord(it.Text)
		if it.Type == engine.ToolCall {
			w = strings.Join(strings.Fields(it.Text), "")
		}
		got = append(got, string(it.Type)+":"+w)
	}
	want := `user:look reasoning:two tool_call:{"file_path":"/w/shapes/a"} tool_call:{"file_path":"/w/shapes/b"} tool_result:contents tool_result:contents ` +
		`assistant:Both tool_call:{"pattern":"x"} tool_call:{"pattern":"y"} tool_call:{"pattern":"z"} tool_result:z tool_result:x tool_result:y ` +
		`assistant:All user:thanks assistant:You`
	if strings.Join(got, " ") != want {
		t.Fatalf("head path:\n%s\nwant\n%s", strings.Join(got, " "), want)
	}
}

func firstWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// A compaction whose logical parent is not in the file goes on from the
// item before it in the file: the history before it stays on the path.
func TestClaudeCodeCompactionOfMissingParent(t *testing.T) {
	_, _, v := importOne(t, AgentClaudeCode, filepath.Join(shapes, "claude-code", "compact-dangling.jsonl"))
	byID := map[string]engine.Item{}
	for _, it := range v.AllItems() {
		byID[it.ID] = it
	}
	head := v.Transcript()
	var path []string
	for id := head[len(head)-1].ID; id != ""; id = byID[id].Parent {
		path = append([]string{byID[id].Text}, path...)
	}
	got := strings.Join(path, " | ")
	for _, want := range []string{"first prompt before the compaction", "second answer", "This session is being continued", "third answer"} {
		if !strings.Contains(got, want) {
			t.Errorf("path from the head lacks %q:\n%s", want, got)
		}
	}
	roots := 0
	for _, it := range v.AllItems() {
		if it.Parent == "" {
			roots++
		}
	}
	if roots != 1 {
		t.Errorf("%d roots, want the first prompt alone", roots)
	}
}

// Images in a prompt and in a tool's result are attachments whose bytes
// are kept, not the text "[image]".
func TestClaudeCodeImagesAreAttachments(t *testing.T) {
	file := filepath.Join(shapes, "claude-code", "images.jsonl")
	rep, ws, v := importOne(t, AgentClaudeCode, file)
	png, _ := base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")
	n := 0
	for _, it := range v.AllItems() {
		if strings.Contains(it.Text, "[image]") {
			t.Errorf("%s item holds the text [image]: %q", it.Type, it.Text)
		}
		for i, a := range it.Attachments {
			n++
			if a.MediaType != "image/png" || a.Size != int64(len(png)) || !strings.HasSuffix(a.Name, ".png") {
				t.Errorf("attachment %+v", a)
			}
			_, rc, err := ws.ReadAttachment(context.Background(), rep.Sessions[0].Session, it.ID, i+1)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(rc)
			rc.Close()
			if !bytes.Equal(b, png) {
				t.Errorf("attachment bytes differ from the image's")
			}
		}
		if it.Type == engine.User && it.Text != "what is in this screenshot?" {
			t.Errorf("prompt text %q", it.Text)
		}
	}
	if n != 2 {
		t.Fatalf("%d attachments, want the prompt's and the tool result's", n)
	}
}

// Older Claude Code (≤ 2.0) kept sub-agent transcripts beside the session
// (agent-<id>.jsonl): a folder import makes them tasks of the session whose
// lines they name (linked by the Task call's prompt, the only link those
// versions write), counts one no call names, and never imports one as a
// session of its own; naming one imports its session.
func TestClaudeCodeOldLayoutSubagents(t *testing.T) {
	dir := filepath.Join(shapes, "claude-code", "old-layout")
	files, err := Files(AgentClaudeCode, []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || strings.HasPrefix(filepath.Base(files[0]), "agent-") {
		t.Fatalf("files %v, want the session alone", files)
	}
	rep, ws, v := importOne(t, AgentClaudeCode, files...)
	sr := rep.Sessions[0]
	if sr.Tasks != 1 || sr.TaskItems != 4 || sr.Unlinked != 1 || rep.Created != 1 {
		t.Fatalf("report %+v", sr)
	}
	// Every line of the three files is accounted for.
	if got := sr.Stats.Lines["user"] + sr.Stats.Lines["assistant"]; got != 4+4+2 {
		t.Errorf("%d lines counted, the three files hold 10", got)
	}
	tasks, err := ws.Tasks(context.Background(), sr.Session)
	if err != nil || len(tasks) != 1 || tasks[0].ID != "agent-3430b97e" {
		t.Fatalf("tasks %+v %v", tasks, err)
	}
	for _, it := range v.AllItems() {
		if it.Parent == "" && it.Type != engine.User {
			t.Errorf("a stray root: %+v", it)
		}
		if it.Type == engine.ToolCall && it.Task != "agent-3430b97e" {
			t.Errorf("the Task call names task %q", it.Task)
		}
	}
	// Naming the sub-agent's file imports its session (nothing new here).
	named, err := Files(AgentClaudeCode, []string{filepath.Join(dir, "-w-old", "agent-3430b97e.jsonl")})
	if err != nil || len(named) != 1 || named[0] != files[0] {
		t.Fatalf("named agent file: %v %v, want its session %s", named, err, files[0])
	}
	// One whose session is not beside it fails by name.
	lone := filepath.Join(t.TempDir(), "agent-3430b97e.jsonl")
	b, _ := os.ReadFile(filepath.Join(dir, "-w-old", "agent-3430b97e.jsonl"))
	os.WriteFile(lone, b, 0o644)
	rep2, err := Run(context.Background(), openStore(t), AgentClaudeCode, []string{lone}, Options{})
	if err != nil || rep2.Failed != 1 || !strings.Contains(rep2.Sessions[0].Error, "sub-agent") {
		t.Fatalf("a lone sub-agent file: %+v %v", rep2, err)
	}
}

// Codex rollouts from before session_meta import, their directory taken
// from the environment message; one that names no directory fails by
// name, never "unchanged" with nothing imported.
func TestCodexBeforeSessionMeta(t *testing.T) {
	files, err := Files(AgentCodex, []string{filepath.Join(shapes, "codex", "legacy")})
	if err != nil || len(files) != 1 {
		t.Fatalf("files %v %v", files, err)
	}
	rep, _, v := importOne(t, AgentCodex, files...)
	sr := rep.Sessions[0]
	if sr.Source != "5973b6c0-94b8-487b-a530-2aeb6098ae0e" || sr.Dir != "/w/legacy" || !sr.Created || sr.Unchanged {
		t.Fatalf("report %+v", sr)
	}
	var got []string
	for _, it := range v.Transcript() {
		w := firstWord(it.Text)
		if it.Type == engine.ToolCall {
			w = strings.Join(strings.Fields(it.Text), "")
		}
		got = append(got, string(it.Type)+":"+w)
	}
	if strings.Join(got, " ") != `user:old reasoning:look tool_call:{"command":["ls"]} tool_result:a.txt assistant:hello` {
		t.Fatalf("transcript %v", got)
	}
	for _, it := range v.Transcript() {
		if it.Type == engine.ToolResult && it.Call == "" {
			t.Errorf("result not paired with its call")
		}
	}
	files, _ = Files(AgentCodex, []string{filepath.Join(shapes, "codex", "legacy-nocwd")})
	rep, err = Run(context.Background(), openStore(t), AgentCodex, files, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed != 1 || rep.Unchanged != 0 || !strings.Contains(rep.Sessions[0].Error, "before session_meta") {
		t.Fatalf("no cwd: %+v", rep.Sessions[0])
	}
}

// An import after migrate-sessions finds the session where it moved: no
// second session at the old directory, and its spend counted once, the
// source unchanged or grown. The report names the directory the session is
// kept in, the one it moved to.
func TestImportFindsMovedSession(t *testing.T) {
	ctx := context.Background()
	store := openStore(t)
	src := filepath.Join(t.TempDir(), "11111111-1111-4111-8111-111111111111.jsonl")
	gone := filepath.Join(t.TempDir(), "gone")
	lines := `{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"11111111-1111-4111-8111-111111111111","cwd":"` + gone + `","timestamp":"2026-11-01T10:00:00.000Z","message":{"role":"user","content":"hello"}}
{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"11111111-1111-4111-8111-111111111111","cwd":"` + gone + `","timestamp":"2026-11-01T10:00:01.000Z","message":{"id":"m1","role":"assistant","model":"m","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":600,"output_tokens":60}}}
`
	os.WriteFile(src, []byte(lines), 0o644)
	if rep, err := Run(ctx, store, AgentClaudeCode, []string{src}, Options{}); err != nil || rep.Created != 1 {
		t.Fatalf("first import: %+v %v", rep, err)
	}
	moved := t.TempDir()
	if _, err := store.MigrateSessions(ctx, gone, moved, engine.MigrateOptions{}); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(ctx, store, AgentClaudeCode, []string{src}, Options{})
	if err != nil || rep.Created != 0 || rep.Unchanged != 1 || rep.Sessions[0].Dir != moved {
		t.Fatalf("import after the move: %+v %v", rep, err)
	}
	// Grown: the new line goes to the moved session.
	os.WriteFile(src, []byte(lines+`{"type":"user","uuid":"u2","parentUuid":"a1","sessionId":"11111111-1111-4111-8111-111111111111","cwd":"`+gone+`","timestamp":"2026-11-01T10:00:02.000Z","message":{"role":"user","content":"again"}}
`), 0o644)
	rep, err = Run(ctx, store, AgentClaudeCode, []string{src}, Options{})
	if err != nil || rep.Created != 0 || rep.Updated != 1 || rep.Items != 1 {
		t.Fatalf("import of the grown source: %+v %v", rep, err)
	}
	wss, _, err := store.Workspaces()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, w := range wss {
		ss, _, err := w.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		n += len(ss)
		if len(ss) > 0 && w.Path() != moved {
			t.Errorf("a session at %s", w.Path())
		}
	}
	if n != 1 {
		t.Fatalf("%d sessions, want the moved one", n)
	}
	sums, err := store.Usage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var in int64
	for _, s := range sums {
		in += s.InputTokens
	}
	if in != 600 {
		t.Fatalf("usage counts %d input tokens, the source spent 600: %+v", in, sums)
	}
}

// A new session's record is written from the state its lines were made
// from: it says what a fold of the journal says.
func TestImportRecordIsTheJournals(t *testing.T) {
	ctx := context.Background()
	files, err := Files(AgentClaudeCode, []string{ccDir})
	if err != nil {
		t.Fatal(err)
	}
	store := openStore(t)
	rep, err := Run(ctx, store, AgentClaudeCode, files, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, sr := range rep.Sessions {
		ws, err := store.ImportWorkspace(sr.Dir)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Join(ws.Folder(), "sessions", sr.Session+".json")
		written, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		// A record that is missing is rebuilt from the journal by an open.
		os.Remove(name)
		s, err := ws.Open(ctx, sr.Session, engine.SessionOptions{Brief: true})
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		folded, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		// The open settles the import's turn (its usage line is there):
		// the rest is the journal's.
		var a, b map[string]any
		json.Unmarshal(written, &a)
		json.Unmarshal(folded, &b)
		delete(a, "settled_turn")
		delete(b, "settled_turn")
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: record written\n%s\nthe journal's\n%s", sr.File, written, folded)
		}
	}
}
