package importer

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"cairn/engine"
)

const (
	ccDir    = "../testdata/import/claude-code"
	codexDir = "../testdata/import/codex"
	codexOne = codexDir + "/rollout-2025-12-28T12-18-30-019b64e5-57fa-7463-b644-fba7e456f905.jsonl"
)

// typeCounts counts a file's complete lines by their "type" field, as
// `jq -r .type FILE | sort | uniq -c` does: the tally the importer's own
// accounting must match.
func typeCounts(t *testing.T, file string) map[string]int {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var l struct{ Type string }
		if json.Unmarshal(sc.Bytes(), &l) != nil {
			t.Fatalf("%s: a line that is not JSON", file)
		}
		out[l.Type]++
	}
	// Where jq is installed, its own count of the file must say the same.
	if _, err := exec.LookPath("jq"); err == nil {
		b, err := exec.Command("jq", "-r", ".type", file).Output()
		if err != nil {
			t.Fatalf("jq over %s: %v", file, err)
		}
		byJQ := map[string]int{}
		for _, typ := range strings.Fields(string(b)) {
			if typ == "null" {
				typ = ""
			}
			byJQ[typ]++
		}
		if !maps.Equal(byJQ, out) {
			t.Fatalf("%s: jq counts %v, the tally %v", file, byJQ, out)
		}
	}
	return out
}

// accounted checks that every line of every type is in the stats once:
// it made items, was merged into an earlier item, or was left out by kind.
func accounted(t *testing.T, file string, st Stats, nItems int) {
	t.Helper()
	want := typeCounts(t, file)
	for typ, n := range want {
		if st.Lines[typ] != n {
			t.Errorf("%s: %d %q lines read, the file has %d", file, st.Lines[typ], typ, n)
		}
		got := st.Made[typ]
		if typ == "assistant" {
			got += st.Merged
		}
		for k, v := range st.Skipped {
			if k == typ || strings.HasPrefix(k, typ+"/") {
				got += v
			}
		}
		if got != n {
			t.Errorf("%s: %q lines: %d accounted for (made %d, skipped %v, merged %d), the file has %d", file, typ, got, st.Made[typ], st.Skipped, st.Merged, n)
		}
	}
	sum := 0
	for _, v := range st.Items {
		sum += v
	}
	if sum != nItems {
		t.Errorf("%s: items by type add up to %d, %d made", file, sum, nItems)
	}
}

func TestClaudeCodeAccountsForEveryLine(t *testing.T) {
	files, err := Files(AgentClaudeCode, []string{ccDir})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 4 {
		t.Fatalf("files: %v (want the four vendored sessions, no sub-agent files)", files)
	}
	for _, file := range files {
		f, _ := os.Open(file)
		src, st, err := ClaudeCode(f, file)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		accounted(t, file, st, len(src.Items))
		if src.Dir == "" || src.SourceID == "" || src.Created.IsZero() {
			t.Errorf("%s: dir %q source %q created %v", file, src.Dir, src.SourceID, src.Created)
		}
		// Every tool result whose tool_use is in the file is paired with it.
		calls := map[string]bool{}
		for _, it := range src.Items {
			if it.Type == engine.ToolCall {
				calls[it.Key] = true
			}
		}
		paired := 0
		for _, it := range src.Items {
			if it.Type == engine.ToolResult {
				if !calls[it.CallKey] {
					t.Errorf("%s: tool result %s answers %q, no call of this file", file, it.Key, it.CallKey)
				}
				paired++
			}
		}
		if st.Items[string(engine.ToolCall)] > 0 && paired == 0 {
			t.Errorf("%s: tool calls but no paired results", file)
		}
	}
}

