package engine

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// A call link that says something false is refused and writes nothing.
func TestAppendRefusesFalseCallLinks(t *testing.T) {
	ctx := context.Background()
	_, s, m := convo(t)
	// u1 a1 r1 c1 t1 u2 c2; a branch from a1 holds its own call.
	side, err := s.Append(ctx, Item{Type: ToolCall, Tool: "ls", Parent: m["a1"].ID, Text: "side"})
	if err != nil {
		t.Fatal(err)
	}
	before := len(s.AllItems())
	for name, it := range map[string]Item{
		"no such item":         {Type: ToolResult, Call: "i-0000000000000000", Text: "x"},
		"not a call":           {Type: ToolResult, Call: m["a1"].ID, Text: "x"},
		"call on a non-result": {Type: Assistant, Call: m["c2"].ID, Text: "x"},
		"call off the path":    {Type: ToolResult, Parent: m["c2"].ID, Call: side.ID, Text: "x"},
	} {
		if _, err := s.Append(ctx, it); !errors.Is(err, ErrBadInput) {
			t.Fatalf("%s: %v, want ErrBadInput", name, err)
		}
	}
	// The refusal names the item's type in English.
	if _, err := s.Append(ctx, Item{Type: ToolResult, Call: m["a1"].ID, Text: "x"}); err == nil || !strings.Contains(err.Error(), "but an assistant item") {
		t.Fatalf("a call naming an assistant item: %v", err)
	}
	if n := len(s.AllItems()); n != before {
		t.Fatalf("refused appends left %d items, want %d", n, before)
	}
	// The call a few items back on the path is fine.
	if _, err := s.Append(ctx, Item{Type: ToolResult, Parent: m["c2"].ID, Call: m["c2"].ID, Text: "ok"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(ctx, Item{Type: ToolResult, Call: m["c2"].ID, Text: "second part"}); err != nil {
		t.Fatal(err)
	}
}
