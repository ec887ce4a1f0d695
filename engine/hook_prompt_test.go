package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"cairn/internal/vfs"
)

// indexAgrees fails t unless session id's index, with the journal's
// lines after it, gives the state a whole fold of the journal gives: the
// summary, and the items with their links and prompt texts, in order.
func indexAgrees(t *testing.T, ws *Workspace, id, when string) {
	t.Helper()
	ctx := context.Background()
	_, st := ws.indexedState(ctx, id)
	if st == nil {
		t.Fatalf("%s: no usable index after a prompt hook", when)
	}
	defer st.DropLater()
	full, err := ws.fold(ctx, id, foldOptions{hydrate: true})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(summaryOf(st))
	want, _ := json.Marshal(summaryOf(full))
	if string(got) != string(want) {
		t.Fatalf("%s: the index's summary differs from the fold's:\n%s\n%s", when, got, want)
	}
	if g, w := indexEntries(st, st.Order), indexEntries(full, full.Order); !reflect.DeepEqual(g, w) {
		t.Fatalf("%s: the index holds %d items, the fold %d, or they differ", when, len(g), len(w))
	}
}

// promptTexts is the texts of session id's user items, in order.
func promptTexts(t *testing.T, ws *Workspace, id string) map[string]bool {
	t.Helper()
	st, err := ws.fold(context.Background(), id, foldOptions{hydrate: true})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, iid := range st.Order {
		if it := st.Item(iid); it.Type == User {
			out[it.Text] = true
		}
	}
	return out
}

// The prompt hook's index is derived: after a power loss at any sync
// point of a run of prompt hooks, Stop and SessionEnd hooks (which open
// the session from the index too) and whole opens (the REPL), whatever of
// the index survived (none, some, a torn batch, one ahead of the
// journal), the next prompt hook records its prompt and the next Stop
// hook its turn, every prompt and turn acknowledged before the loss is
// there, and the index they leave gives what a whole fold gives. The journal's lines a whole open wrote
// after the index are folded onto it (behind), not rebuilt from the
// whole journal.
func TestPromptIndexCrash(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a := AgentSession{Agent: "claude-code", ID: "prompt-index"}
	id := ImportSessionID(a.Agent, a.ID)
	opts := SessionOptions{Brief: true}
	points := 0
	for n := 0; ; n++ {
		completed := false
		for seed := range 3 {
			r := rand.New(rand.NewPCG(uint64(n), uint64(seed)))
			mem := vfs.NewMem()
			wsfs := WithWorkspaceFS(func(string) (vfs.FS, error) { return mem, nil })
			st := must(OpenFS(mem, "/mem", wsfs))(t)
			ws := must(st.Workspace(dir))(t)
			acked := map[string]bool{}
			prompt := func(text string) error {
				_, err := ws.RecordAgentPrompt(ctx, a, opts, 0, text, "", nil)
				if err == nil {
					acked[text] = true
				}
				return err
			}
			turns := 0
			// A Stop hook: its catch-up brings in the turn's answer, then
			// the turn's end; a SessionEnd hook (no turn) the answer only.
			stop := func(text string, end bool) error {
				var t *Turn
				if end {
					t = &Turn{Labels: []string{a.Agent}}
				}
				var aerr error
				err := ws.EndAgentTurn(ctx, a, opts, 0, t, func(s *Session) {
					_, aerr = s.Append(ctx, Item{Type: Assistant, Text: text})
				})
				if err == nil {
					err = aerr
				}
				if err == nil && end {
					turns++
				}
				return err
			}
			whole := func(text string) error {
				s, err := ws.OpenAgent(ctx, a, SessionOptions{}, false, 0)
				if err != nil {
					return err
				}
				defer s.Close()
				if _, err := s.Append(ctx, Item{Type: Assistant, Text: text}); err != nil {
					return err
				}
				return s.Close()
			}
			for i, f := range []func(string) error{prompt, prompt, whole} {
				if err := f(fmt.Sprintf("before %d", i)); err != nil {
					t.Fatal(err)
				}
			}
			// The whole open's line is after the index: folded onto it.
			if keep, st := ws.indexedState(ctx, id); st == nil || len(keep.ids) != 1 || !keep.append {
				t.Fatalf("the index behind the journal by one item was not read on from (%+v)", keep)
			}
			must(0, prompt("before 3"))(t)
			indexAgrees(t, ws, id, "before the faults")
			mem.FailAfterSyncs(n)
			err := func() error {
				for i := range 6 {
					text := fmt.Sprintf("prompt %d", i)
					if r.IntN(3) == 0 {
						text = "continue" // the same text again
					}
					if err := prompt(text); err != nil {
						return err
					}
					var err error
					switch r.IntN(4) {
					case 0:
						err = whole(fmt.Sprintf("answer %d", i))
					case 1:
						err = stop(fmt.Sprintf("answer %d", i), true)
					case 2:
						err = stop(fmt.Sprintf("answer %d", i), false)
					}
					if err != nil {
						return err
					}
				}
				return nil
			}()
			if err != nil && !errors.Is(err, vfs.ErrCrashed) {
				t.Fatalf("sync point %d: %v", n, err)
			}
			completed = err == nil
			if seed == 0 {
				mem.Crash()
			} else {
				mem.CrashPartial(r)
			}
			st.Close()
			st = must(OpenFS(mem, "/mem", wsfs))(t)
			ws = must(st.Workspace(dir))(t)
			if err := prompt("after"); err != nil {
				t.Fatalf("sync point %d seed %d: the prompt after the loss: %v", n, seed, err)
			}
			have := promptTexts(t, ws, id)
			for text := range acked {
				if !have[text] {
					t.Fatalf("sync point %d seed %d: the acknowledged prompt %q was lost", n, seed, text)
				}
			}
			full, err := ws.fold(ctx, id, foldOptions{})
			if err != nil || full.Turns < turns {
				t.Fatalf("sync point %d seed %d: %d turns ended, %d after the loss (%v)", n, seed, turns, full.Turns, err)
			}
			if err := stop("the last answer", true); err != nil {
				t.Fatalf("sync point %d seed %d: the turn's end after the loss: %v", n, seed, err)
			}
			indexAgrees(t, ws, id, fmt.Sprintf("sync point %d seed %d", n, seed))
			st.Close()
			if completed {
				break
			}
		}
		if completed {
			break
		}
		if n > 300 {
			t.Fatal("the run never completed")
		}
		points++
	}
	if points < 5 {
		t.Fatalf("only %d sync points", points)
	}
}

