package importer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"cairn/engine"
)

// scribble overwrites b, as a mark given back reads once it is gone.
func scribble(b []byte) {
	for i := range b {
		b[i] = 0xff
	}
}

// A State parsed from a mark the catch-up gives back (parseState with
// own) keeps what leaves it after the mark is gone: its aliases, its
// spend, and every tip looked up, before the text was parsed whole and
// after; and it reads as ParseState's State does.
func TestOwnedStateKeepsNoPartOfTheMark(t *testing.T) {
	st := &State{V: 1, Agent: AgentClaudeCode, Path: "/t.jsonl", Offset: 1, Sum: "x", CC: newCCState(), Aliases: map[string]string{}}
	uuid := func(i int) string {
		if i%5 == 3 {
			return fmt.Sprintf("\"q\t%d", i) // written quoted
		}
		return fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i)
	}
	for i := range 400 {
		st.CC.setTip(uuid(i), []string{uuid(i), "", "k" + uuid(i)}[i%3])
		if i%3 == 0 {
			st.Aliases[uuid(i)] = fmt.Sprintf("i-%016x", i)
			st.CC.Usage["msg_"+uuid(i)] = engine.Spend{InputTokens: int64(i), OutputTokens: 1}
		}
	}
	kept := st.Marshal()
	again, _ := ParseState(kept)
	again.Aliases[uuid(0)] = "i-again" // an alias written again, in a batch
	again.newAliases = []string{uuid(0)}
	kept = append(kept, again.MarshalBatch()...)
	want, err := ParseState(kept)
	if err != nil {
		t.Fatal(err)
	}
	wantTips := maps.Clone(want.CC.Tip.all())
	lent := bytes.Clone(kept)
	for _, whole := range []bool{false, true} {
		copy(lent, kept)
		got, err := parseState(lent, true, nil)
		if err != nil {
			t.Fatal(err)
		}
		// Parsed again with the aliases of the first parse (a catch-up
		// that leaves the pending prompt's line reads from it twice).
		again, err := parseState(lent, true, got)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range []*State{got, again} {
			at, ok := st.Kept()
			if wat, wok := want.Kept(); !sameState(st, want) || at != wat || ok != wok || st.stale != want.stale {
				t.Fatal("the State parsed to be given back reads otherwise")
			}
		}
		got, _ = parseState(lent, true, nil)
		if whole {
			got.CC.Tip.all() // the text parsed whole, its tips in the map
		}
		tips := map[string]string{}
		for i := range 410 {
			if k, ok := got.CC.Tip.get(uuid(i)); ok {
				tips[uuid(i)] = k
			}
		}
		aliases, usage := got.Aliases, got.CC.Usage
		scribble(lent)
		if !maps.Equal(tips, wantTips) || !maps.Equal(aliases, want.Aliases) || !maps.Equal(usage, want.CC.Usage) {
			t.Fatalf("parsed whole first %v: what left the State changed with the mark it was parsed from", whole)
		}
	}
}

