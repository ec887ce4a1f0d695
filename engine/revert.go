package engine

import (
	"context"
	"fmt"
)

// Conversation revert moves the head; it deletes nothing. Its boundary is
// a fork's (boundary in fork.go): selecting a user prompt lands before it
// and gives its text back for editing, kept as the session's draft; a
// completed tool call keeps its result(s); any other item is inclusive.
// Reverts stack, and Unrevert puts the head back where it was before the
// first of them — until new work commits a new branch from the
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
	// The same boundary as a fork's (fork.go): a prompt lands before it, a
	// completed tool call keeps its result.
	to, prompt, _ := boundary(s.st, it)
	draft, draftGone := "", (*Unavailable)(nil)
	if prompt {
		draft, draftGone = it.Text, it.Unavailable
	}
	from := s.st.head
	now := mkTime(s.ws.s.Now())
	// The prompt goes back to the composer and stays there as the
	// session's draft (draft.go) until a prompt is sent. A long one is
	// named by its object, stored (or found stored) before any line.
	var dl *itemLine
	if prompt && (it.Text != "" || it.Unavailable != nil || len(it.Attachments) > 0) {
		var p *Payload
		switch {
		case it.Unavailable != nil:
			p = &Payload{OID: it.Unavailable.OID, Size: it.Unavailable.Size}
		case len(it.Text) > payloadInline:
			var err error
			if p, err = writePayload(ctx, s.ws.objects(), it.Text); err != nil {
				return nil, err
			}
		}
		dl = draftLine(now, it.Text, p, it.Attachments)
	}
	l := &itemLine{V: 1, Kind: kindHead, To: &to, Why: "revert", At: &now}
	if err := s.writeLine(l); err != nil {
		return nil, err
	}
	s.st.apply(l)
	if dl != nil {
		if err := s.writeLine(dl); err != nil {
			return nil, err
		}
		s.st.apply(dl)
	}
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
	if s.st.draft != nil {
		// The prompt a revert handed back is on the head path again.
		dl := draftLine(now, "", nil, nil)
		if err := s.writeLine(dl); err != nil {
			return nil, err
		}
		s.st.apply(dl)
	}
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
