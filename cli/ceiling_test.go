package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cairn/cli/cmdbase"
	"cairn/cli/term"
	"cairn/engine"
)

// Over the eager-load ceiling, transcript, show and fork --at still work
// (they stream, never hydrating the session), and the refusal names only
// commands that work. Plumbing warns at 80% of the ceiling.
func TestCeilingWayOut(t *testing.T) {
	ctx := context.Background()
	home, dir := filepath.Join(t.TempDir(), "home"), t.TempDir()
	t.Setenv("CAIRN_MAX_EAGER_LOAD_MB", "")
	run := func(stdin string, args ...string) (int, string, string) {
		t.Helper()
		var out, errw bytes.Buffer
		code := Main(ctx, append([]string{"--home", home, "-C", dir}, args...), strings.NewReader(stdin), &out, &errw)
		return code, out.String(), errw.String()
	}
	code, out, errs := run("", "prompt", "--new", "--json", "size test")
	if code != 0 {
		t.Fatalf("prompt: %d %s", code, errs)
	}
	var p struct{ Session string }
	json.Unmarshal([]byte(out), &p)
	S := p.Session
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(`{"storage":{"max_eager_load_mb":1}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	blobs := []string{strings.Repeat("x", 450000), strings.Repeat("y", 450000), strings.Repeat("z", 450000)}
	for i, b := range blobs {
		code, _, errs := run(b, "append", "--session", S, "--type", "assistant", "-")
		if code != 0 {
			t.Fatalf("append %d: %d %s", i, code, errs)
		}
		// 0.86 MB after the second: near the ceiling; 1.3 MB after the
		// third: over it, and it says so.
		warned := strings.Contains(errs, "past 80% of the 1 MB ceiling")
		over := strings.Contains(errs, "over the 1 MB ceiling it can be opened with: it will not open again")
		if warned != (i == 1) || over != (i == 2) {
			t.Fatalf("append %d: warning %v, over %v: %q", i, warned, over, errs)
		}
	}
	// Opening is refused, naming what works.
	code, _, errs = run("", "append", "--session", S, "--type", "assistant", "hi")
	if code != ExitRefused {
		t.Fatalf("append over the ceiling: %d %s", code, errs)
	}
	for _, way := range []string{"cairn transcript " + S, "cairn fork " + S + " --at ITEM", "CAIRN_MAX_EAGER_LOAD_MB=2"} {
		if !strings.Contains(errs, way) {
			t.Fatalf("the refusal does not name %q: %s", way, errs)
		}
	}
	if strings.Contains(errs, "trim") {
		t.Fatalf("the refusal names a command that does not exist: %s", errs)
	}
	code, out, errs = run("", "transcript", S)
	if code != 0 || !strings.Contains(out, "size test") || !strings.Contains(out, blobs[2]) {
		t.Fatalf("transcript over the ceiling: %d %s %d bytes", code, errs, len(out))
	}
	code, out, errs = run("", "transcript", "--json", S)
	var items []struct{ ID, Type, Text string }
	if code != 0 || json.Unmarshal([]byte(out), &items) != nil || len(items) != 4 || items[3].Text != blobs[2] {
		t.Fatalf("transcript --json over the ceiling: %d %s %d items", code, errs, len(items))
	}
	code, out, errs = run("", "show", "--json", S)
	var rec struct {
		Counts      struct{ Items int }
		OverCeiling string `json:"over_ceiling"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &rec) != nil || rec.Counts.Items != 4 || !strings.Contains(rec.OverCeiling, "1.3 MB") {
		t.Fatalf("show over the ceiling: %d %s %s", code, errs, out)
	}
	// The picker's preview streams the last prompt, as for any session.
	store, err := engine.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	canon, err := engine.Canonical(dir)
	if err != nil {
		t.Fatal(err)
	}
	ws, err := store.Workspace(canon)
	if err != nil {
		t.Fatal(err)
	}
	r := &repl{g: &Globals{Globals: cmdbase.Globals{Ctx: ctx}}, ws: ws}
	if p := r.preview(term.Row{ID: S}); len(p.Turns) == 0 || p.Turns[len(p.Turns)-1].Prompt != "size test" {
		t.Fatalf("the picker's preview over the ceiling: %+v", p)
	}
	code, out, errs = run("", "fork", "--json", S, "--at", "2")
	var f struct{ Session string }
	if code != 0 || json.Unmarshal([]byte(out), &f) != nil {
		t.Fatalf("fork --at over the ceiling: %d %s", code, errs)
	}
	// The fork carries the part forward and opens.
	code, out, errs = run("", "append", "--session", f.Session, "--type", "assistant", "carried on")
	if code != 0 {
		t.Fatalf("append to the fork: %d %s", code, errs)
	}
	code, out, _ = run("", "transcript", f.Session)
	if strings.Count(out, "\n[") != 2 || !strings.Contains(out, "carried on") {
		t.Fatalf("the fork's transcript:\n%.300s", out)
	}
}
