package engine

import (
	"context"
	"fmt"
)

// Conversation revert moves the head; it deletes nothing. Selecting a user
// prompt lands before it and gives its text back for editing; any other item
// is inclusive. Reverts stack, and Unrevert puts the head back where it was
// before the first of them — until new work commits a new branch from the
// reverted point, after which the abandoned branch stays readable
// (transcript --all) but is no longer the way back.

// RevertMode says what a revert changes.
type RevertMode string

const (
	RevertConversation RevertMode = "conversation"
	RevertFiles        RevertMode = "files"
	RevertBoth         RevertMode = "both"
)

// RevertResult says what a revert did.
type RevertResult struct {
	Session string `json:"session"`
	Head    string `json:"head"`
	From    string `json:"from"`            // the head before the revert
	Draft   string `json:"draft,omitempty"` // the prompt's text, for a revert to a user prompt
	// DraftUnavailable is set when that prompt's text could not be read
	// back; Draft is empty then.
	DraftUnavailable *Unavailable `json:"draft_unavailable,omitempty"`
}

// Revert moves the head to the boundary of item at.
func (s *Session) Revert(ctx context.Context, at string, mode RevertMode) (*RevertResult, error) {
	switch mode {
	case RevertConversation, "":
	case RevertFiles, RevertBoth:
		return nil, fmt.Errorf("%w: reverting files is not available in this build; revert the conversation, or undo file edits with /undo", ErrRefused)
	default:
		return nil, fmt.Errorf("%w: revert mode %q (conversation, files or both)", ErrBadInput, mode)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	it := s.st.items[at]
	if it == nil {
		return nil, &noItem{at, s.st.id}
	}
	to, draft, draftGone := it.ID, "", (*Unavailable)(nil)
	if it.Type == User {
		to, draft, draftGone = it.Parent, it.Text, it.Unavailable
	}
	from := s.st.head
	now := mkTime(s.ws.s.Now())
	l := &itemLine{V: 1, Kind: kindHead, To: &to, Why: "revert", At: &now}
	if err := s.writeLine(l); err != nil {
		return nil, err
	}
	s.st.apply(l)
	if err := s.commitLocked(); err != nil {
		return nil, err
	}
	return &RevertResult{Session: s.st.id, Head: to, From: from, Draft: draft, DraftUnavailable: draftGone}, nil
}

// Unrevert puts the head back where it was before the reverts. It is
// refused when there is nothing to unrevert or new work has committed a new
// branch since.
func (s *Session) Unrevert(ctx context.Context) (*RevertResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	back := s.st.revertFrom
	if back == "" {
		return nil, fmt.Errorf("%w: nothing to unrevert (no revert, or new work since)", ErrRefused)
	}
	from := s.st.head
	now := mkTime(s.ws.s.Now())
	l := &itemLine{V: 1, Kind: kindHead, To: &back, Why: "unrevert", At: &now}
	if err := s.writeLine(l); err != nil {
		return nil, err
	}
	s.st.apply(l)
	if err := s.commitLocked(); err != nil {
		return nil, err
	}
	return &RevertResult{Session: s.st.id, Head: back, From: from}, nil
}

// CanUnrevert reports whether Unrevert would do something.
func (s *Session) CanUnrevert() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.revertFrom != ""
}