// A prompt, Stop or SessionEnd hook in a long session reads the index
// and the journal's ends, not the whole journal: with every read of the
// items journal past the first few failing, it still records its prompt
// or its turn (a whole open reads the journal in dozens of reads). A
// Stop hook of a session that is not there makes none.
func TestPromptHookReadsLittleOfTheJournal(t *testing.T) {
	ctx := context.Background()
	faulty := vfs.NewFaulty(vfs.NewMem())
	st := must(OpenFS(faulty, "/mem"))(t)
	defer st.Close()
	ws := must(st.Workspace(t.TempDir()))(t)
	a := AgentSession{Agent: "claude-code", ID: "long"}
	id := ImportSessionID(a.Agent, a.ID)
	opts := SessionOptions{Brief: true}
	must(ws.RecordAgentPrompt(ctx, a, opts, 0, "first", "", nil))(t)
	s := must(ws.OpenAgent(ctx, a, SessionOptions{}, false, 0))(t)
	text := strings.Repeat("an answer of some length ", 40)
	for i := range 3000 {
		must(s.Append(ctx, Item{Type: Assistant, Text: fmt.Sprint(i, text)}))(t)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// This one folds the 3,000 items after the index onto it.
	must(ws.RecordAgentPrompt(ctx, a, opts, 0, "second", "", nil))(t)
	faulty.Inject(vfs.Rule{Op: vfs.OpRead, Path: "workspaces/*/sessions/" + id + ".items.jsonl", Skip: 16})
	if _, err := ws.RecordAgentPrompt(ctx, a, opts, 0, "third", "", nil); err != nil {
		t.Fatalf("the prompt hook read the whole journal: %v", err)
	}
	// So do the Stop and SessionEnd hooks, their catch-up's answer and
	// the turn's end included.
	// Each makes only the items it is asked for of the thousands the
	// index holds (convlog.Later).
	answer := func(text string) func(*Session) {
		return func(s *Session) {
			if _, err := s.Append(ctx, Item{Type: Assistant, Text: text}); err != nil {
				t.Errorf("the catch-up's answer %q: %v", text, err)
			}
			if s.st.Len() < 3000 || s.st.Made() > 10 {
				t.Errorf("the catch-up's answer %q: %d of %d items made", text, s.st.Made(), s.st.Len())
			}
		}
	}
	if err := ws.EndAgentTurn(ctx, a, opts, 0, &Turn{Labels: []string{a.Agent}}, answer("stop")); err != nil {
		t.Fatalf("the Stop hook read the whole journal: %v", err)
	}
	if err := ws.EndAgentTurn(ctx, a, opts, 0, nil, answer("end")); err != nil {
		t.Fatalf("the SessionEnd hook read the whole journal: %v", err)
	}
	faulty.Reset()
	if have := promptTexts(t, ws, id); !have["third"] || len(have) != 3 {
		t.Fatalf("prompts %v", have)
	}
	full, err := ws.fold(ctx, id, foldOptions{hydrate: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(full.Order); full.Turns != 1 || n < 2 || full.Item(full.Order[n-1]).Text != "end" || full.Item(full.Order[n-2]).Text != "stop" {
		t.Fatalf("after Stop and SessionEnd: %d turns, %d items", full.Turns, n)
	}
	if err := ws.EndAgentTurn(ctx, AgentSession{Agent: a.Agent, ID: "never-seen"}, opts, 0, &Turn{}, answer("x")); err != nil {
		t.Fatalf("a Stop hook of a session not there: %v", err)
	}
	if _, err := st.fsys.Stat(itemsName(ws.dir, ImportSessionID(a.Agent, "never-seen"))); !vfs.IsNotExist(err) {
		t.Fatalf("a Stop hook made a session: %v", err)
	}
	indexAgrees(t, ws, id, "after")
}

// On a disk the index is mapped into memory while a hook reads it
// (vfs.MapFile) and given back as its session closes: the hooks record
// as on any filesystem, and what they return stays readable after.
func TestPromptHookOnDisk(t *testing.T) {
	ctx := context.Background()
	st := must(Open(t.TempDir()))(t)
	defer st.Close()
	ws := must(st.Workspace(t.TempDir()))(t)
	a := AgentSession{Agent: "claude-code", ID: "on-disk"}
	id := ImportSessionID(a.Agent, a.ID)
	opts := SessionOptions{Brief: true}
	var got []Item
	for i := range 12 {
		answer := func(s *Session) {
			for j := range 3 {
				if _, err := s.Append(ctx, Item{Type: Assistant, Text: fmt.Sprint("answer ", i, j)}); err != nil {
					t.Errorf("answer %d.%d: %v", i, j, err)
				}
			}
		}
		got = append(got, must(ws.RecordAgentPrompt(ctx, a, opts, 0, fmt.Sprint("prompt ", i), "", answer))(t))
		if err := ws.EndAgentTurn(ctx, a, opts, 0, &Turn{}, nil); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	full, err := ws.fold(ctx, id, foldOptions{hydrate: true})
	if err != nil {
		t.Fatal(err)
	}
	for i, it := range got {
		in := full.Item(it.ID)
		if in == nil || it.Text != fmt.Sprint("prompt ", i) || in.Text != it.Text || in.Parent != it.Parent || it.Parent == "" {
			t.Fatalf("prompt %d returned as %+v, in the session as %+v", i, it, in)
		}
	}
	if n := len(full.Order); n != 12*4 {
		t.Fatalf("%d items, want %d", n, 12*4)
	}
	indexAgrees(t, ws, id, "on disk")
}
