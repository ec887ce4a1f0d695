package engine

import (
	"context"
)

// A draft is prompt text a session holds for its composer, not yet sent: a
// fork at a user prompt, or a conversation revert to one, hands that
// prompt back for editing. It is a line of the items journal:
//
//	{"v":1,"kind":"draft","at":"...","text":"..."}
//	{"v":1,"kind":"draft","at":"...","payload":{"oid":"<sha256>","size":N}}
//
// the second for a text over 16 KiB, whose object the workspace already
// holds (the prompt's own). A draft line with neither clears the draft; a
// user prompt item clears it too (the draft was sent). A session holding a
// draft is recorded even with no items, and its record says "draft".

// Draft is the prompt text a session holds for its composer: Text, or the
// Payload object holding a text over 16 KiB.
type Draft struct {
	Text    string   `json:"text,omitempty"`
	Payload *Payload `json:"payload,omitempty"`
}

// draftLine is the journal line that sets the draft to text, stored as it is
// or, when the prompt's line named a payload object, by that object.
func draftLine(at Time, text string, payload *Payload) *itemLine {
	l := &itemLine{V: 1, Kind: kindDraft, At: &at}
	if payload != nil {
		l.Payload = payload
	} else {
		l.Text = &text
	}
	return l
}

// readDraft gives the text of draft d, reading its payload object when it
// has one; a payload that cannot be read back gives its Unavailable.
func (w *Workspace) readDraft(ctx context.Context, d *Draft) (string, *Unavailable, error) {
	if d == nil {
		return "", nil, nil
	}
	if d.Payload == nil {
		return d.Text, nil, nil
	}
	txt, err := readPayload(ctx, w.objects(), d.Payload)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return "", nil, cerr
		}
		return "", unavailable(d.Payload, err), nil
	}
	return txt, nil, nil
}

// Draft is the prompt text the session holds for its composer ("" when
// none), or the Unavailable of one whose payload cannot be read back.
func (s *Session) Draft(ctx context.Context) (string, *Unavailable, error) {
	s.mu.Lock()
	d := s.st.draft
	s.mu.Unlock()
	return s.ws.readDraft(ctx, d)
}

// Draft is the prompt text the session holds for its composer ("" when
// none), or the Unavailable of one whose payload cannot be read back.
func (v *View) Draft(ctx context.Context) (string, *Unavailable, error) {
	return v.ws.readDraft(ctx, v.st.draft)
}
