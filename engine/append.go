package engine

import (
	"context"
	"fmt"
)

// Append, the public way an item joins the conversation: written by add
// (session_write.go), and what an item starts on its way in (a user turn
// re-enables continuation, a result settles its task).

// Append adds an item after the head (or Parent) and moves the head to it,
// durable once the turn ends or Commit returns; an attachment that cannot be
// stored refuses it. A "task" tool_call is StartTask's.
func (s *Session) Append(ctx context.Context, it Item) (Item, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if it.Task != "" {
		return Item{}, fmt.Errorf("%w: an item naming a task is appended by StartTask", ErrBadInput)
	}
	it.ID = ""
	out, err := s.add(ctx, it)
	if err != nil {
		return out, err
	}
	if it.Type == User {
		s.userTurn() // a user turn re-enables automatic continuation
	}
	// A result answering a task's call delivers it: the task settles.
	if call := s.st.Item(it.Call); it.Type == ToolResult && call != nil && call.Task != "" && s.unrecorded == nil {
		if err := s.endTaskOnResult(ctx, call.Task); err != nil {
			s.noticef("task %s could not be recorded as settled: %v", call.Task, err)
		}
	}
	return out, nil
}
