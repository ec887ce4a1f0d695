package cli

import (
	"os"
	"strings"
	"time"

	"cairn/engine"
	"cairn/importer"
)

// hookCatchUp brings the agent's transcript (the event's transcript_path)
// into the session before a hook appends the user's new prompt, so the
// prompt goes under the agent's last answer, as in the transcript, and
// not under the previous prompt: a later `cairn import` then finds every
// prompt where the transcript has it, and the conversation is one path.
// Only items are added (engine.Workspace.Import, which also finds the
// prompts the hooks recorded). The new prompt itself, when the transcript
// holds it already, is left for the hook to append. Best effort and
// quiet: a transcript that is missing, unreadable or of another session
// changes nothing.
func (h *hookRun) hookCatchUp(ws *engine.Workspace, ev hookEvent, pending bool) {
	g, agent := h.Globals, h.agent
	if ev.Transcript == nil || *ev.Transcript == "" {
		return
	}
	path := *ev.Transcript
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	var src *engine.ImportSource
	switch agent {
	case importer.AgentClaudeCode:
		src, _, err = importer.ClaudeCode(f, path)
	case importer.AgentCodex:
		src, _, err = importer.Codex(f, path)
	}
	if err != nil || src == nil || src.SourceID != ev.SessionID {
		return
	}
	// The prompt being submitted, if the agent wrote it already: the
	// hook appends it (with its prompt id); what follows it is not there
	// yet. The next import reads the file again (offset 0).
	cut := false
	for i := len(src.Items) - 1; pending && i >= 0; i-- {
		it := &src.Items[i]
		if it.Type != engine.User {
			continue
		}
		same := ev.PromptID != "" && it.PromptID == ev.PromptID ||
			strings.TrimSpace(orText(it)) == strings.TrimSpace(ev.Prompt) && time.Since(it.At).Abs() <= engine.PromptMatchWindow
		if same {
			src.Items, src.Head, src.Offset, cut = src.Items[:i], "", 0, true
		}
		break
	}
	if len(src.Items) == 0 {
		return
	}
	if off, ok, err := ws.ImportOffset(g.ctx, agent, src.SourceID); err != nil || ok && !cut && off == src.Offset {
		return
	}
	ws.Import(g.ctx, src)
}

// orText is the text a user item's prompt was typed as.
func orText(it *engine.ImportItem) string {
	if it.PromptText != "" {
		return it.PromptText
	}
	return it.Text
}
