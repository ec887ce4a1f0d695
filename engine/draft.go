package engine

import (
	"cairn/engine/internal/convlog"
	"context"
)

// A draft is prompt text a session holds for its composer, not yet sent: a
// fork at a user prompt, or a conversation revert to one, hands that
// prompt back for editing, and SetDraft keeps a prompt typed and not sent.
// It is a line of the items journal:
//
//	{"v":1,"kind":"draft","at":"...","text":"..."}
//	{"v":1,"kind":"draft","at":"...","payload":{"oid":"<sha256>","size":N}}
//
// the second for a text over 16 KiB, whose object the workspace already
// holds (the prompt's own). Either may carry the prompt's "attachments"
// (attach.go), named by reference, so the draft hands back text and
// attachments alike. A draft line with none of these clears the draft; a
// user prompt item clears it too (the draft was sent). A session holding a
// draft is recorded even with no items, and its record says "draft".

// Draft is the prompt text a session holds for its composer.
type Draft = convlog.Draft

// readDraft gives the text of draft d (convlog.ReadDraft).
func (w *Workspace) readDraft(ctx context.Context, d *Draft) (string, *Unavailable, error) {
	return convlog.ReadDraft(ctx, w.objects(), d)
}

// Draft is the prompt text the session holds for its composer ("" when
// none), or the Unavailable of one whose payload cannot be read back.
func (s *Session) Draft(ctx context.Context) (string, *Unavailable, error) {
	s.mu.Lock()
	d := s.st.Draft
	s.mu.Unlock()
	return s.ws.readDraft(ctx, d)
}

// Draft is the prompt text the session holds for its composer ("" when
// none), or the Unavailable of one whose payload cannot be read back.
func (v *View) Draft(ctx context.Context) (string, *Unavailable, error) {
	return v.ws.readDraft(ctx, v.st.Draft)
}

// DraftAttachments are the attachments the session's draft holds (a fork
// or revert at a prompt hands them back with its text); sending them again
// names the same objects. A live-only one is Gone.
func (s *Session) DraftAttachments() []Attachment {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st.Draft == nil {
		return nil
	}
	return convlog.OnDisk(s.st.Draft.Attachments)
}

// SetDraft keeps text, a prompt typed and not sent, as the session's draft
// for its composer ("" clears it), durably.
func (s *Session) SetDraft(ctx context.Context, text string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if text == "" && s.st.Draft == nil {
		return nil
	}
	if err := s.readyForItem(ctx); err != nil {
		return err
	}
	now := mkTime(s.ws.s.Now())
	l := &itemLine{V: 1, Kind: kindDraft, At: &now} // clears the draft
	if text != "" {
		var p *Payload
		if len(text) > payloadInline && s.unrecorded == nil {
			var err error
			if p, err = convlog.WritePayload(ctx, s.ws.objects(), text); err != nil {
				return err
			}
		}
		l = convlog.DraftLine(now, text, p, nil)
	}
	if err := s.writeLine(ctx, l); err != nil {
		return err
	}
	s.st.Fold(l)
	return s.commitLocked(ctx)
}