// A message split over several lines of the same message id is one item.
func TestClaudeCodeMergesSplitMessages(t *testing.T) {
	const lines = `{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","cwd":"/w","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"hi"}}
{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","timestamp":"2026-01-01T00:00:01Z","message":{"id":"m1","role":"assistant","model":"claude-x","content":[{"type":"text","text":"Hello, "}],"usage":{"input_tokens":3,"cache_read_input_tokens":7,"output_tokens":1}}}
{"type":"assistant","uuid":"a2","parentUuid":"a1","sessionId":"s","timestamp":"2026-01-01T00:00:02Z","message":{"id":"m1","role":"assistant","model":"claude-x","content":[{"type":"text","text":"world."}],"usage":{"input_tokens":3,"cache_read_input_tokens":7,"output_tokens":5}}}
{"type":"assistant","uuid":"a3","parentUuid":"a2","sessionId":"s","timestamp":"2026-01-01T00:00:03Z","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]}}
{"type":"progress","uuid":"p1","parentUuid":"a3","sessionId":"s","timestamp":"2026-01-01T00:00:04Z"}
{"type":"user","uuid":"r1","parentUuid":"p1","sessionId":"s","timestamp":"2026-01-01T00:00:05Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"a.txt"}]}}
`
	src, st, err := ClaudeCode(strings.NewReader(lines), "/x/s.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range src.Items {
		got = append(got, string(it.Type)+":"+it.Text+":"+it.ParentKey)
	}
	want := []string{"user:hi:", "assistant:Hello, world.:u1", `tool_call:{"command":"ls"}:a1`, "tool_result:a.txt:a3"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("items\n got %q\nwant %q", got, want)
	}
	if src.Items[3].CallKey != "a3" || st.Merged != 1 || st.Skipped["progress"] != 1 {
		t.Fatalf("call %q merged %d skipped %v", src.Items[3].CallKey, st.Merged, st.Skipped)
	}
	if src.Spend != (engine.Spend{InputTokens: 10, OutputTokens: 5}) || src.Model != "claude-x" {
		t.Fatalf("spend %+v model %q: want the message's last usage once", src.Spend, src.Model)
	}
}

func TestCodexItems(t *testing.T) {
	f, _ := os.Open(codexOne)
	defer f.Close()
	src, st, err := Codex(f, codexOne)
	if err != nil {
		t.Fatal(err)
	}
	accounted(t, codexOne, st, len(src.Items))
	var got []string
	for _, it := range src.Items {
		got = append(got, string(it.Type))
	}
	want := "user reasoning tool_call tool_result tool_call tool_result assistant compaction user"
	if strings.Join(got, " ") != want {
		t.Fatalf("items %q, want %q", got, want)
	}
	if src.Items[3].CallKey != src.Items[2].Key || src.Items[5].CallKey != src.Items[4].Key || src.Items[4].Tool != "apply_patch" {
		t.Fatalf("calls not paired: %+v", src.Items)
	}
	if !strings.HasPrefix(src.Items[5].Text, "Success.") {
		t.Fatalf("custom tool output %q: want its output field", src.Items[5].Text)
	}
	if src.SourceID != "019b64e5-57fa-7463-b644-fba7e456f905" || src.Dir != "/Users/macmini/Code/homelab-migration" ||
		src.Model != "gpt-5.2-codex" || src.Spend != (engine.Spend{InputTokens: 11800, OutputTokens: 310}) {
		t.Fatalf("source %q dir %q model %q spend %+v", src.SourceID, src.Dir, src.Model, src.Spend)
	}
	if st.Skipped["world_state"] != 1 || st.Skipped["response_item/reasoning"] != 1 {
		t.Fatalf("skipped %v: want the unknown type and the encrypted-only reasoning counted", st.Skipped)
	}
}

// A torn last line is not read and is reported; the offset stops before it.
func TestCodexTornTail(t *testing.T) {
	file := codexDir + "/torn/rollout-2025-12-29T09-00-00-019b7777-0000-7000-8000-00000000abcd.jsonl"
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	src, st, err := Codex(bytes.NewReader(b), file)
	if err != nil {
		t.Fatal(err)
	}
	cut := int64(len(b) - (bytes.LastIndexByte(b, '\n') + 1))
	if st.Torn != cut || src.Offset != int64(len(b))-cut || cut == 0 {
		t.Fatalf("torn %d offset %d, file %d bytes with %d torn", st.Torn, src.Offset, len(b), cut)
	}
	if len(src.Items) != 8 {
		t.Fatalf("%d items, want the 8 before the torn line", len(src.Items))
	}
}

