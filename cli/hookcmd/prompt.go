package hookcmd

import (
	"errors"
	"io/fs"
	"time"

	"cairn/cli/cmdbase"
	"cairn/engine"
	"cairn/importer"
)

// hookCatchUp brings the agent's transcript (the event's transcript_path)
// into the session s, open (importer.CatchUp): before a hook appends the user's
// new prompt (pending), so the prompt goes under the agent's last answer,
// as in the transcript, and not under the previous prompt; and at the end
// of a turn (Stop, SessionEnd), so the turn's answers and calls are there
// when the agent is done. The new prompt itself, when the transcript holds
// it already, is left for the hook to append. Best effort: a transcript
// that is missing, unreadable or of another session changes nothing, and
// what could not be brought in now is read by the next catch-up; a
// failure other than a busy session is said.
func (h *hookRun) hookCatchUp(ws *engine.Workspace, s *engine.Session, ev hookEvent, pending bool) {
	if ev.Transcript == nil || *ev.Transcript == "" {
		return
	}
	a := engine.AgentSession{Agent: h.agent, ID: ev.SessionID}
	var p *engine.PendingPrompt
	if pending {
		p = &engine.PendingPrompt{Text: ev.Prompt, ID: ev.PromptID, At: time.Now()}
	}
	_, err := importer.CatchUp(h.Ctx, ws, s, a, *ev.Transcript, p)
	if err != nil && !errors.Is(err, engine.ErrBusy) && !errors.Is(err, fs.ErrNotExist) {
		h.say("the agent's answers and calls were not brought in yet (the next prompt tries again): " + cmdbase.UserError(err))
	}
}
