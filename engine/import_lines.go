package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"cairn/engine/internal/convlog"
	"cairn/engine/internal/titles"
)

// importLines turns src's items into item lines, leaving out those st
// already holds, and checks their links as an append would.
// A text over payloadInline is stored as an object, as Append stores it.
// A pending prompt (ImportSource.Pending) the source holds is cut from
// src, with what follows it, and src.Offset set to where it starts.
func (w *Workspace) importLines(ctx context.Context, st *state, id string, src *ImportSource, res *ImportResult) ([]*itemLine, string, error) {
	var out []*itemLine
	head := ""
	res.Cut = -1
	alias := importAliases(st, id, src)
	idOf := func(key string) string {
		if a, ok := alias[key]; ok {
			return a
		}
		if a, ok := src.Prior[key]; ok {
			return a
		}
		return importItemID(id, key)
	}
	if i := pendingAt(st, src, idOf, w.s.Now()); i >= 0 {
		res.Cut = src.Items[i].Off
		src.Items, src.Offset, src.Head = src.Items[:i:i], src.Items[i].Off, ""
	}
	for i := range src.Items {
		in := &src.Items[i]
		if !in.Type.Valid() {
			return nil, "", fmt.Errorf("%w: item type %q", ErrBadInput, in.Type)
		}
		iid := idOf(in.Key)
		if iid != importItemID(id, in.Key) || in.Type == User {
			// A read that starts after this one must know the prompts
			// before it as the source's (hookPrompts) and the ids not
			// derived from a key alone.
			if res.Aliases == nil {
				res.Aliases = map[string]string{}
			}
			res.Aliases[in.Key] = iid
		}
		head = iid
		if st.Items[iid] != nil {
			res.Present++
			continue
		}
		it := Item{ID: iid, Type: in.Type, Tool: in.Tool, Status: in.Status, Text: in.Text, At: mkTime(in.At)}
		if in.ParentKey != "" {
			if p := idOf(in.ParentKey); st.Items[p] != nil {
				it.Parent = p
			}
		}
		if len(in.ReplacesKeys) == 2 && in.Type == Compaction {
			a, b := idOf(in.ReplacesKeys[0]), idOf(in.ReplacesKeys[1])
			if in.ReplacesKeys[0] == "" {
				a = st.PathRoot(b)
			}
			if st.Items[a] != nil && st.Items[b] != nil {
				it.Replaces = []string{a, b}
			}
		}
		if in.CallKey != "" && in.Type == ToolResult {
			it.Call = idOf(in.CallKey)
			if st.CheckLinks(&it) != nil {
				it.Call = ""
				res.Unlinked++
			}
		}
		atts, err := w.importAttachments(ctx, in, &it, src.DryRun, res)
		if err != nil {
			return nil, "", err
		}
		l := &itemLine{V: 1, Kind: kindItem, ID: it.ID, Type: it.Type, At: &it.At, Tool: it.Tool, Call: it.Call, Status: it.Status, Text: &it.Text,
			Replaces: it.Replaces, Attachments: atts}
		if len(it.Text) > payloadInline && !src.DryRun {
			p, err := convlog.WritePayload(ctx, w.objects(), it.Text)
			if err != nil {
				return nil, "", err
			}
			l.Text, l.Payload = nil, p
		}
		if it.Parent != "" {
			l.Parent = &it.Parent
		}
		if err := st.Fold(l); err != nil {
			return nil, "", err
		}
		out = append(out, l)
		res.Items++
	}
	if src.Head != "" {
		if h := idOf(src.Head); st.Items[h] != nil {
			head = h
		}
	}
	return out, head, nil
}

