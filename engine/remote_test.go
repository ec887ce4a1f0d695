package engine_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cairn/engine"
	"cairn/internal/s3test"
)

// machine is one state folder with the project at the same path: two of
// them over one remote are two machines.
type machine struct {
	t     *testing.T
	home  string
	store *engine.Store
}

func newMachine(t *testing.T, remoteURL string) *machine {
	t.Helper()
	m := &machine{t: t, home: t.TempDir()}
	s, err := engine.Open(m.home)
	if err != nil {
		t.Fatal(err)
	}
	m.store = s
	t.Cleanup(func() { m.store.Close() })
	if remoteURL != "" {
		if err := s.AddRemote(context.Background(), "origin", remoteURL); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

// reopen closes and opens the store again: a new process.
func (m *machine) reopen() {
	m.store.Close()
	s, err := engine.Open(m.home)
	if err != nil {
		m.t.Fatal(err)
	}
	m.store = s
}

func (m *machine) sync() *engine.SyncReport {
	m.t.Helper()
	rep, err := m.store.Sync(context.Background(), "", engine.SyncOptions{})
	if err != nil {
		m.t.Fatalf("sync: %v", err)
	}
	return rep
}

func fileRemote(t *testing.T) string { return "file://" + filepath.ToSlash(t.TempDir()) }

func TestMain(m *testing.M) {
	code := m.Run()
	s3test.Stop()
	os.Exit(code)
}

func TestSyncMovesASessionToAnotherMachineAndBack(t *testing.T) {
	t.Run("file", func(t *testing.T) { syncRoundTrip(t, fileRemote(t)) })
	t.Run("s3", func(t *testing.T) { syncRoundTrip(t, s3test.Shared(t).URL()) })
}

func syncRoundTrip(t *testing.T, url string) {
	ctx := context.Background()
	project := t.TempDir()
	a, b := newMachine(t, url), newMachine(t, url)

	// Machine A: a session with a long payload (an object) and a file
	// tool's change record (a pre-image object), then a sync.
	wa, _ := a.store.Workspace(project)
	os.WriteFile(filepath.Join(project, "main.go"), bytes.Repeat([]byte("package main // old\n"), 2000), 0o644)
	sess := wa.Create(engine.SessionOptions{})
	long := strings.Repeat("a long answer ", 4000)
	sess.Append(ctx, engine.Item{Type: engine.User, Text: "make it new"})
	sess.Append(ctx, engine.Item{Type: engine.Assistant, Text: long})
	if _, err := sess.ToolWrite(ctx, "main.go", []byte("package main // new\n")); err != nil {
		t.Fatal(err)
	}
	if err := sess.EndTurn(ctx, engine.Turn{Model: "m"}); err != nil {
		t.Fatal(err)
	}
	id := sess.ID()
	sess.Close()
	rep := a.sync()
	if rep.Pushed.Sessions != 1 || rep.Pushed.Objects < 2 || rep.Pushed.Segments < 2 {
		t.Fatalf("first push: %+v", rep.Pushed)
	}
	if again := a.sync(); again.Pushed.Segments != 0 || again.Pushed.Objects != 0 {
		t.Fatalf("a second sync with nothing new pushed %+v", again.Pushed)
	}

	// Machine B lists it without pulling, then pulls and resumes it.
	cards, err := b.store.RemoteSessions(ctx, "")
	if err != nil || len(cards) != 1 || cards[0].ID != id || cards[0].Title != "make it new" {
		t.Fatalf("remote sessions: %+v, %v", cards, err)
	}
	rep = b.sync()
	if rep.Pulled.Sessions != 1 {
		t.Fatalf("pull: %+v %+v", rep.Pulled, rep.Skipped)
	}
	// The project is the same path on both machines here; its file is as
	// machine A left it.
	wb, _ := b.store.Workspace(project)
	list, _, err := wb.List(ctx)
	if err != nil || len(list) != 1 || list[0].ID != id {
		t.Fatalf("listing on B: %+v, %v", list, err)
	}
	sb, err := wb.Open(ctx, id, engine.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	items := sb.Transcript()
	if len(items) != 2 || items[1].Text != long || items[1].Unavailable != nil {
		t.Fatalf("B's transcript: %d items, payload fetched %v", len(items), len(items) > 1 && items[1].Text == long)
	}
	// Undo on B puts back the pre-image A captured, fetched on demand.
	if _, err := sb.Undo(ctx); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(project, "main.go")); !bytes.HasPrefix(got, []byte("package main // old\n")) {
		t.Fatalf("undo on B left %q", got[:min(len(got), 40)])
	}

	// While B has it open, A cannot: the lease names B's machine.
	a.reopen()
	wa, _ = a.store.Workspace(project)
	_, err = wa.Open(ctx, id, engine.SessionOptions{})
	var busy *engine.BusyError
	if !errors.As(err, &busy) || busy.Machine == "" || !errors.Is(err, engine.ErrBusy) {
		t.Fatalf("A's open while B holds the lease: %v", err)
	}
	sb.Append(ctx, engine.Item{Type: engine.User, Text: "from B"})
	if err := sb.EndTurn(ctx, engine.Turn{Model: "m"}); err != nil {
		t.Fatal(err)
	}
	sb.Close()
	b.sync()

	// Back on A: the turn B added is there, and A may open it again.
	if rep := a.sync(); rep.Pulled.Sessions != 1 {
		t.Fatalf("A's pull: %+v %+v %v", rep.Pulled, rep.Skipped, rep.Notes)
	}
	sa, err := wa.Open(ctx, id, engine.SessionOptions{})
	if err != nil {
		t.Fatalf("A's open after B closed: %v", err)
	}
	defer sa.Close()
	got := sa.Transcript()
	if len(got) != 3 || got[2].Text != "from B" {
		t.Fatalf("A's transcript after the pull: %d items", len(got))
	}
}

// TestAgentHooksSayALeaseHeldElsewhere: an agent's prompt and Stop hooks
// open the session from the hooks' index; while another machine holds its
// lease they answer that it is busy, naming the machine, and the session
// is as it was (they panicked on the lock the busy lease check left nil).
func TestAgentHooksSayALeaseHeldElsewhere(t *testing.T) {
	ctx := context.Background()
	url := fileRemote(t)
	project := t.TempDir()
	a, b := newMachine(t, url), newMachine(t, url)
	agent := engine.AgentSession{Agent: "claude-code", ID: "c0ffee00-0000-4000-8000-000000000001"}
	wa, _ := a.store.Workspace(project)
	brief := engine.SessionOptions{Brief: true}
	for _, text := range []string{"first", "second"} { // the second opens from the index
		if _, err := wa.RecordAgentPrompt(ctx, agent, brief, 0, text, "", nil); err != nil {
			t.Fatal(err)
		}
	}
	a.sync()
	b.sync()
	wb, _ := b.store.Workspace(project)
	id := engine.ImportSessionID(agent.Agent, agent.ID)
	sb, err := wb.Open(ctx, id, engine.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()

	a.reopen()
	wa, _ = a.store.Workspace(project)
	var busy *engine.BusyError
	if _, err := wa.RecordAgentPrompt(ctx, agent, brief, 0, "third", "", nil); !errors.As(err, &busy) || busy.Machine == "" {
		t.Fatalf("prompt hook while B holds the lease: %v", err)
	}
	if err := wa.EndAgentTurn(ctx, agent, brief, 0, &engine.Turn{Model: "m"}, nil); !errors.As(err, &busy) {
		t.Fatalf("Stop hook while B holds the lease: %v", err)
	}
	sb.Close()
	b.sync()
	a.sync()
	s, err := wa.Open(ctx, id, engine.SessionOptions{})
	if err != nil {
		t.Fatalf("A's open after B let go: %v", err)
	}
	defer s.Close()
	var texts []string
	for _, it := range s.Transcript() {
		texts = append(texts, it.Text)
	}
	if strings.Join(texts, ",") != "first,second" {
		t.Fatalf("after the busy hooks the session holds %q", texts)
	}
}
