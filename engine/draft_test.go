package engine

import (
	"context"
	"strings"
	"testing"
)

// A fork at a user prompt keeps that prompt as the child's draft: on disk,
// in the record, after a reopen, until a prompt is sent.
func TestForkAtPromptKeepsDraft(t *testing.T) {
	ctx := context.Background()
	ws, parent, m := convo(t)
	res, err := parent.Fork(ctx, m["u1"].ID)
	if err != nil {
		t.Fatal(err)
	}
	v, err := ws.Read(ctx, res.Session)
	if err != nil {
		t.Fatal(err)
	}
	if d, gone, err := v.Draft(ctx); err != nil || gone != nil || d != "first prompt" {
		t.Fatalf("child draft %q %v %v", d, gone, err)
	}
	if v.Record.Draft == nil || v.Record.Draft.Text != "first prompt" || v.Record.Counts.Items != 0 {
		t.Fatalf("record draft %+v, items %d", v.Record.Draft, v.Record.Counts.Items)
	}
	rec, err := readRecord(ws.s.fsys, ws.dir, res.Session)
	if err != nil || rec.Draft == nil || rec.Draft.Text != "first prompt" {
		t.Fatalf("record on disk: %+v %v", rec, err)
	}
	child, err := ws.Open(ctx, res.Session, SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer child.Close()
	if d, _, _ := child.Draft(ctx); d != "first prompt" {
		t.Fatalf("reopened child draft %q", d)
	}
	if _, err := child.Append(ctx, Item{Type: User, Text: "first prompt, edited"}); err != nil {
		t.Fatal(err)
	}
	if d, _, _ := child.Draft(ctx); d != "" || child.Record().Draft != nil {
		t.Fatalf("a sent prompt left the draft %q", d)
	}
	child.Close()
	if v, _ := ws.Read(ctx, res.Session); v.Record.Draft != nil {
		t.Fatalf("the draft came back after a reopen: %+v", v.Record.Draft)
	}
}

// Other items leave the composer empty.
func TestForkAtAssistantHasNoDraft(t *testing.T) {
	ctx := context.Background()
	ws, parent, m := convo(t)
	res, err := parent.Fork(ctx, m["a1"].ID)
	if err != nil {
		t.Fatal(err)
	}
	v, err := ws.Read(ctx, res.Session)
	if err != nil {
		t.Fatal(err)
	}
	if v.Record.Draft != nil {
		t.Fatalf("draft %+v", v.Record.Draft)
	}
}

// A prompt over 16 KiB is held by its object, not copied into the line.
func TestForkDraftOfLargePromptNamesItsObject(t *testing.T) {
	ctx := context.Background()
	_, ws := testStore(t)
	s := ws.Create(SessionOptions{})
	big := strings.Repeat("p", payloadInline+10)
	u, err := s.Append(ctx, Item{Type: User, Text: big})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	res, err := ws.Fork(ctx, s.ID(), u.ID)
	if err != nil {
		t.Fatal(err)
	}
	v, err := ws.Read(ctx, res.Session)
	if err != nil {
		t.Fatal(err)
	}
	if v.Record.Draft == nil || v.Record.Draft.Payload == nil || v.Record.Draft.Text != "" {
		t.Fatalf("record draft %+v", v.Record.Draft)
	}
	if d, gone, err := v.Draft(ctx); err != nil || gone != nil || d != big {
		t.Fatalf("draft of %d bytes, %v %v", len(d), gone, err)
	}
}

// A revert to a prompt keeps it as the draft; unrevert clears it.
func TestRevertToPromptKeepsDraft(t *testing.T) {
	ctx := context.Background()
	ws, s, m := convo(t)
	if _, err := s.Revert(ctx, m["u2"].ID, RevertConversation); err != nil {
		t.Fatal(err)
	}
	if d, _, _ := s.Draft(ctx); d != "second prompt" {
		t.Fatalf("draft after revert %q", d)
	}
	v, err := ws.Read(ctx, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if d, _, _ := v.Draft(ctx); d != "second prompt" {
		t.Fatalf("draft read from disk %q", d)
	}
	if _, err := s.Unrevert(ctx); err != nil {
		t.Fatal(err)
	}
	if d, _, _ := s.Draft(ctx); d != "" {
		t.Fatalf("draft after unrevert %q", d)
	}
	if v, _ := ws.Read(ctx, s.ID()); v.Record.Draft != nil {
		t.Fatalf("draft on disk after unrevert %+v", v.Record.Draft)
	}
}

// A revert to a prompt over 16 KiB keeps it by its object, which is there.
func TestRevertDraftOfLargePrompt(t *testing.T) {
	ctx := context.Background()
	_, ws := testStore(t)
	s := ws.Create(SessionOptions{})
	defer s.Close()
	big := strings.Repeat("q", payloadInline+1)
	u, err := s.Append(ctx, Item{Type: User, Text: big})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(ctx, Item{Type: Assistant, Text: "ok"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Revert(ctx, u.ID, RevertConversation); err != nil {
		t.Fatal(err)
	}
	v, err := ws.Read(ctx, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if v.Record.Draft == nil || v.Record.Draft.Payload == nil {
		t.Fatalf("record draft %+v", v.Record.Draft)
	}
	if d, gone, err := v.Draft(ctx); err != nil || gone != nil || d != big {
		t.Fatalf("draft of %d bytes, %v %v", len(d), gone, err)
	}
}

// A prompt typed and not sent is worth keeping (seed 000): SetDraft records
// a session that held nothing, the draft comes back on resume, a long one
// as an object, and "" clears it.
func TestSetDraftKeepsATypedPrompt(t *testing.T) {
	ctx := context.Background()
	_, ws := testStore(t)
	s := ws.Create(SessionOptions{})
	must(0, s.SetDraft(ctx, "half a thought"))(t)
	must(0, s.Close())(t)
	if l, _ := must2(ws.List(ctx))(t); len(l) != 1 || l[0].ID != s.ID() {
		t.Fatalf("a session holding a typed draft is not listed: %+v", l)
	}
	re := must(ws.Open(ctx, s.ID(), SessionOptions{}))(t)
	defer re.Close()
	if d, _, err := re.Draft(ctx); d != "half a thought" || err != nil {
		t.Fatalf("draft on resume %q, %v", d, err)
	}
	long := strings.Repeat("a long draft ", 2000)
	must(0, re.SetDraft(ctx, long))(t)
	if d, _, _ := must(ws.Read(ctx, s.ID()))(t).Draft(ctx); d != long {
		t.Fatalf("long draft read back: %d bytes", len(d))
	}
	must(0, re.SetDraft(ctx, ""))(t)
	if d, _, _ := must(ws.Read(ctx, s.ID()))(t).Draft(ctx); d != "" {
		t.Fatalf("cleared draft reads %q", d)
	}
}
