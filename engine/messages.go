package engine

import (
	"context"
	"errors"
	"fmt"
	"path"

	"cairn/engine/internal/inbox"
)

// Cross-session messaging (seed 000, behind experimental.cross_session_messaging):
// a live session can be messaged by another session or a script on the
// machine. Each session has an inbox beside its background work,
//
//	tasks/<session id>/inbox.jsonl   (format: engine/internal/inbox)
//
// which senders append to without a lock and the session's owner
// delivers from, once each and in order, as queued message items. A
// session is live while a process owns it (its lock, owner.go).

// inboxFile is the inbox's name in a session's task folder.
const inboxFile = "inbox.jsonl"

func inboxName(dir, session string) string { return path.Join(dir, tasksFolder, session, inboxFile) }

// MessageOptions change how SendMessage sends (inbox.MessageOptions).
type MessageOptions = inbox.MessageOptions

// MessageSent is what became of a message.
type MessageSent = inbox.Sent

// SendMessage keeps text in session's inbox for its owner to deliver. A
// session open nowhere refuses it unless opts.Queue (MessageSent.Queued).
// Needs experimental.cross_session_messaging.
func (w *Workspace) SendMessage(ctx context.Context, session, text string, opts MessageOptions) (MessageSent, error) {
	cfg, err := w.s.Config()
	if err != nil {
		return MessageSent{}, err
	}
	if !cfg.Experimental.CrossSessionMessaging {
		return MessageSent{}, refusedf("cross-session messaging is off: set experimental.cross_session_messaging to true in config.json")
	}
	if err := w.checkSession(session); err != nil {
		return MessageSent{}, err
	}
	if opts.From != "" && !validSessionID(opts.From) {
		return MessageSent{}, fmt.Errorf("%w: %q is not a session id", ErrBadInput, opts.From)
	}
	if err := ctx.Err(); err != nil {
		return MessageSent{}, err
	}
	sent, err := inbox.Send(w.s.fsys, inboxName(w.dir, session), lockName(w.dir, session), opts.From, text,
		inbox.SendOptions{Queue: opts.Queue, Now: w.s.now})
	switch {
	case errors.Is(err, inbox.ErrNotLive):
		return MessageSent{}, refusedf("session %s is not open in any cairn process: the message was not sent (queue it to have it delivered when the session is next opened)", session)
	case errors.Is(err, inbox.ErrInvalid):
		return MessageSent{}, fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	return sent, err
}
