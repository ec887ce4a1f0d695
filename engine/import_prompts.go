package engine

import (
	"context"
	"fmt"

	"cairn/engine/internal/agentimport"
	"cairn/engine/internal/hookrec"
)

// appendPrompt appends the user's prompt text as a user item, as Append
// does; with promptID (the agent's own id of the prompt) the item's id is
// derived from it, so an import of the agent's transcript finds it, and a
// hook that runs twice for one prompt adds it once (the item there is
// returned).
func (s *Session) appendPrompt(ctx context.Context, text, promptID string) (Item, error) {
	if promptID == "" {
		return s.Append(ctx, Item{Type: User, Text: text})
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	id := hookrec.ItemID(s.st.ID, agentimport.PromptKey(promptID))
	if it := s.st.Item(id); it != nil {
		if it.Type != User {
			return Item{}, fmt.Errorf("%w: item %s is a %s item", ErrBadInput, id, it.Type)
		}
		return *it, nil
	}
	return s.add(ctx, Item{ID: id, Type: User, Text: text})
}
