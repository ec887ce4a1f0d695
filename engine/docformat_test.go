package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// The documents draw the format: every field name and every line kind that
// cairn writes to its JSON files and journals is named, quoted, in
// engine/doc.go, the README, a package's doc.go, or the drawing (a comment's
// code block) in the file that writes it. A session here does a bit of
// everything; the test then reads every JSON file and journal line under
// the state folder and lists what no document names.
func TestDocsNameEveryFieldOnDisk(t *testing.T) {
	ctx := context.Background()
	home, dir := filepath.Join(t.TempDir(), "home"), t.TempDir()
	st, err := Open(home)
	if err != nil {
		t.Fatal(err)
	}
	ws, err := st.Workspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := ws.Create(SessionOptions{})
	step := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	add := func(it Item) Item {
		t.Helper()
		out, err := s.Append(ctx, it)
		step("append "+string(it.Type), err)
		return out
	}
	u := add(Item{Type: User, Text: "fix the build", Attachments: []Attachment{{Name: "a.txt", MediaType: "text/plain", Data: []byte("attached")}}})
	add(Item{Type: Reasoning, Text: "look first"})
	call := add(Item{Type: ToolCall, Tool: "shell", Text: "go build"})
	out, err := s.PutOutput(ctx, "go-build", strings.NewReader("ok\n"))
	step("put output", err)
	add(Item{Type: ToolResult, Call: call.ID, Text: "built", Outputs: []string{out}})
	add(Item{Type: Assistant, Text: strings.Repeat("a long answer ", 3000)}) // a payload object
	_, err = s.ToolWrite(ctx, "f.txt", []byte("one\n"))
	step("write", err)
	_, err = s.ToolWrite(ctx, "f.txt", []byte("two\n"))
	step("write", err)
	_, err = s.Undo(ctx)
	step("undo", err)
	_, err = s.Exec(ctx, "echo hi > g.txt", ExecOptions{})
	step("exec", err)
	task, _, err := s.StartTask(ctx, TaskStart{Description: "check the tests"})
	step("start task", err)
	_, err = task.Append(ctx, Item{Type: Assistant, Text: "tests pass"})
	step("task append", err)
	step("task end", task.End(ctx, "settled"))
	step("end turn", s.EndTurn(ctx, Turn{Plan: json.RawMessage(`{"steps":["build"]}`), Model: "m", Spend: Spend{InputTokens: 1, OutputTokens: 2, CostUSD: 0.5},
		Trust: &Trust{Map: map[string]string{dir: "trusted"}, Rules: []TrustRule{{Path: dir, Rule: "allow"}}}, AllowedCommands: []string{"go build"},
		Labels: []string{"prompt"}, Gates: []string{"planner"}}))
	step("audit", s.recordEvent(ctx, auditEvent{Event: "session.snapshot_restore", Outcome: "ok", Action: "undo", Steps: []auditStep{{ID: "x"}}, Files: 1, Rule: "r"}))
	add(Item{Type: User, Text: "again"})
	add(Item{Type: Assistant, Text: "done again"})
	add(Item{Type: User, Text: "and once more"})
	_, err = s.Compact(ctx, "what came before", "")
	step("compact", err)
	step("rename", s.Rename(ctx, "build fixes"))
	_, err = s.Revert(ctx, u.ID, RevertConversation)
	step("revert", err)
	_, err = s.Unrevert(ctx)
	step("unrevert", err)
	_, err = s.Fork(ctx, u.ID) // at a prompt: a draft
	step("fork", err)
	step("close", s.Close())
	step("history", st.AddHistory("fix the build", dir))
	step("history", st.AddHistory("a prompt then cancelled", dir))
	step("cancel history", st.CancelHistory("a prompt then cancelled"))
	_, _, err = ws.List(ctx)
	step("list", err)
	step("store close", st.Close())

	// What is on disk: field names (object keys at any depth, but not
	// inside values a user or runtime chose: a plan, a trust map, meta)
	// and line kinds.
	fields, kinds := map[string]string{}, map[string]string{}
	var walk func(v any, file string)
	walk = func(v any, file string) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				fields[k] = file
				if k == "kind" {
					if s, ok := x.(string); ok {
						kinds[s] = file
					}
				}
				if k == "plan" || k == "map" || k == "meta" {
					continue
				}
				walk(x, file)
			}
		case []any:
			for _, x := range v {
				walk(x, file)
			}
		}
	}
	// Folders: each named one (not an id, a key or a hash) is drawn as
	// "name/".
	folders := map[string]string{}
	named := regexp.MustCompile(`^[a-z]+$`)
	err = filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(home, p)
		if d.IsDir() {
			if parts := strings.Split(filepath.ToSlash(rel), "/"); rel != "." && named.MatchString(d.Name()) && !(len(parts) == 2 && parts[0] == "workspaces") {
				folders[d.Name()] = rel
			}
			return nil
		}
		switch {
		case strings.HasSuffix(p, ".jsonl"):
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
				var v any
				if json.Unmarshal(line, &v) == nil {
					walk(v, rel)
				}
			}
		case strings.HasSuffix(p, ".json"):
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			var v any
			if json.Unmarshal(b, &v) == nil {
				walk(v, rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	// The documents.
	var docs strings.Builder
	root := filepath.Join("..")
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != root {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		switch {
		case d.Name() == "doc.go" || p == filepath.Join(root, "README.md"):
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			docs.Write(b)
		case strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go"):
			// A line format drawn where it is written: the code blocks
			// of its comments (engine/doc.go's "Other files").
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, l := range strings.Split(string(b), "\n") {
				if strings.HasPrefix(strings.TrimSpace(l), "//\t") {
					docs.WriteString(l + "\n")
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	text := docs.String()
	var missing []string
	for k, file := range fields {
		if !strings.Contains(text, `"`+k+`"`) {
			missing = append(missing, "field "+k+" (in "+file+")")
		}
	}
	for k, file := range kinds {
		if !strings.Contains(text, `"`+k+`"`) {
			missing = append(missing, "kind "+k+" (in "+file+")")
		}
	}
	for name, rel := range folders {
		if !strings.Contains(text, name+"/") {
			missing = append(missing, "folder "+name+" ("+rel+")")
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Fatalf("on disk but named in no document:\n%s", strings.Join(missing, "\n"))
	}
}
