package engine

import (
	"context"

	"cairn/engine/internal/agentimport"
	"cairn/engine/internal/hookrec"
)

// importEnv is what agentimport.Lines needs of the workspace: the clock,
// the object store for long texts and the attachment store.
func (w *Workspace) importEnv() agentimport.Env {
	return agentimport.Env{Now: w.s.Now(), Objects: w.objects(), Attach: w.storeAttachments}
}

// importUsage writes an import's spend to the usage ledger, synced.
func (w *Workspace) importUsage(id, model string, spend Spend, turn int, at Time) error {
	if spend == (Spend{}) {
		return nil
	}
	lw, err := w.s.writeUsage(usageLine{V: 1, Kind: "usage", At: at, Path: w.path, Session: id, Model: model,
		InputTokens: spend.InputTokens, OutputTokens: spend.OutputTokens, CostUSD: spend.CostUSD, Turn: turn})
	if err != nil {
		return err
	}
	defer lw.Close()
	return lw.Sync()
}

// nameTasks writes src's sub-agent transcripts (importTasks) and names
// each task on the line of the call item that started it.
func (w *Workspace) nameTasks(ctx context.Context, id string, st *state, src *ImportSource, lines []*itemLine, res *ImportResult) error {
	if len(src.Tasks) == 0 {
		return nil
	}
	calls := map[string]bool{}
	for _, iid := range st.Order {
		if st.Item(iid).Type == ToolCall {
			calls[iid] = true
		}
	}
	idOf := func(key string) string {
		if a, ok := res.Aliases[key]; ok {
			return a
		}
		if a, ok := src.Prior[key]; ok {
			return a
		}
		return hookrec.ItemID(id, key)
	}
	named, added, err := w.importTasks(ctx, id, src, calls, idOf)
	if err != nil {
		return err
	}
	res.Tasks, res.TaskItems = len(named), added
	for _, l := range lines {
		if t, ok := named[l.ID]; ok && l.Kind == kindItem {
			l.Task = t
		}
	}
	return nil
}
