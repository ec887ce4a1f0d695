package engine

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// Compaction repeats: each summary covers what came before it, the earlier
// summary included; every archive stays readable, after a reopen too; and
// no cut separates a call from its results.
func TestCompactionRepeats(t *testing.T) {
	ctx := context.Background()
	_, ws := testStore(t)
	s := ws.Create(SessionOptions{})
	defer s.Close()
	add := func(it Item) Item {
		t.Helper()
		got, err := s.Append(ctx, it)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	compact := func(n int, summary, upTo, view, archive string) Item {
		t.Helper()
		c, err := s.Compact(ctx, summary, upTo)
		if err != nil {
			t.Fatalf("compaction %d: %v", n, err)
		}
		if got := texts(s.requestView()); got != view {
			t.Fatalf("request view after compaction %d:\n got %s\nwant %s", n, got, view)
		}
		arch, err := s.archive(c.ID)
		if err != nil || texts(arch) != archive {
			t.Fatalf("archive of compaction %d: %v\n got %s\nwant %s", n, err, texts(arch), archive)
		}
		return c
	}
	for _, n := range []string{"1", "2"} {
		add(Item{Type: User, Text: "prompt " + n})
		c := add(Item{Type: ToolCall, Text: "call " + n})
		add(Item{Type: ToolResult, Call: c.ID, Text: "result " + n})
		add(Item{Type: Assistant, Text: "answer " + n})
	}
	add(Item{Type: User, Text: "prompt 3"})
	c3 := add(Item{Type: ToolCall, Text: "call 3"})
	arch1 := "user:prompt 1 | tool_call:call 1 | tool_result:result 1 | assistant:answer 1 | " +
		"user:prompt 2 | tool_call:call 2 | tool_result:result 2 | assistant:answer 2"
	s1 := compact(1, "S1", "", "compaction:S1 | user:prompt 3 | tool_call:call 3", arch1)

	add(Item{Type: ToolResult, Call: c3.ID, Text: "result 3"})
	add(Item{Type: Assistant, Text: "answer 3"})
	add(Item{Type: User, Text: "prompt 4"})
	c4 := add(Item{Type: ToolCall, Text: "call 4"})
	// Up to call 3: the cut moves past its result.
	arch2 := "compaction:S1 | user:prompt 3 | tool_call:call 3 | tool_result:result 3"
	s2 := compact(2, "S2", c3.ID, "compaction:S2 | assistant:answer 3 | user:prompt 4 | tool_call:call 4", arch2)

	add(Item{Type: ToolResult, Call: c4.ID, Text: "result 4"})
	add(Item{Type: Assistant, Text: "answer 4"})
	add(Item{Type: User, Text: "prompt 5"})
	c5a := add(Item{Type: ToolCall, Text: "call 5a"})
	c5b := add(Item{Type: ToolCall, Text: "call 5b"})
	// A call of the newest turn still waiting for its result is not cut.
	if _, err := s.Compact(ctx, "S3", c5a.ID); !errors.Is(err, ErrRefused) {
		t.Fatalf("a cut before a pending result: %v", err)
	}
	add(Item{Type: ToolResult, Call: c5a.ID, Text: "result 5a"})
	add(Item{Type: ToolResult, Call: c5b.ID, Text: "result 5b"})
	// Up to the first of two parallel calls: both results go with it.
	arch3 := "compaction:S2 | assistant:answer 3 | user:prompt 4 | tool_call:call 4 | tool_result:result 4 | assistant:answer 4 | " +
		"user:prompt 5 | tool_call:call 5a | tool_call:call 5b | tool_result:result 5a | tool_result:result 5b"
	s3 := compact(3, "S3", c5a.ID, "compaction:S3", arch3)
	add(Item{Type: Assistant, Text: "answer 5"})

	id := s.ID()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	re, err := ws.Open(ctx, id, SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer re.Close()
	for i, c := range []struct {
		item Item
		want string
	}{{s1, arch1}, {s2, arch2}, {s3, arch3}} {
		arch, err := re.archive(c.item.ID)
		if err != nil || texts(arch) != c.want {
			t.Fatalf("archive %d after reopen: %v %s", i+1, err, texts(arch))
		}
	}
	if got := texts(re.requestView()); got != "compaction:S3 | assistant:answer 5" {
		t.Fatalf("request view after reopen: %s", got)
	}
	if n := len(re.Transcript()); n != 25 {
		t.Fatalf("the transcript lost items: %d", n)
	}
	re.Append(ctx, Item{Type: User, Text: "prompt 6"})
	if _, err := re.Compact(ctx, "", ""); err != nil {
		t.Fatalf("compaction 4: %v", err)
	}
	// Nothing new since the last compaction: refused, not bad input.
	if _, err := re.Compact(ctx, "", ""); !errors.Is(err, ErrRefused) {
		t.Fatalf("a compaction with nothing new: %v", err)
	}
}

// A plain summary passes on the listing of the summary it covers.
func TestPlainSummaryCoversEarlier(t *testing.T) {
	ctx := context.Background()
	_, ws := testStore(t)
	s := ws.Create(SessionOptions{})
	defer s.Close()
	for _, p := range []string{"one", "two", "three"} {
		s.Append(ctx, Item{Type: User, Text: p})
	}
	if _, err := s.Compact(ctx, "", ""); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"four", "five"} {
		s.Append(ctx, Item{Type: User, Text: p})
	}
	c2, err := s.Compact(ctx, "", "")
	if err != nil {
		t.Fatal(err)
	}
	want := "Compacted 4 items.\n- asked: one\n- asked: two\n- asked: three\n- asked: four"
	if c2.Text != want {
		t.Fatalf("second summary %q", c2.Text)
	}
	if !strings.HasPrefix(texts(s.requestView()), "compaction:Compacted 4 items.") {
		t.Fatalf("view %s", texts(s.requestView()))
	}
}

// One item is "1 item", and a later summary still counts it.
func TestPlainSummaryOneItem(t *testing.T) {
	ctx := context.Background()
	_, ws := testStore(t)
	s := ws.Create(SessionOptions{})
	defer s.Close()
	for _, p := range []string{"one", "two"} {
		must(s.Append(ctx, Item{Type: User, Text: p}))(t)
	}
	c1, err := s.Compact(ctx, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if want := "Compacted 1 item.\n- asked: one"; c1.Text != want {
		t.Fatalf("first summary %q, want %q", c1.Text, want)
	}
	must(s.Append(ctx, Item{Type: User, Text: "three"}))(t)
	c2, err := s.Compact(ctx, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if want := "Compacted 2 items.\n- asked: one\n- asked: two"; c2.Text != want {
		t.Fatalf("second summary %q, want %q", c2.Text, want)
	}
}
