package engine

import (
	"context"
	"testing"
)

// A conversation revert and a fork at the same item keep the same history
// (the seed's table), row by row; only an incomplete call differs: a fork
// supplies its "unavailable" result, a revert adds no item.
func TestRevertBoundaryIsForks(t *testing.T) {
	ctx := context.Background()
	const upToT1 = `user:first prompt | assistant:answer one | reasoning:thinking | tool_call:{"q":"x"} | tool_result:found x`
	cases := []struct {
		row, at, revert, draft string
	}{
		{"user prompt", "u2", upToT1, "second prompt"},
		{"first user prompt", "u1", ``, "first prompt"},
		{"assistant", "a1", `user:first prompt | assistant:answer one`, ""},
		{"reasoning", "r1", `user:first prompt | assistant:answer one | reasoning:thinking`, ""},
		{"completed tool call", "c1", upToT1, ""},
		{"tool result", "t1", upToT1, ""},
		{"incomplete tool call", "c2", upToT1 + ` | user:second prompt | tool_call:{"f":"y"}`, ""},
	}
	for _, c := range cases {
		t.Run(c.row, func(t *testing.T) {
			ws, s, m := convo(t)
			f, err := s.Fork(ctx, m[c.at].ID)
			if err != nil {
				t.Fatal(err)
			}
			res, err := s.Revert(ctx, m[c.at].ID, RevertConversation)
			if err != nil {
				t.Fatal(err)
			}
			if got := texts(s.Transcript()); got != c.revert {
				t.Fatalf("after revert:\n got %s\nwant %s", got, c.revert)
			}
			if res.Draft != c.draft || f.Draft != c.draft {
				t.Fatalf("drafts: revert %q, fork %q, want %q", res.Draft, f.Draft, c.draft)
			}
			child := mustRead(t, ws, f.Session)
			want := c.revert
			if c.at == "c2" {
				want += ` | tool_result:[tool result unavailable: the call did not complete before the fork](unavailable)`
			}
			if got := texts(child.Transcript()); got != want {
				t.Fatalf("fork at the same item:\n got %s\nwant %s", got, want)
			}
		})
	}
}
