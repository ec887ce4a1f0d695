package cli

import (
	"fmt"

	"cairn/engine"
)

// MessageCmd is `cairn message SESSION TEXT`: a script's message to a live
// session (engine Workspace.SendMessage), behind
// experimental.cross_session_messaging. The session's owner shows it and
// keeps it as a message item for its next turn. A session open nowhere
// refuses it (exit 3) unless --queue keeps it for its next owner.
type MessageCmd struct {
	Session string `arg:"" help:"The session to message (id, prefix or title)."`
	Text    string `arg:"" help:"The message ('-' reads stdin)."`
	Queue   bool   `name:"queue" help:"When the session is open nowhere, keep the message for its next owner instead of refusing it."`
}

func (c *MessageCmd) Run(g *Globals) error {
	text, err := argText(g, c.Text)
	if err != nil {
		return err
	}
	ws, id, err := g.resolveSession(c.Session)
	if err != nil {
		return err
	}
	sent, err := ws.SendMessage(g.Ctx, id, text, engine.MessageOptions{Queue: c.Queue})
	if err != nil {
		return err
	}
	if g.JSON {
		return g.PrintJSON(sent)
	}
	if sent.Queued {
		fmt.Fprintf(g.Stdout, "%s queued: session %s is open nowhere; its next owner takes it\n", sent.ID, id)
		return nil
	}
	fmt.Fprintf(g.Stdout, "%s sent to %s\n", sent.ID, id)
	return nil
}
