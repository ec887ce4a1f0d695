package engine

import (
	"context"
	"strings"
	"testing"
)

// Following the trail of a session that has none yet waits for its first
// turn instead of failing.
func TestFollowTrailWaitsForTheFirstTurn(t *testing.T) {
	_, ws := testStore(t)
	s := ws.Create(SessionOptions{})
	defer s.Close()
	if _, err := s.Append(context.Background(), Item{Type: User, Text: "watched"}); err != nil {
		t.Fatal(err)
	}
	end, err := ws.Trail(t.Context(), s.ID(), func([]byte) error { return nil })
	if err != nil || end != 0 {
		t.Fatalf("trail of a session with none: %d %v", end, err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	lines := make(chan string)
	done := make(chan error, 1)
	go func() {
		done <- ws.FollowTrail(ctx, s.ID(), end, func(l []byte) error {
			str := string(l)
			select {
			case lines <- str:
			case <-ctx.Done():
			}
			return nil
		})
	}()
	if err := s.EndTurn(ctx, Turn{Labels: []string{"prompt"}}); err != nil {
		t.Fatal(err)
	}
	select {
	case l := <-lines:
		if !strings.Contains(l, `"kind":"turn"`) || !strings.Contains(l, `"labels":["prompt"]`) {
			t.Fatalf("trail line %s", l)
		}
	case err := <-done:
		t.Fatalf("following a trail not yet made ended: %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