// A catch-up keeps no part of the mark it read after it returns: not in
// the session it brought the transcript into (the ids and parents of the
// items, the head, which the hook's prompt goes under), nor in its
// result. The hooks' session of many turns, each catch-up's mark given
// back scribbled over, holds what a full import makes.
func TestCatchUpKeepsNoPartOfTheMark(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(29, 8))
	work := t.TempDir()
	sid := "5afe7e00-0000-4000-8000-00000000008a"
	tw := &transcriptWriter{t: t, path: filepath.Join(t.TempDir(), sid+".jsonl"), sid: sid, cwd: work}
	hooks := openStore(t)
	ws, err := hooks.ImportWorkspace(work)
	if err != nil {
		t.Fatal(err)
	}
	a := engine.AgentSession{Agent: AgentClaudeCode, ID: sid, Transcript: tw.path}
	opts := engine.SessionOptions{Brief: true}
	lent := 0
	catchUpLent := func(s *engine.Session, p *engine.PendingPrompt) {
		if _, err := os.Stat(tw.path); err != nil {
			return
		}
		res, err := catchUp(ctx, ws, s, a, tw.path, p, func() ([]byte, bool, func()) {
			b := bytes.Clone(ws.AgentMark(a))
			if b != nil {
				lent++
			}
			return b, true, func() { scribble(b) }
		})
		if err != nil {
			t.Fatal(err)
		}
		if res != nil {
			for k, id := range res.Aliases {
				if strings.IndexByte(k+id, 0xff) >= 0 || !strings.HasPrefix(id, "i-") {
					t.Fatalf("the result names %q as %q", k, id)
				}
			}
		}
		// The session, as the hook goes on with it: ids the mark gave.
		named := s.Head()
		for _, it := range s.AllItems() {
			named += it.ID + it.Parent + it.Call + strings.Join(it.Replaces, "")
		}
		if strings.IndexByte(named, 0xff) >= 0 {
			t.Fatal("the session names items by bytes of the mark given back")
		}
	}
	// A catch-up within a turn (as a SessionEnd hook's): the lines after
	// it hang under lines an earlier read brought in, named by the mark's
	// aliases (a hook's prompt, a call).
	within := func() {
		if r.IntN(3) > 0 {
			return
		}
		if err := ws.EndAgentTurn(ctx, a, opts, time.Second, nil, func(s *engine.Session) { catchUpLent(s, nil) }); err != nil {
			t.Fatal(err)
		}
	}
	for turn := range 20 {
		text := fmt.Sprintf("turn %d: edit the file", turn)
		if r.IntN(3) == 0 {
			text = "continue"
		}
		first := r.IntN(2) == 0
		if first {
			tw.prompt(text)
		}
		p := &engine.PendingPrompt{Text: text, At: time.Now()}
		if _, err := ws.RecordAgentPrompt(ctx, a, opts, time.Second, text, "", func(s *engine.Session) { catchUpLent(s, p) }); err != nil {
			t.Fatalf("turn %d: %v", turn, err)
		}
		if !first {
			tw.prompt(text)
		}
		within()
		for c := range r.IntN(3) {
			call := fmt.Sprintf("toolu_8_%d_%d", turn, c)
			tw.line(map[string]any{"type": "assistant", "message": map[string]any{"id": "msg_" + call, "role": "assistant", "model": "claude-opus-4-6",
				"content": []any{map[string]any{"type": "tool_use", "id": call, "name": "Bash", "input": map[string]any{"command": "true"}}}}})
			within()
			tw.line(map[string]any{"type": "user", "message": map[string]any{"role": "user",
				"content": []any{map[string]any{"type": "tool_result", "tool_use_id": call, "content": "ok"}}}})
		}
		tw.line(map[string]any{"type": "assistant", "message": map[string]any{"id": fmt.Sprintf("msg_t%d", turn), "role": "assistant", "model": "claude-opus-4-6",
			"content": []any{map[string]any{"type": "text", "text": "Done with " + text}}}})
		if r.IntN(3) == 0 {
			if err := ws.EndAgentTurn(ctx, a, opts, time.Second, &engine.Turn{Labels: []string{AgentClaudeCode}}, func(s *engine.Session) { catchUpLent(s, nil) }); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := ws.EndAgentTurn(ctx, a, opts, time.Second, nil, func(s *engine.Session) { catchUpLent(s, nil) }); err != nil {
		t.Fatal(err)
	}
	if lent < 15 {
		t.Fatalf("%d catch-ups read a mark", lent)
	}
	whole := openStore(t)
	rep, err := Run(ctx, whole, AgentClaudeCode, []string{tw.path}, Options{})
	if err != nil || rep.Sessions[0].Error != "" {
		t.Fatalf("import: %v %+v", err, rep.Sessions)
	}
	id := engine.ImportSessionID(AgentClaudeCode, sid)
	if got, want := shapeByContent(t, hooks, work, id), shapeByContent(t, whole, work, id); !slices.Equal(got, want) {
		t.Fatalf("the hooks' session (%d items) is not the import's (%d items)", len(got), len(want))
	}
}

// A hook's catch-up reads the mark mapped (Session.MapAgentMark) and
// writes it while it is: a batch after the bytes it parsed, or, the
// transcript rewritten since (not only grown), the mark whole in its
// place. Either way the next catch-up reads the mark as the State
// written whole, and the session holds what the transcript does.
func TestMappedMarkWrittenWhileMapped(t *testing.T) {
	ctx := context.Background()
	store := openStore(t)
	all, ends, ws, a, path := toolHeavyIn(t, store)
	opts := engine.SessionOptions{Brief: true}
	catchUp := func(upTo []byte) {
		t.Helper()
		os.WriteFile(path, upTo, 0o644)
		s, err := ws.OpenAgent(ctx, a, opts, true, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if b, done := s.MapAgentMark(a); b != nil {
			if !bytes.Equal(b, ws.AgentMark(a)) {
				t.Fatal("the mapped mark is not the mark")
			}
			done()
		}
		if _, err := CatchUp(ctx, ws, s, a, path, nil); err != nil {
			t.Fatal(err)
		}
	}
	// ref has each version of the transcript caught up imported, one
	// after the other, as cairn import brings them in: what the session
	// holds.
	ref := openStore(t)
	check := func(when string) {
		t.Helper()
		got, err := ParseState(ws.AgentMark(a))
		if err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		_, _, whole, err := Read(AgentClaudeCode, path, nil, -1)
		if err != nil {
			t.Fatal(err)
		}
		whole.Learn(got.Aliases)
		if !sameState(got, whole) {
			t.Fatalf("%s: the mark reads otherwise than the state written whole", when)
		}
		id := engine.ImportSessionID(AgentClaudeCode, a.ID)
		if rep, err := Run(ctx, ref, AgentClaudeCode, []string{path}, Options{}); err != nil || rep.Sessions[0].Error != "" {
			t.Fatalf("import: %v %+v", err, rep.Sessions)
		}
		want := map[string]bool{}
		for _, it := range readItems(t, ref, ws.Path(), id) {
			want[it.ID] = true
		}
		have := map[string]bool{}
		for _, it := range readItems(t, store, ws.Path(), id) {
			have[it.ID] = true
		}
		if !maps.Equal(have, want) {
			t.Fatalf("%s: the session holds %d items, the imports of the transcripts caught up %d", when, len(have), len(want))
		}
	}
	quarter, half := all[:ends[len(ends)/4-1]], all[:ends[len(ends)/2-1]]
	catchUp(quarter)
	check("first")
	catchUp(half) // a batch appended to the mapped mark
	check("grown")
	// Rewritten: the first lines again, and then the file's last ones
	// (a different history): read from its start, the mark written whole.
	rewritten := append(bytes.Clone(quarter), all[ends[3*len(ends)/4-1]:]...)
	before := ws.AgentMark(a)
	catchUp(rewritten)
	if after := ws.AgentMark(a); bytes.HasPrefix(after, before[:len(before)-1]) {
		t.Fatal("the mark of a rewritten transcript was appended to")
	}
	check("rewritten")
	grown := append(bytes.Clone(rewritten), all[ends[len(ends)/2-1]:ends[3*len(ends)/4-1]]...)
	catchUp(grown)
	check("grown again")
}

func readItems(t *testing.T, store *engine.Store, dir, id string) []engine.Item {
	t.Helper()
	ws, err := store.ImportWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	v, err := ws.Read(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return v.AllItems()
}

// A mapped mark cut short as a catch-up reads it (by hand: cairn writes
// it only with the session open) ends the catch-up with errMarkChanged,
// not the process; the next catch-up reads the transcript again, and the
// session holds what an import of it makes.
func TestMappedMarkCutShortWhileRead(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	store, err := engine.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	all, ends, ws, a, path := toolHeavyIn(t, store)
	os.WriteFile(path, all[:ends[len(ends)/2-1]], 0o644)
	opts := engine.SessionOptions{Brief: true}
	withSession := func(f func(s *engine.Session)) {
		t.Helper()
		s, err := ws.OpenAgent(ctx, a, opts, true, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		f(s)
	}
	withSession(func(s *engine.Session) {
		if _, err := CatchUp(ctx, ws, s, a, path, nil); err != nil {
			t.Fatal(err)
		}
	})
	marks, _ := filepath.Glob(filepath.Join(home, "*", "*", "hooks", "*", "transcript.read"))
	if len(marks) != 1 {
		t.Fatalf("marks %v", marks)
	}
	os.WriteFile(path, all, 0o644)
	withSession(func(s *engine.Session) {
		_, err := catchUp(ctx, ws, s, a, path, nil, func() ([]byte, bool, func()) {
			b, done := s.MapAgentMark(a)
			if len(b) == 0 {
				t.Fatal("no mark mapped")
			}
			if err := os.Truncate(marks[0], 0); err != nil {
				t.Fatal(err)
			}
			return b, true, done
		})
		if !errors.Is(err, errMarkChanged) {
			t.Fatalf("a mark cut short as it was read: %v", err)
		}
	})
	withSession(func(s *engine.Session) {
		if _, err := CatchUp(ctx, ws, s, a, path, nil); err != nil {
			t.Fatal(err)
		}
	})
	whole := openStore(t)
	if rep, err := Run(ctx, whole, AgentClaudeCode, []string{path}, Options{}); err != nil || rep.Sessions[0].Error != "" {
		t.Fatalf("import: %v %+v", err, rep.Sessions)
	}
	id := engine.ImportSessionID(AgentClaudeCode, a.ID)
	if got, want := shapeByContent(t, store, ws.Path(), id), shapeByContent(t, whole, ws.Path(), id); !slices.Equal(got, want) {
		t.Fatalf("the session (%d items) is not the import's (%d items)", len(got), len(want))
	}
}

// A catch-up turns only a fault inside the mapped mark into
// errMarkChanged: an address elsewhere (a nil pointer's, another
// mapping's) is not the mark's and its panic goes on.
func TestFaultOnlyInsideTheMark(t *testing.T) {
	page := uintptr(os.Getpagesize())
	b := make([]byte, 3*int(page)+10)
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	last := (start + uintptr(len(b)) + page - 1) &^ (page - 1)
	for _, c := range []struct {
		addr uintptr
		in   bool
	}{{start, true}, {start + uintptr(len(b)) - 1, true}, {last - 1, true}, {last, false}, {start - 1, false}, {0, false}, {8, false}} {
		if got := inMapping(b, c.addr); got != c.in {
			t.Errorf("address %#x of a mapping at %#x..%#x: in %v, want %v", c.addr, start, last, got, c.in)
		}
	}
	if inMapping(nil, start) {
		t.Error("an address in no mapping")
	}
}