func openStore(t *testing.T) *engine.Store {
	t.Helper()
	s, err := engine.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Importing twice adds nothing; a source that grew adds only its new lines.
func TestImportIsIdempotent(t *testing.T) {
	ctx := context.Background()
	store := openStore(t)
	files, err := Files(AgentClaudeCode, []string{ccDir})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(ctx, store, AgentClaudeCode, files, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Created != 4 || rep.Failed != 0 || rep.Items == 0 {
		t.Fatalf("first import: %+v", rep)
	}
	for _, sr := range rep.Sessions {
		ws, err := store.ImportWorkspace(sr.Dir)
		if err != nil {
			t.Fatal(err)
		}
		v, err := ws.Read(ctx, sr.Session)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(v.AllItems()); n != sr.Items {
			t.Fatalf("%s: the session holds %d items, the import made %d", sr.File, n, sr.Items)
		}
		if v.Record.Title == "" {
			t.Fatalf("%s: no title", sr.File)
		}
	}
	again, err := Run(ctx, store, AgentClaudeCode, files, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if again.Unchanged != 4 || again.Items != 0 {
		t.Fatalf("second import: %+v", again)
	}

	// The source grows by one prompt: only it is added, under the old head.
	dir := t.TempDir()
	grown := filepath.Join(dir, "short.jsonl")
	b, _ := os.ReadFile(filepath.Join(ccDir, "short.jsonl"))
	var last struct {
		UUID string `json:"uuid"`
		Cwd  string `json:"cwd"`
	}
	ls := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	for i := len(ls) - 1; i >= 0 && last.UUID == ""; i-- {
		json.Unmarshal(ls[i], &last)
	}
	extra := `{"type":"user","uuid":"00000000-0000-4000-8000-000000000001","parentUuid":"` + last.UUID + `","sessionId":"55604662-cf2a-4331-851a-ec234028f8ca","cwd":"` + last.Cwd + `","timestamp":"2026-02-11T00:00:00Z","message":{"role":"user","content":"and now?"}}` + "\n"
	os.WriteFile(grown, append(b, extra...), 0o600)
	more, err := Run(ctx, store, AgentClaudeCode, []string{grown}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sr := more.Sessions[0]; sr.Items != 1 || sr.Created || sr.Error != "" {
		t.Fatalf("grown source: %+v", sr)
	}
}

// A dry run says what a real run then does, and writes nothing.
func TestImportDryRunEqualsRun(t *testing.T) {
	ctx := context.Background()
	store := openStore(t)
	files, _ := Files(AgentCodex, []string{codexDir})
	dry, err := Run(ctx, store, AgentCodex, files, Options{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(filepath.Join(store.Home(), "workspaces")); len(ents) != 0 {
		t.Fatalf("a dry run wrote workspaces: %v", ents)
	}
	real, err := Run(ctx, store, AgentCodex, files, Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(dry.Sessions)
	b, _ := json.Marshal(real.Sessions)
	if string(a) != string(b) || real.Created != 2 {
		t.Fatalf("dry run\n%s\nreal run\n%s", a, b)
	}
}

// A compressed rollout reads as the plain one.
func TestCodexCompressed(t *testing.T) {
	b, _ := os.ReadFile(codexOne)
	dir := t.TempDir()
	zf := filepath.Join(dir, filepath.Base(codexOne)+".zst")
	e, _ := zstd.NewWriter(nil)
	os.WriteFile(zf, e.EncodeAll(b, nil), 0o600)
	files, _ := Files(AgentCodex, []string{dir})
	if len(files) != 1 || files[0] != zf {
		t.Fatalf("files %v", files)
	}
	rep, err := Run(context.Background(), openStore(t), AgentCodex, files, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sr := rep.Sessions[0]; sr.Items != 9 || sr.Error != "" {
		t.Fatalf("%+v", sr)
	}
	// Beside its plain copy, the plain file is read.
	os.WriteFile(strings.TrimSuffix(zf, ".zst"), b, 0o600)
	if files, _ := Files(AgentCodex, []string{dir}); len(files) != 1 || files[0] != strings.TrimSuffix(zf, ".zst") {
		t.Fatalf("files %v", files)
	}
}

// The source files are never written.
func TestImportLeavesSourcesAlone(t *testing.T) {
	files, _ := Files(AgentClaudeCode, []string{ccDir})
	before := map[string]os.FileInfo{}
	for _, f := range files {
		before[f], _ = os.Stat(f)
	}
	if _, err := Run(context.Background(), openStore(t), AgentClaudeCode, files, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		fi, _ := os.Stat(f)
		if fi.Size() != before[f].Size() || !fi.ModTime().Equal(before[f].ModTime()) {
			t.Fatalf("%s changed", f)
		}
	}
}

// A sub-agent's transcript (<session>/subagents/agent-<id>.jsonl) comes in
// as a task of the Task call it ran for, its items all there; the
// automatic compaction's agent, which no call names, is counted and left
// out; a second import adds no task item.
func TestClaudeCodeSubagentsAsTasks(t *testing.T) {
	ctx := context.Background()
	store := openStore(t)
	file := filepath.Join(ccDir, "ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl")
	rep, err := Run(ctx, store, AgentClaudeCode, []string{file}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	sr := rep.Sessions[0]
	if sr.Error != "" || sr.Tasks != 1 || sr.Unlinked != 1 {
		t.Fatalf("%+v", sr)
	}
	sub := filepath.Join(ccDir, "ae4a77f8-aedd-4bc1-888f-c94edc91af04", "subagents", "agent-aac57f5.jsonl")
	f, _ := os.Open(sub)
	src, st, err := ClaudeCode(f, sub)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	accounted(t, sub, st, len(src.Items))
	if sr.TaskItems != len(src.Items) || len(src.Items) == 0 {
		t.Fatalf("%d task items imported, the transcript makes %d", sr.TaskItems, len(src.Items))
	}
	ws, err := store.ImportWorkspace(sr.Dir)
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := ws.Tasks(ctx, sr.Session)
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 1 || tasks[0].ID != "agent-aac57f5" || tasks[0].State != engine.TaskSettled {
		t.Fatalf("tasks %+v", tasks)
	}
	tv, err := ws.ReadTask(ctx, sr.Session, tasks[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(tv.AllItems()); n != len(src.Items) {
		t.Fatalf("the task's transcript holds %d items, want %d", n, len(src.Items))
	}
	// The session's Task call names the task.
	v, err := ws.Read(ctx, sr.Session)
	if err != nil {
		t.Fatal(err)
	}
	named := 0
	for _, it := range v.AllItems() {
		if it.Task == tasks[0].ID && it.Type == engine.ToolCall {
			named++
		}
	}
	if named != 1 {
		t.Fatalf("%d call items name the task", named)
	}
	again, err := Run(ctx, store, AgentClaudeCode, []string{file}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if again.TaskItems != 0 || again.Items != 0 {
		t.Fatalf("second import: %+v", again.Sessions[0])
	}
}

// A sub-agent transcript that grew since the last import gets only its new
// items, though its session's own file did not change.
func TestClaudeCodeSubagentGrows(t *testing.T) {
	ctx := context.Background()
	store := openStore(t)
	dir := t.TempDir()
	name := "ae4a77f8-aedd-4bc1-888f-c94edc91af04"
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, name, "subagents"), 0o755))
	for _, f := range []string{name + ".jsonl", name + "/subagents/agent-aac57f5.jsonl"} {
		b, err := os.ReadFile(filepath.Join(ccDir, f))
		must(err)
		must(os.WriteFile(filepath.Join(dir, f), b, 0o600))
	}
	file := filepath.Join(dir, name+".jsonl")
	first, err := Run(ctx, store, AgentClaudeCode, []string{file}, Options{})
	must(err)
	sub := filepath.Join(dir, name, "subagents", "agent-aac57f5.jsonl")
	b, _ := os.ReadFile(sub)
	ls := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	var last struct {
		UUID string `json:"uuid"`
	}
	json.Unmarshal(ls[len(ls)-1], &last)
	extra := `{"type":"assistant","uuid":"00000000-0000-4000-8000-0000000000aa","parentUuid":"` + last.UUID + `","isSidechain":true,"agentId":"aac57f5","sessionId":"` + name + `","timestamp":"2026-02-12T00:00:00Z","message":{"id":"m-new","role":"assistant","content":[{"type":"text","text":"one more thing"}]}}` + "\n"
	must(os.WriteFile(sub, append(b, extra...), 0o600))
	again, err := Run(ctx, store, AgentClaudeCode, []string{file}, Options{})
	must(err)
	if sr := again.Sessions[0]; sr.Unchanged || sr.TaskItems != 1 || sr.Items != 0 || sr.Error != "" {
		t.Fatalf("after the sub-agent grew: %+v (first import %d task items)", sr, first.TaskItems)
	}
}

// A source that cannot be brought in says why in the words the user reads
// on stderr: never the name of a package inside cairn.
func TestImportErrorSpeaksToTheUser(t *testing.T) {
	store := openStore(t)
	src := filepath.Join(t.TempDir(), "s.jsonl")
	line := `{"type":"user","uuid":"00000000-0000-4000-8000-000000000001","sessionId":"55604662-cf2a-4331-851a-ec234028f8ca","cwd":"relative","timestamp":"2026-02-11T00:00:00Z","message":{"role":"user","content":"hi"}}` + "\n"
	if err := os.WriteFile(src, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(t.Context(), store, AgentClaudeCode, []string{src}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Sessions) != 1 || rep.Failed != 1 {
		t.Fatalf("report %+v, want one failed source", rep)
	}
	if e := rep.Sessions[0].Error; e != `bad input: the source's directory "relative" is not absolute` {
		t.Fatalf("error %q", e)
	}
}

// The report names a source's directory as cairn keeps it: cleaned, as the
// workspace is keyed and stored, whatever the source wrote ("/a/../x/./y").
func TestImportReportsTheCleanDirectory(t *testing.T) {
	store := openStore(t)
	ws := t.TempDir()
	src := filepath.Join(t.TempDir(), "s.jsonl")
	messy := "/a/../.." + ws + "/./sub/.."
	line := `{"type":"user","uuid":"00000000-0000-4000-8000-000000000001","sessionId":"55604662-cf2a-4331-851a-ec234028f8ca","cwd":"` + messy + `","timestamp":"2026-02-11T00:00:00Z","message":{"role":"user","content":"hi"}}` + "\n"
	if err := os.WriteFile(src, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, dry := range []bool{true, false} {
		rep, err := Run(t.Context(), store, AgentClaudeCode, []string{src}, Options{DryRun: dry})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Sessions) != 1 || rep.Failed != 0 || rep.Sessions[0].Dir != ws {
			t.Fatalf("dry run %v: report %+v, want the source's directory as %s", dry, rep.Sessions, ws)
		}
	}
	w, err := store.Workspace(ws)
	if err != nil {
		t.Fatal(err)
	}
	if l, _, err := w.List(t.Context()); err != nil || len(l) != 1 {
		t.Fatalf("sessions of %s: %v %v", ws, l, err)
	}
}

// ClaudeCode parses a Claude Code session file. The session id is the
// lines' sessionId (else the file's name), its directory the first cwd.
func ClaudeCode(r io.Reader, path string) (*engine.ImportSource, Stats, error) {
	p, err := parseClaudeCode(r, path, nil, -1)
	return &p.src, p.stats, err
}
