package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ceilingSession makes a session in a store whose eager-load ceiling is 1 MB.
func ceilingSession(t *testing.T, notices *[]string) (*Store, *Workspace, *Session) {
	t.Helper()
	st, ws := testStore(t)
	if err := os.WriteFile(filepath.Join(st.Home(), "config.json"), []byte(`{"storage":{"max_eager_load_mb":1}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	return st, ws, ws.Create(SessionOptions{Notice: func(m string) { *notices = append(*notices, m) }})
}

// A payload counts once after a reopen: the record's counts.bytes is the
// payloads' size, and the 80% warning does not fire at 45%.
func TestPayloadBytesCountOnceAfterReopen(t *testing.T) {
	ctx := context.Background()
	var notices []string
	_, ws, s := ceilingSession(t, &notices)
	s.Append(ctx, Item{Type: User, Text: "half"})
	big := strings.Repeat("z", 470000) // stored as an object
	if _, err := s.Append(ctx, Item{Type: ToolResult, Text: big}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	want := int64(len("half") + len(big))
	re, err := ws.Open(ctx, s.ID(), SessionOptions{Notice: func(m string) { notices = append(notices, m) }})
	if err != nil {
		t.Fatal(err)
	}
	if got := re.Record().Counts.Bytes; got != want {
		t.Fatalf("counts.bytes after a reopen: %d, want %d", got, want)
	}
	if _, err := re.Append(ctx, Item{Type: User, Text: "short"}); err != nil {
		t.Fatal(err)
	}
	if err := re.Close(); err != nil {
		t.Fatal(err)
	}
	if len(notices) != 0 {
		t.Fatalf("a warning at 45%% of the ceiling: %q", notices)
	}
	v, err := ws.Read(ctx, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if v.Record.Counts.Bytes != want+5 {
		t.Fatalf("counts.bytes read: %d", v.Record.Counts.Bytes)
	}
	// Past 80%, the warning says the real size, not "0 MB".
	re, err = ws.Open(ctx, s.ID(), SessionOptions{Notice: func(m string) { notices = append(notices, m) }})
	if err != nil {
		t.Fatal(err)
	}
	defer re.Close()
	re.Append(ctx, Item{Type: Assistant, Text: strings.Repeat("y", 400000)})
	if len(notices) != 1 || !strings.Contains(notices[0], "0.8 MB") || !strings.Contains(notices[0], "(82%)") {
		t.Fatalf("warning past 80%%: %q", notices)
	}
}

// Over the ceiling a session still reads: ReadLean keeps its shape without
// any text, and Stream gives every item with its text, in order.
func TestReadLeanOverCeiling(t *testing.T) {
	ctx := context.Background()
	var notices []string
	_, ws, s := ceilingSession(t, &notices)
	var want []string
	for i := range 4 { // 1.2 MB of payloads
		text := strings.Repeat(string(rune('a'+i)), 300<<10)
		if _, err := s.Append(ctx, Item{Type: Assistant, Text: text}); err != nil {
			t.Fatal(err)
		}
		want = append(want, text)
	}
	small, _ := s.Append(ctx, Item{Type: User, Text: "inline"})
	want = append(want, "inline")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	var lim *LoadLimitError
	if _, err := ws.Read(ctx, s.ID()); !errors.As(err, &lim) {
		t.Fatalf("read over the ceiling: %v", err)
	}
	v, err := ws.ReadLean(ctx, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if v.Ceiling == nil || v.Ceiling.Bytes != int64(4*(300<<10)+len("inline")) {
		t.Fatalf("lean view's ceiling: %+v", v.Ceiling)
	}
	tr := v.Transcript()
	if len(tr) != 5 || tr[4].ID != small.ID || v.Record.Head != small.ID {
		t.Fatalf("lean transcript: %d items", len(tr))
	}
	for _, it := range v.AllItems() {
		if it.Text != "" {
			t.Fatalf("a lean view holds a text: %s", it.ID)
		}
	}
	var got []string
	if err := v.Stream(ctx, false, func(it Item) error {
		got = append(got, it.Text)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("streamed %d items, texts differ", len(got))
	}
	// One item's text, payload or inline, is read back alone.
	for i, it := range tr {
		got, err := v.ItemText(ctx, it.ID)
		if err != nil || got.ID != it.ID || got.Text != want[i] {
			t.Fatalf("ItemText of item %d: %v, %d bytes", i, err, len(got.Text))
		}
	}
	if _, err := v.ItemText(ctx, "i-nosuchitem"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("ItemText of no item: %v", err)
	}
	// A fork at an early item makes a session that opens.
	res, err := ws.Fork(ctx, s.ID(), tr[1].ID)
	if err != nil {
		t.Fatal(err)
	}
	child, err := ws.Open(ctx, res.Session, SessionOptions{})
	if err != nil {
		t.Fatalf("the fork does not open: %v", err)
	}
	defer child.Close()
	if n := len(child.Transcript()); n != 2 {
		t.Fatalf("the fork holds %d items", n)
	}
}

// A payload that cannot be read back makes only its item unavailable in a
// stream, as in a load.
func TestStreamUnavailablePayload(t *testing.T) {
	ctx := context.Background()
	st, ws := testStore(t)
	s := ws.Create(SessionOptions{})
	s.Append(ctx, Item{Type: User, Text: "hi"})
	big, _ := s.Append(ctx, Item{Type: Assistant, Text: strings.Repeat("q", 40000)})
	s.Append(ctx, Item{Type: User, Text: "after"})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	objs, _ := filepath.Glob(filepath.Join(st.Home(), "workspaces", "*", "objects", "*", "*"))
	if len(objs) != 1 {
		t.Fatalf("objects: %v", objs)
	}
	os.Remove(objs[0])
	v, err := ws.ReadLean(ctx, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	v.Stream(ctx, true, func(it Item) error {
		if it.Unavailable != nil {
			got = append(got, it.ID+":"+it.Unavailable.Reason)
		} else {
			got = append(got, it.Text)
		}
		return nil
	})
	if strings.Join(got, "|") != "hi|"+big.ID+":missing|after" {
		t.Fatalf("stream: %q", got)
	}
}

// A write that takes a session straight past the ceiling says it is over
// it and will not open again, not that it is past 80%.
func TestCeilingWarningOverTheCeiling(t *testing.T) {
	ctx := context.Background()
	var notices []string
	_, _, s := ceilingSession(t, &notices)
	defer s.Close()
	must(s.Append(ctx, Item{Type: User, Text: "small"}))(t)
	must(s.Append(ctx, Item{Type: ToolResult, Text: strings.Repeat("z", 1300000)}))(t)
	if len(notices) != 1 || !strings.Contains(notices[0], "over the 1 MB ceiling") ||
		!strings.Contains(notices[0], "will not open again") || !strings.Contains(notices[0], "CAIRN_MAX_EAGER_LOAD_MB=2") {
		t.Fatalf("warning past the ceiling: %q", notices)
	}
}
