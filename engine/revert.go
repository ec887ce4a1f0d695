package engine

import (
	"cairn/engine/internal/convlog"
	"cairn/engine/internal/revert"
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
//
// A files or both revert puts back the files this session's records
// changed after the same boundary, files first (revert_files.go); Unrevert
// then puts the files back before the head (revert_unrevert.go).

// RevertMode says what a revert changes.
type RevertMode string

const (
	RevertConversation RevertMode = "conversation"
	RevertFiles        RevertMode = "files"
	RevertBoth         RevertMode = "both"
)

// RevertResult says what a revert did (revert.Result).
type RevertResult = revert.Result

// Revert moves the head to the boundary of item at (mode conversation),
// reverts the files this session's records changed after it (files), or
// both: the files first, then the head (revert_files.go).
func (s *Session) Revert(ctx context.Context, at string, mode RevertMode) (*RevertResult, error) {
	switch mode {
	case RevertConversation, "":
	case RevertFiles, RevertBoth:
		return s.revertFiles(ctx, at, mode, true)
	default:
		return nil, fmt.Errorf("%w: revert mode %q (conversation, files or both)", ErrBadInput, mode)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	it := s.st.Item(at)
	if it == nil {
		return nil, noItem(at, s.st.ID)
	}
	return s.revertHeadLocked(ctx, it)
}

// PreviewRevert says what Revert would do to the files, changing nothing;
// a revert that would be refused is refused alike.
func (s *Session) PreviewRevert(ctx context.Context, at string, mode RevertMode) (*RevertResult, error) {
	switch mode {
	case RevertFiles, RevertBoth:
		return s.revertFiles(ctx, at, mode, false)
	}
	return nil, fmt.Errorf("%w: only a files or both revert is previewed (mode %q)", ErrBadInput, mode)
}

// revertHeadLocked moves the head to the boundary of it. s.mu is held.
func (s *Session) revertHeadLocked(ctx context.Context, it *Item) (*RevertResult, error) {
	// The same boundary as a fork's (fork.go): a prompt lands before it, a
	// completed tool call keeps its result.
	to, prompt, _ := s.st.Boundary(it)
	draft, draftGone := "", (*Unavailable)(nil)
	if prompt {
		draft, draftGone = it.Text, it.Unavailable
	}
	from := s.st.Head
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
			if p, err = convlog.WritePayload(ctx, s.ws.objects(), it.Text); err != nil {
				return nil, err
			}
		}
		dl = convlog.DraftLine(now, it.Text, p, it.Attachments)
	}
	l := &itemLine{V: 1, Kind: kindHead, To: &to, Why: "revert", At: &now}
	if err := s.writeLine(ctx, l); err != nil {
		return nil, err
	}
	s.st.Fold(l)
	if dl != nil {
		if err := s.writeLine(ctx, dl); err != nil {
			return nil, err
		}
		s.st.Fold(dl)
	}
	if err := s.commitLocked(ctx); err != nil {
		return nil, err
	}
	return &RevertResult{Session: s.st.ID, Head: to, From: from, Draft: draft, DraftUnavailable: draftGone}, nil
}

// Unrevert puts back the files of the file reverts since the last new work,
// all or none, then the head where it was before the conversation reverts.
// Nothing to unrevert is refused.
func (s *Session) Unrevert(ctx context.Context) (*RevertResult, error) {
	s.busy.RLock()
	defer s.busy.RUnlock()
	if s.isClosed() {
		return nil, fmt.Errorf("engine: session %s is closed", s.ID())
	}
	if err := s.refuseRunning("unrevert"); err != nil && s.ws.pendingQuick(s.st.ID) {
		return nil, err
	}
	s.snaps.mu.Lock()
	defer s.snaps.mu.Unlock()
	fr, err := s.unrevertFiles(ctx)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	back := s.st.RevertFrom
	if back == "" {
		if fr != nil {
			return &RevertResult{Session: s.st.ID, Head: s.st.Head, From: s.st.Head, Files: fr}, nil
		}
		return nil, refusedf("nothing to unrevert (no revert, or new work since)")
	}
	from := s.st.Head
	now := mkTime(s.ws.s.Now())
	l := &itemLine{V: 1, Kind: kindHead, To: &back, Why: "unrevert", At: &now}
	if err := s.writeLine(ctx, l); err != nil {
		return nil, err
	}
	s.st.Fold(l)
	if s.st.Draft != nil {
		// The prompt a revert handed back is on the head path again.
		dl := convlog.DraftLine(now, "", nil, nil)
		if err := s.writeLine(ctx, dl); err != nil {
			return nil, err
		}
		s.st.Fold(dl)
	}
	if err := s.commitLocked(ctx); err != nil {
		return nil, err
	}
	return &RevertResult{Session: s.st.ID, Head: back, From: from, Files: fr}, nil
}
