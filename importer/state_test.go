package importer

import (
	"bytes"
	"context"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"cairn/engine"
)

// lineEnds are the offsets just after each line of b.
func lineEnds(b []byte) []int {
	var out []int
	for i, c := range b {
		if c == '\n' {
			out = append(out, i+1)
		}
	}
	return out
}

// A read from a State reads only what the file gained since, and a file
// rewritten since (not only grown) is read from its start.
func TestReadFromState(t *testing.T) {
	for _, c := range []struct{ agent, file string }{
		{AgentClaudeCode, filepath.Join(ccDir, "tool_heavy.jsonl")},
		{AgentCodex, codexOne},
	} {
		all, _ := os.ReadFile(c.file)
		ends := lineEnds(all)
		half := ends[len(ends)/2]
		path := filepath.Join(t.TempDir(), filepath.Base(c.file))
		os.WriteFile(path, all[:half], 0o644)
		_, st1, state, err := Read(c.agent, path, nil, -1)
		if err != nil {
			t.Fatal(err)
		}
		if state.Offset != int64(half) {
			t.Fatalf("%s: offset %d, want %d", c.file, state.Offset, half)
		}
		kept := state.Marshal()
		os.WriteFile(path, all, 0o644)
		from, err := ParseState(kept)
		if err != nil {
			t.Fatal(err)
		}
		src, st2, next, err := Read(c.agent, path, from, -1)
		if err != nil {
			t.Fatal(err)
		}
		lines := func(s Stats) (n int) {
			for _, v := range s.Lines {
				n += v
			}
			return n + s.Skipped["invalid"]
		}
		if lines(st1) != len(ends)/2+1 || lines(st2) != len(ends)-len(ends)/2-1 || next.Offset != int64(len(all)) {
			t.Fatalf("%s: read %d then %d lines (to %d), the file has %d (%d bytes)", c.file, lines(st1), lines(st2), next.Offset, len(ends), len(all))
		}
		for _, it := range src.Items {
			if it.Off < int64(half) {
				t.Fatalf("%s: the second read made an item of offset %d, before %d", c.file, it.Off, half)
			}
		}
		// The same length, other bytes near its start: read again whole.
		bad := bytes.Clone(all)
		bad[len(bad)/4] ^= 0x20
		os.WriteFile(path, bad, 0o644)
		from, _ = ParseState(kept)
		_, st3, _, err := Read(c.agent, path, from, -1)
		if err != nil {
			t.Fatal(err)
		}
		if lines(st3) != len(ends) {
			t.Fatalf("%s: a rewritten file read %d lines, want all %d", c.file, lines(st3), len(ends))
		}
		// A file shorter than the read: read again whole.
		os.WriteFile(path, all[:half/2], 0o644)
		from, _ = ParseState(kept)
		if _, _, next, err := Read(c.agent, path, from, -1); err != nil || next.Offset >= int64(half) {
			t.Fatalf("%s: a cut file: offset %d, %v", c.file, next.Offset, err)
		}
	}
}

// sessionShape is a session's items as their ids, parents, types, tools,
// calls and texts, in journal order: what an import made of a source.
func sessionShape(t *testing.T, store *engine.Store, agent, source, dir string) []string {
	t.Helper()
	ws, err := store.ImportWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	v, err := ws.Read(context.Background(), engine.ImportSessionID(agent, source))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, it := range v.AllItems() {
		out = append(out, strings.Join([]string{it.ID, it.Parent, string(it.Type), it.Tool, it.Call, it.Text, strings.Join(it.Replaces, ",")}, "\x1f"))
	}
	slices.Sort(out)
	head := v.Transcript()
	return append(out, "head "+head[len(head)-1].ID)
}

// Catching up a transcript as it grows, a piece at a time (a hook at
// each prompt and turn's end), makes the same session as importing the
// whole file once: the same items, ids, links and head. The real vendored
// transcripts and the parallel-calls shape, cut at random lines.
func TestCatchUpEqualsImport(t *testing.T) {
	files, err := Files(AgentClaudeCode, []string{ccDir})
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, filepath.Join(shapes, "claude-code", "parallel-results.jsonl"), filepath.Join(shapes, "claude-code", "compact-dangling.jsonl"))
	cases := []struct{ agent, file string }{{AgentCodex, codexOne}}
	for _, f := range files {
		cases = append(cases, struct{ agent, file string }{AgentClaudeCode, f})
	}
	r := rand.New(rand.NewPCG(8, 8))
	for _, c := range cases {
		all, _ := os.ReadFile(c.file)
		whole := openStore(t)
		rep, err := Run(context.Background(), whole, c.agent, []string{c.file}, Options{})
		if err != nil || rep.Sessions[0].Error != "" {
			t.Fatalf("%s: %v %+v", c.file, err, rep.Sessions[0])
		}
		sr := rep.Sessions[0]
		if sr.Stats.Merged > 0 {
			t.Fatalf("%s merges split lines: a catch-up between them keeps them apart; pick another file", c.file)
		}
		want := sessionShape(t, whole, c.agent, sr.Source, sr.Dir)

		pieces := openStore(t)
		ws, err := pieces.ImportWorkspace(sr.Dir)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), filepath.Base(c.file))
		ends := lineEnds(all)
		a := engine.AgentSession{Agent: c.agent, ID: sr.Source}
		for at := 0; at < len(ends); {
			at += 1 + r.IntN(max(1, len(ends)/6))
			at = min(at, len(ends))
			os.WriteFile(path, all[:ends[at-1]], 0o644)
			if _, err := CatchUp(context.Background(), ws, nil, a, path, nil); err != nil {
				t.Fatalf("%s: catch-up to line %d: %v", c.file, at, err)
			}
		}
		got := sessionShape(t, pieces, c.agent, sr.Source, sr.Dir)
		if !slices.Equal(got, want) {
			for i := range min(len(got), len(want)) {
				if got[i] != want[i] {
					t.Fatalf("%s: pieces and whole differ (%d and %d items); first difference:\n%q\n%q", c.file, len(got), len(want), got[i], want[i])
				}
			}
			t.Fatalf("%s: %d items in pieces, %d whole", c.file, len(got), len(want))
		}
		// A catch-up of the whole file after it reads nothing new.
		if res, err := CatchUp(context.Background(), ws, nil, a, path, nil); err != nil || res != nil {
			t.Fatalf("%s: a catch-up with nothing new: %+v %v", c.file, res, err)
		}
	}
}

