package agentimport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"cairn/engine/internal/attach"
	"cairn/engine/internal/convlog"
	"cairn/engine/internal/errs"
	"cairn/engine/internal/hookrec"
	"cairn/engine/internal/titles"
	"cairn/internal/timefmt"
	"cairn/objects"
)

// Env is what making the lines needs of the engine.
type Env struct {
	// Now is the time a pending prompt without its own is taken to be at.
	Now time.Time
	// Objects stores a text over convlog.PayloadInline (not in a dry run).
	Objects *objects.Store
	// Attach stores attachments as objects (not in a dry run); an
	// *attach.TooLargeError leaves the one it refuses out.
	Attach func(context.Context, []convlog.Attachment) ([]convlog.Attachment, error)
}

// CallItem is the item id of a tool call of session id that the agent
// calls call: the id a hook's change record names, and the id an import
// gives the call's item.
func CallItem(id, call string) string { return hookrec.ItemID(id, "call:"+call) }

// Lines turns src's items into item lines, leaving out those st already
// holds, folds them onto st and checks their links as an append would; it
// returns them and the id of the item the head goes to ("" = none). A text
// over convlog.PayloadInline is stored as an object, as an append stores
// it. A pending prompt (Source.Pending) the source holds is cut from src,
// with what follows it, and src.Offset set to where it starts.
func Lines(ctx context.Context, env Env, st *convlog.State, id string, src *Source, res *Result) ([]*convlog.Line, string, error) {
	var out []*convlog.Line
	head := ""
	res.Cut = -1
	alias := aliases(st, id, src)
	idOf := func(key string) string {
		if a, ok := alias[key]; ok {
			return a
		}
		if a, ok := src.Prior[key]; ok {
			return a
		}
		return hookrec.ItemID(id, key)
	}
	if i := pendingAt(st, src, idOf, env.Now); i >= 0 {
		res.Cut = src.Items[i].Off
		src.Items, src.Offset, src.Head = src.Items[:i:i], src.Items[i].Off, ""
	}
	for i := range src.Items {
		in := &src.Items[i]
		if !in.Type.Valid() {
			return nil, "", fmt.Errorf("%w: item type %q", errs.ErrBadInput, in.Type)
		}
		iid := idOf(in.Key)
		if iid != hookrec.ItemID(id, in.Key) || in.Type == convlog.User {
			// A read that starts after this one must know the prompts
			// before it as the source's (hookPrompts) and the ids not
			// derived from a key alone.
			if res.Aliases == nil {
				res.Aliases = map[string]string{}
			}
			res.Aliases[in.Key] = iid
		}
		head = iid
		if st.Item(iid) != nil {
			res.Present++
			continue
		}
		it := convlog.Item{ID: iid, Type: in.Type, Tool: in.Tool, Status: in.Status, Text: in.Text, At: timefmt.Mk(in.At)}
		if in.ParentKey != "" {
			if p := idOf(in.ParentKey); st.Item(p) != nil {
				it.Parent = p
			}
		}
		if len(in.ReplacesKeys) == 2 && in.Type == convlog.Compaction {
			a, b := idOf(in.ReplacesKeys[0]), idOf(in.ReplacesKeys[1])
			if in.ReplacesKeys[0] == "" {
				a = st.PathRoot(b)
			}
			if st.Item(a) != nil && st.Item(b) != nil {
				it.Replaces = []string{a, b}
			}
		}
		if in.CallKey != "" && in.Type == convlog.ToolResult {
			it.Call = idOf(in.CallKey)
			if st.CheckLinks(&it) != nil {
				it.Call = ""
				res.Unlinked++
			}
		}
		atts, err := attachments(ctx, env, in, &it, src.DryRun, res)
		if err != nil {
			return nil, "", err
		}
		l := &convlog.Line{V: 1, Kind: convlog.KindItem, ID: it.ID, Type: it.Type, At: &it.At, Tool: it.Tool, Call: it.Call, Status: it.Status, Text: &it.Text,
			Replaces: it.Replaces, Attachments: atts}
		if len(it.Text) > convlog.PayloadInline && !src.DryRun {
			p, err := convlog.WritePayload(ctx, env.Objects, it.Text)
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
		if h := idOf(src.Head); st.Item(h) != nil {
			head = h
		}
	}
	return out, head, nil
}

// aliases is the ids of src's items that are not derived from their key
// alone, by key: a prompt the hooks recorded stands for its transcript
// line (see the package doc), and a tool call new to the session is named
// by the agent's own id of it (CallItem), which a hook's change record
// names. A call an earlier import brought in keeps its id.
func aliases(st *convlog.State, id string, src *Source) map[string]string {
	alias := hookPrompts(st, id, src)
	for i := range src.Items {
		in := &src.Items[i]
		if in.Type != convlog.ToolCall || in.CallID == "" {
			continue
		}
		if _, prior := src.Prior[in.Key]; prior || st.Item(hookrec.ItemID(id, in.Key)) != nil {
			continue
		}
		alias[in.Key] = CallItem(id, in.CallID)
	}
	return alias
}

// attachments stores an item's attachments (not in a dry run) and says
// what the line names. One over storage.max_attachment_mb is left out,
// said in the item's text.
func attachments(ctx context.Context, env Env, in *Item, it *convlog.Item, dry bool, res *Result) ([]convlog.Attachment, error) {
	var out []convlog.Attachment
	for _, a := range in.Attachments {
		if dry {
			out = append(out, a)
			res.Attachments++
			continue
		}
		got, err := env.Attach(ctx, []convlog.Attachment{a})
		var big *attach.TooLargeError
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

// Tail is the lines after the items: the head, the title, the spend and
// the meta that says how far the import read, at now, by build. The spend
// it records is what the source spent since the last import, in a turn
// line (turn is its number); the caller writes the same to the usage
// ledger.
func Tail(st *convlog.State, src *Source, head string, now timefmt.Time, build string) (out []*convlog.Line, spend convlog.Spend, turn int) {
	prev := MetaOf(st)
	spend = convlog.Spend{InputTokens: src.Spend.InputTokens - prev.Spend.InputTokens, OutputTokens: src.Spend.OutputTokens - prev.Spend.OutputTokens, CostUSD: src.Spend.CostUSD - prev.Spend.CostUSD}
	if spend.InputTokens < 0 || spend.OutputTokens < 0 || spend.CostUSD < 0 {
		spend = convlog.Spend{} // the source was cut or rewritten: nothing new spent
	}
	if head != "" && st.Head != head {
		out = append(out, &convlog.Line{V: 1, Kind: convlog.KindHead, To: &head, Why: "import", At: &now})
	}
	title := src.Title
	if title == "" && st.Title == "" {
		for _, id := range st.Order { // the first prompt names it, as an append's title does
			if it := st.Item(id); it.Type == convlog.User && it.Text != "" {
				title = titles.FromPrompt(it.Text)
				break
			}
		}
	}
	if title != "" && title != st.Title {
		out = append(out, &convlog.Line{V: 1, Kind: convlog.KindTitle, Title: title, Source: "import", At: &now})
	}
	if spend != (convlog.Spend{}) || (src.Model != "" && src.Model != st.Model) {
		// A turn of its own, marked as one that writes a usage line: an
		// open after a crash before that line puts it back, as for any
		// turn.
		t := &convlog.TurnState{N: st.Turns + 1, Model: src.Model, Spend: spend, Build: build, Labels: []string{"import"}, Usage: spend != (convlog.Spend{})}
		out = append(out, &convlog.Line{V: 1, Kind: convlog.KindTurn, At: &now, Turn: t})
		turn = t.N
	}
	total := prev.Spend
	if spend != (convlog.Spend{}) {
		total = src.Spend
	}
	meta := Meta{Agent: src.Agent, Source: src.SourceID, Path: src.Path, Offset: src.Offset, Spend: total}
	if len(out) > 0 || meta != prev {
		m, _ := json.Marshal(map[string]Meta{"import": meta})
		out = append(out, &convlog.Line{V: 1, Kind: convlog.KindMeta, Meta: m, At: &now})
	}
	return out, spend, turn
}