// importAliases is the ids of src's items that are not derived from their
// key alone, by key: a prompt the hooks recorded stands for its transcript
// line (import_prompts.go), and a tool call new to the session is named by
// the agent's own id of it (agentCallItem), which a hook's change record
// names. A call an earlier import brought in keeps its id.
func importAliases(st *state, id string, src *ImportSource) map[string]string {
	alias := hookPrompts(st, id, src)
	for i := range src.Items {
		in := &src.Items[i]
		if in.Type != ToolCall || in.CallID == "" {
			continue
		}
		if _, prior := src.Prior[in.Key]; prior || st.Items[importItemID(id, in.Key)] != nil {
			continue
		}
		alias[in.Key] = agentCallItem(id, in.CallID)
	}
	return alias
}

// agentCallItem is the item id of a tool call of session id that the
// agent calls call: the id a hook's change record names, and the id an
// import gives the call's item.
func agentCallItem(id, call string) string { return importItemID(id, "call:"+call) }

// importAttachments stores an item's attachments (not in a dry run) and
// says what the line names. One over storage.max_attachment_mb is left
// out, said in the item's text.
func (w *Workspace) importAttachments(ctx context.Context, in *ImportItem, it *Item, dry bool, res *ImportResult) ([]Attachment, error) {
	var out []Attachment
	for _, a := range in.Attachments {
		if dry {
			out = append(out, a)
			res.Attachments++
			continue
		}
		got, err := w.storeAttachments(ctx, []Attachment{a})
		var big *AttachmentTooLargeError
		if errors.As(err, &big) {
			res.Dropped++
			it.Text = strings.TrimSpace(it.Text + "\n[" + a.Name + " not kept: over the " + fmt.Sprint(big.CapMB) + " MB attachment cap]")
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, convlog.OnDisk(got)...)
		res.Attachments++
	}
	return out, nil
}

// importTail is the lines after the items: the head, the title, the spend
// and the meta that says how far the import read.
// The spend it records is what the source spent since the last import, in a
// turn line; the caller writes the same to the usage ledger.
func importTail(st *state, src *ImportSource, head string, now Time) (out []*itemLine, spend Spend, turn int) {
	prev := importMeta(st)
	spend = Spend{InputTokens: src.Spend.InputTokens - prev.Spend.InputTokens, OutputTokens: src.Spend.OutputTokens - prev.Spend.OutputTokens, CostUSD: src.Spend.CostUSD - prev.Spend.CostUSD}
	if spend.InputTokens < 0 || spend.OutputTokens < 0 || spend.CostUSD < 0 {
		spend = Spend{} // the source was cut or rewritten: nothing new spent
	}
	if head != "" && st.Head != head {
		out = append(out, &itemLine{V: 1, Kind: kindHead, To: &head, Why: "import", At: &now})
	}
	title := src.Title
	if title == "" && st.Title == "" {
		for _, id := range st.Order { // the first prompt names it, as Append's title does
			if it := st.Items[id]; it.Type == User && it.Text != "" {
				title = titles.FromPrompt(it.Text)
				break
			}
		}
	}
	if title != "" && title != st.Title {
		out = append(out, &itemLine{V: 1, Kind: kindTitle, Title: title, Source: "import", At: &now})
	}
	if spend != (Spend{}) || (src.Model != "" && src.Model != st.Model) {
		// A turn of its own, marked as one that writes a usage line: an
		// open after a crash before that line puts it back
		// (turn_settle.go), as for any turn.
		t := &turnState{N: st.Turns + 1, Model: src.Model, Spend: spend, Build: Version, Labels: []string{"import"}, Usage: spend != (Spend{})}
		out = append(out, &itemLine{V: 1, Kind: kindTurn, At: &now, Turn: t})
		turn = t.N
	}
	total := prev.Spend
	if spend != (Spend{}) {
		total = src.Spend
	}
	meta := ImportMeta{Agent: src.Agent, Source: src.SourceID, Path: src.Path, Offset: src.Offset, Spend: total}
	if len(out) > 0 || meta != prev {
		m, _ := json.Marshal(map[string]ImportMeta{"import": meta})
		out = append(out, &itemLine{V: 1, Kind: kindMeta, Meta: m, At: &now})
	}
	return out, spend, turn
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
		if st.Items[iid].Type == ToolCall {
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
		return importItemID(id, key)
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