// FuzzParseState: no kept state, however damaged, makes the parse or a
// read from it panic; a read from one that is not the file's reads the
// file from its start.
func FuzzParseState(f *testing.F) {
	all, _ := os.ReadFile(filepath.Join(ccDir, "tool_heavy.jsonl"))
	dir := f.TempDir()
	path := filepath.Join(dir, "t.jsonl")
	os.WriteFile(path, all, 0o644)
	_, _, st, err := Read(AgentClaudeCode, path, nil, int64(lineEnds(all)[3]))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(st.Marshal())
	// The file's own place and sum, with another agent's parse state.
	other := *st
	other.CC, other.CX = nil, &cxState{}
	f.Add(other.Marshal())
	f.Add([]byte(`{"v":1,"agent":"claude-code","path":"` + path + `","offset":-5,"codex":{}}` + "\n"))
	f.Add([]byte(`{"v":1,"agent":"codex","path":"` + path + `","offset":99999999,"claude_code":{}}` + "\nu\tk\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := ParseState(b)
		if err != nil {
			return
		}
		for _, agent := range []string{AgentClaudeCode, AgentCodex} {
			st, _ = ParseState(b)
			Read(agent, path, st, -1)
		}
	})
}

// sameState reports whether two States hold the same place and entries.
func sameState(a, b *State) bool {
	if a.Offset != b.Offset || a.Sum != b.Sum || !maps.Equal(a.Aliases, b.Aliases) {
		return false
	}
	if a.CC == nil || b.CC == nil {
		return a.CC == b.CC
	}
	return maps.Equal(a.CC.Tip.all(), b.CC.Tip.all()) && maps.Equal(a.CC.Usage, b.CC.Usage) && maps.Equal(a.CC.Calls, b.CC.Calls)
}

// The hooks' mark grows by a batch per catch-up, not rewritten whole:
// each catch-up leaves the bytes before it as they were, and the mark
// reads as the State written whole would. A batch a crash cut short is
// not read, and the next one is written in its place.
func TestMarkIsAppended(t *testing.T) {
	all, ends, ws, a, path := toolHeavyIn(t, openStore(t))
	var before []byte
	appended := 0
	for i, at := range []int{len(ends) / 4, len(ends) / 2, 3 * len(ends) / 4, len(ends)} {
		os.WriteFile(path, all[:ends[at-1]], 0o644)
		if _, err := CatchUp(context.Background(), ws, nil, a, path, nil); err != nil {
			t.Fatal(err)
		}
		mark := ws.AgentMark(a)
		if i > 0 && bytes.HasPrefix(mark, before) && len(mark) > len(before) {
			appended++
		}
		got, err := ParseState(mark)
		if err != nil {
			t.Fatal(err)
		}
		_, _, whole, err := Read(AgentClaudeCode, path, nil, -1)
		if err != nil {
			t.Fatal(err)
		}
		whole.Learn(got.Aliases) // the aliases come from the imports, not the read
		if !sameState(got, whole) {
			t.Fatalf("catch-up %d: the mark reads otherwise than the state written whole", i)
		}
		if i == 1 {
			// A batch a crash cut short: not read, and overwritten.
			mark = append(mark, "t\tcut-uuid\t"...)
			ws.SetAgentMark(a, mark)
			cut, err := ParseState(mark)
			if err != nil || !sameState(cut, got) {
				t.Fatalf("a cut batch was read: %v", err)
			}
			mark = mark[:len(mark)-len("t\tcut-uuid\t")]
		}
		before = mark
	}
	if appended != 3 {
		t.Fatalf("%d of 3 catch-ups appended to the mark; the others wrote it whole", appended)
	}
	if m := ws.AgentMark(a); bytes.Contains(m, []byte("cut-uuid")) {
		t.Fatal("the cut batch is still in the mark")
	}
}

// toolHeavyIn is the Claude Code transcript tool_heavy.jsonl (all, and
// where each of its lines ends) and, in store, the workspace and agent
// session its catch-ups go to, with path, a file for the test to write
// the transcript's growing versions to.
func toolHeavyIn(t *testing.T, store *engine.Store) (all []byte, ends []int, ws *engine.Workspace, a engine.AgentSession, path string) {
	t.Helper()
	file := filepath.Join(ccDir, "tool_heavy.jsonl")
	all, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	_, _, first, err := Read(AgentClaudeCode, file, nil, -1)
	if err != nil {
		t.Fatal(err)
	}
	if ws, err = store.ImportWorkspace(first.Dir); err != nil {
		t.Fatal(err)
	}
	return all, lineEnds(all), ws, engine.AgentSession{Agent: AgentClaudeCode, ID: first.SourceID}, filepath.Join(t.TempDir(), "t.jsonl")
}
