package importer

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"mime"
	"path/filepath"
	"strings"
	"time"

	json "github.com/segmentio/encoding/json"

	"cairn/engine"
)

// AgentClaudeCode is Claude Code's name in an import's meta.
const AgentClaudeCode = "claude-code"

// Claude Code keeps a session as ~/.claude/projects/<project>/<session>.jsonl:
// one JSON object a line, a tree of lines linked by uuid and parentUuid.
// Conversation lines ("user", "assistant") carry a message whose content is
// a string or a list of blocks; an assistant message is split across
// several lines, one block each, sharing message.id. Tool results ride in
// "user" lines as tool_result blocks naming their tool_use's id. A
// "system" line with subtype compact_boundary starts a new chain
// (parentUuid null) and names the old one in logicalParentUuid; the "user"
// line after it, marked isCompactSummary, is the summary.
//
// Two shapes of the tree are mended, as the conversation the agent had
// was one path:
//
//   - Parallel tool calls (CLI 2.1.x): one assistant message's tool_use
//     lines follow one another, but each tool_result names its own
//     tool_use line as parent, so all results but the last sit on side
//     branches (the agent's own resume loses them too). A line whose
//     parent is an item of the message being answered (its lines and the
//     results that came since) goes under the newest of them instead: the
//     results follow one another, and what comes next follows them all.
//   - A compact_boundary whose logicalParentUuid names no line of the file
//     goes on from the item made last, in file order, so the history
//     before it stays on the path.

type ccLine struct {
	Type              string    `json:"type"`
	UUID              string    `json:"uuid"`
	ParentUUID        *string   `json:"parentUuid"`
	LogicalParentUUID string    `json:"logicalParentUuid"`
	SessionID         string    `json:"sessionId"`
	Cwd               string    `json:"cwd"`
	Timestamp         time.Time `json:"timestamp"`
	IsMeta            bool      `json:"isMeta"`
	IsSidechain       bool      `json:"isSidechain"`
	AgentID           string    `json:"agentId"`
	IsCompactSummary  bool      `json:"isCompactSummary"`
	PromptID          string    `json:"promptId"` // the prompt's id, as the hooks' prompt_id names it
	Subtype           string    `json:"subtype"`
	Summary           string    `json:"summary"`
	CustomTitle       string    `json:"customTitle"`
	AITitle           string    `json:"aiTitle"`
	// Message is decoded with the line: one pass over its bytes.
	Message *ccMessage `json:"message"`
	// A sub-agent's progress names it and the Task call it runs for;
	// the call's result names it too.
	Data            json.RawMessage `json:"data"`
	ParentToolUseID string          `json:"parentToolUseID"`
	ToolUseResult   json.RawMessage `json:"toolUseResult"` // an object, or a string
}

type ccMessage struct {
	ID      string          `json:"id"`
	Role    string          `json:"role"`
	Model   string          `json:"model"`
	Content json.RawMessage `json:"content"`
	Usage   *struct {
		Input         int64 `json:"input_tokens"`
		CacheCreation int64 `json:"cache_creation_input_tokens"`
		CacheRead     int64 `json:"cache_read_input_tokens"`
		Output        int64 `json:"output_tokens"`
	} `json:"usage"`
}

type ccBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
	Source    *ccSource       `json:"source"`
}

// ccSource is an image block's content.
type ccSource struct {
	Type      string `json:"type"` // base64, url
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
	URL       string `json:"url"`
}

// ccState is what a Claude Code read carries from one line to the next,
// and, kept in a State, to the next read of the same file.
type ccState struct {
	// Tip maps a line's uuid to the key of the item a child of that line
	// hangs under: its own last item, or, for a line that made none, its
	// parent's (so the tree closes over progress lines and the like).
	Tip tips `json:"-"`
	// Calls maps the id of a tool_use not answered yet to its item's key.
	Calls map[string]string `json:"calls,omitempty"`
	// MsgID and MsgKey are the message id and key of the last assistant
	// item made, for merging the next line of the same message.
	MsgID   string `json:"msg_id,omitempty"`
	MsgKey  string `json:"msg_key,omitempty"`
	MsgType string `json:"msg_type,omitempty"`
	// Usage is each message's spend: every line of a split message
	// repeats it, and the last counts.
	Usage  map[string]engine.Spend `json:"-"`
	Titles struct {
		Custom  string `json:"custom,omitempty"`
		Summary string `json:"summary,omitempty"`
		AI      string `json:"ai,omitempty"`
	} `json:"titles"`
	// Agents maps a sub-agent's id to the tool_use id of the call it ran for.
	Agents map[string]string `json:"agents,omitempty"`
	// Group is the message whose tool calls are being answered.
	Group ccGroup `json:"group"`
	// Last is the key of the item made last, in file order.
	Last string `json:"last,omitempty"`
	// newTips and newUsage are the keys of Tip and Usage set since the
	// State was read from its kept form: what an appended batch holds.
	newTips, newUsage []string
}

// setTip sets Tip[uuid], noting it for the next batch.
func (st *ccState) setTip(uuid, key string) {
	st.Tip.set(uuid, key)
	st.newTips = append(st.newTips, uuid)
}

// setUsage sets Usage[msg], noting it for the next batch.
func (st *ccState) setUsage(msg string, s engine.Spend) {
	st.Usage[msg] = s
	st.newUsage = append(st.newUsage, msg)
}

// ccGroup is one assistant message with its tool calls and their results
// (parallel calls mended, see above): its items' keys, and the newest.
type ccGroup struct {
	Msg     string          `json:"msg,omitempty"`
	Members map[string]bool `json:"members,omitempty"`
	Tip     string          `json:"tip,omitempty"`
}

func newCCState() *ccState {
	return &ccState{Tip: newTips(0), Calls: map[string]string{}, Usage: map[string]engine.Spend{}, Agents: map[string]string{}}
}

// under is where a line whose parent is key goes: the group's newest item
// when key is an older one of the group.
func (g *ccGroup) under(key string) string {
	if key != "" && key != g.Tip && g.Members[key] {
		return g.Tip
	}
	return key
}

// join adds items keys to the group (of message msg, a new group when it
// is another message's) and makes the last its newest.
func (g *ccGroup) join(msg string, keys []string) {
	if msg != g.Msg {
		*g = ccGroup{Msg: msg, Members: map[string]bool{}}
	}
	if g.Members == nil {
		g.Members = map[string]bool{}
	}
	for _, k := range keys {
		g.Members[k] = true
	}
	g.Tip = keys[len(keys)-1]
}

// ccParse is the state of one Claude Code read.
type ccParse struct {
	src   engine.ImportSource
	stats Stats
	st    *ccState
	// byKey finds an item of this read by key, to merge a split message
	// into it.
	byKey map[string]int
	// For sub-agent transcripts: the calls by id, and those a sub-agent
	// was matched to by its prompt.
	calls map[string]string
	taken map[string]bool
}

// parseClaudeCode reads r, the file path from the offset from says (from
// its start when from is nil), up to the line that starts at limit (to
// the end when limit < 0).
func parseClaudeCode(r io.Reader, path string, from *State, limit int64) (*ccParse, error) {
	p := &ccParse{stats: newStats(), st: newCCState(), byKey: map[string]int{}}
	p.src.Agent, p.src.Path = AgentClaudeCode, path
	var base int64
	if from != nil {
		p.st, base = from.CC, from.Offset
		from.into(&p.src)
	}
	read, torn, err := eachLine(r, base, limit, p.line)
	if err != nil {
		return p, fmt.Errorf("read %s: %w", path, err)
	}
	p.src.Offset, p.stats.Torn = read, torn
	if p.src.SourceID == "" {
		p.src.SourceID = strings.TrimSuffix(filepath.Base(path), ".jsonl")
	}
	for _, u := range p.st.Usage {
		p.src.Spend.InputTokens += u.InputTokens
		p.src.Spend.OutputTokens += u.OutputTokens
	}
	switch t := &p.st.Titles; {
	case t.Custom != "":
		p.src.Title = t.Custom
	case t.Summary != "":
		p.src.Title = t.Summary
	case t.AI != "":
		p.src.Title = t.AI
	}
	return p, nil
}

func (p *ccParse) line(b []byte, off int64) {
	var l ccLine
	if err := json.Unmarshal(b, &l); err != nil {
		p.stats.Skipped["invalid"]++
		return
	}
	if l.Type == "" {
		l.Type = "(none)"
	}
	p.stats.Lines[l.Type]++
	if p.src.SourceID == "" && l.SessionID != "" {
		p.src.SourceID = l.SessionID
	}
	if p.src.Dir == "" && l.Cwd != "" {
		p.src.Dir = l.Cwd
	}
	if p.src.Created.IsZero() && !l.Timestamp.IsZero() {
		p.src.Created = l.Timestamp
	}
	st := p.st
	if l.Type == "progress" && l.ParentToolUseID != "" {
		var d struct {
			Type    string `json:"type"`
			AgentID string `json:"agentId"`
		}
		if json.Unmarshal(l.Data, &d) == nil && d.Type == "agent_progress" && d.AgentID != "" {
			st.Agents[d.AgentID] = l.ParentToolUseID
		}
	}
	parent := ""
	if l.ParentUUID != nil {
		parent, _ = st.Tip.get(*l.ParentUUID)
	}
	parent = st.Group.under(parent)
	made := false
	switch l.Type {
	case "user":
		made = p.user(&l, parent, off)
	case "assistant":
		made = p.assistant(&l, parent, off)
	case "system":
		if l.Subtype == "compact_boundary" && l.LogicalParentUUID != "" {
			// The chain after it goes on from the one before; from the
			// item made last when the file lacks that one.
			if t, ok := st.Tip.get(l.LogicalParentUUID); ok {
				parent = st.Group.under(t)
			} else {
				parent = st.Last
			}
		}
		p.stats.Skipped["system/"+orNone(l.Subtype)]++
	case "summary":
		if st.Titles.Summary == "" {
			st.Titles.Summary = l.Summary
		}
		p.stats.Skipped["summary"]++
	case "custom-title":
		st.Titles.Custom = l.CustomTitle
		p.stats.Skipped["custom-title"]++
	case "ai-title":
		st.Titles.AI = l.AITitle
		p.stats.Skipped["ai-title"]++
	default:
		p.stats.Skipped[l.Type]++
	}
	if made {
		p.stats.Made[l.Type]++
	} else if l.UUID != "" {
		st.setTip(l.UUID, parent)
	}
}

// add appends an item made by a line.
func (p *ccParse) add(it engine.ImportItem) string {
	p.byKey[it.Key] = len(p.src.Items)
	p.src.Items = append(p.src.Items, it)
	p.stats.Items[string(it.Type)]++
	p.st.Last = it.Key
	return it.Key
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func (p *ccParse) user(l *ccLine, parent string, off int64) bool {
	if l.Message == nil {
		p.stats.Skipped["user/no-message"]++
		return false
	}
	m := l.Message
	if l.IsMeta {
		p.stats.Skipped["user/meta"]++
		return false
	}
	text, blocks, ok := contentOf(m.Content)
	if !ok {
		p.stats.Skipped["user/unreadable-content"]++
		return false
	}
	var out []engine.ImportItem
	var prompt, typed []string // typed: the text parts only, as a hook saw the prompt
	var atts []engine.Attachment
	results := false
	if text != "" {
		prompt, typed = append(prompt, text), append(typed, text)
	}
	for _, b := range blocks {
		switch b.Type {
		case "text":
			prompt, typed = append(prompt, b.Text), append(typed, b.Text)
		case "image":
			if a, ok := p.image(b.Source, len(atts)+1); ok {
				atts = append(atts, a)
			} else {
				prompt = append(prompt, "[image]")
			}
		case "tool_result":
			results = true
			rt, ratts := p.resultContent(b.Content, b.IsError)
			out = append(out, engine.ImportItem{Type: engine.ToolResult, Text: rt, CallKey: p.st.Calls[b.ToolUseID], Attachments: ratts})
			delete(p.st.Calls, b.ToolUseID)
			// toolUseResult repeats the tool's whole output: decoded only
			// when it may name a sub-agent.
			var tur struct {
				AgentID string `json:"agentId"`
			}
			if bytes.Contains(l.ToolUseResult, []byte(`"agentId"`)) && json.Unmarshal(l.ToolUseResult, &tur) == nil && tur.AgentID != "" {
				p.st.Agents[tur.AgentID] = b.ToolUseID
			}
		default:
			prompt = append(prompt, "["+b.Type+"]")
		}
	}
	if len(prompt) > 0 || len(atts) > 0 {
		// A pasted image is an attachment, not text.
		it := engine.ImportItem{Type: engine.User, Text: strings.Join(prompt, "\n"), PromptID: l.PromptID, PromptText: strings.Join(typed, "\n"), Attachments: atts}
		if l.IsCompactSummary {
			it.PromptID, it.PromptText = "", ""
			it.Type = engine.Compaction
			if parent != "" {
				// From the first item of the path that ends at parent.
				it.ReplacesKeys = []string{"", parent}
			}
		}
		out = append([]engine.ImportItem{it}, out...)
	}
	if len(out) == 0 {
		p.stats.Skipped["user/empty"]++
		return false
	}
	keys := p.chain(l, parent, off, out)
	if results && !(len(prompt) > 0 || len(atts) > 0) {
		p.st.Group.join(p.st.Group.Msg, keys) // results answer the group's calls
	} else {
		p.st.Group = ccGroup{} // a prompt: the calls before are answered
	}
	p.st.MsgID = ""
	return true
}

// image is an image block as an attachment (its bytes decoded), named by
// its place among the line's images; false for one whose bytes the line
// does not hold.
func (p *ccParse) image(src *ccSource, n int) (engine.Attachment, bool) {
	if src == nil || src.Type != "base64" || src.Data == "" {
		return engine.Attachment{}, false
	}
	data, err := base64.StdEncoding.DecodeString(src.Data)
	if err != nil {
		return engine.Attachment{}, false
	}
	return imageAttachment(data, src.MediaType, n), true
}

// imageAttachment names an image's bytes: image-N with the extension of
// its media type (sniffed when the source names none).
func imageAttachment(data []byte, mediaType string, n int) engine.Attachment {
	if mediaType == "" {
		mediaType = engine.MediaType("", data)
	}
	ext := ".img"
	if exts, _ := mime.ExtensionsByType(mediaType); len(exts) > 0 {
		ext = exts[0]
		for _, e := range exts {
			if e == ".png" || e == ".jpg" || e == ".gif" || e == ".webp" {
				ext = e
			}
		}
	}
	return engine.Attachment{Name: fmt.Sprintf("image-%d%s", n, ext), MediaType: mediaType, Data: data}
}

// chain adds items made by one line, each under the one before; their keys.
func (p *ccParse) chain(l *ccLine, parent string, off int64, out []engine.ImportItem) []string {
	keys := make([]string, len(out))
	for i := range out {
		out[i].Key = l.UUID
		if i < len(out)-1 || l.UUID == "" {
			out[i].Key = fmt.Sprintf("%s#%d", l.UUID, i)
		}
		out[i].ParentKey, out[i].At, out[i].Off = parent, l.Timestamp, off
		parent = p.add(out[i])
		keys[i] = parent
	}
	if l.UUID != "" {
		p.st.setTip(l.UUID, parent)
	}
	return keys
}

func (p *ccParse) assistant(l *ccLine, parent string, off int64) bool {
	if l.Message == nil {
		p.stats.Skipped["assistant/no-message"]++
		return false
	}
	m := l.Message
	st := p.st
	if m.Model != "" && m.Model != "<synthetic>" {
		p.src.Model = m.Model
	}
	if m.Usage != nil && m.ID != "" {
		// Every line of a split message repeats its usage: the last counts.
		st.setUsage(m.ID, engine.Spend{InputTokens: m.Usage.Input + m.Usage.CacheCreation + m.Usage.CacheRead, OutputTokens: m.Usage.Output})
	}
	text, blocks, ok := contentOf(m.Content)
	if !ok {
		p.stats.Skipped["assistant/unreadable-content"]++
		return false
	}
	if blocks == nil && text != "" {
		blocks = []ccBlock{{Type: "text", Text: text}}
	}
	var out []engine.ImportItem
	for _, b := range blocks {
		switch b.Type {
		case "text":
			out = append(out, engine.ImportItem{Type: engine.Assistant, Text: b.Text})
		case "thinking":
			out = append(out, engine.ImportItem{Type: engine.Reasoning, Text: b.Thinking})
		case "redacted_thinking":
			out = append(out, engine.ImportItem{Type: engine.Reasoning, Text: "[redacted thinking]"})
		case "tool_use", "server_tool_use":
			out = append(out, engine.ImportItem{Type: engine.ToolCall, Tool: b.Name, Text: string(b.Input), CallID: b.ID})
		case "image":
			it := engine.ImportItem{Type: engine.Assistant}
			if a, ok := p.image(b.Source, 1); ok {
				it.Attachments = []engine.Attachment{a}
			} else {
				it.Text = "[image]"
			}
			out = append(out, it)
		default:
			out = append(out, engine.ImportItem{Type: engine.Assistant, Text: "[" + b.Type + "]"})
		}
	}
	if len(out) == 0 {
		p.stats.Skipped["assistant/empty"]++
		return false
	}
	// A line that goes on the message the line before began, with one text
	// or thinking block of the same kind, joins that item (one this read
	// made: an item already brought in stays as it is).
	if len(out) == 1 && m.ID != "" && m.ID == st.MsgID && parent == st.MsgKey && out[0].Type != engine.ToolCall && out[0].Attachments == nil {
		if i, ok := p.byKey[st.MsgKey]; ok && p.src.Items[i].Type == out[0].Type {
			p.src.Items[i].Text += out[0].Text
			p.stats.Merged++
			st.setTip(l.UUID, st.MsgKey)
			return false
		}
	}
	keys := p.chain(l, parent, off, out)
	for i, b := range blocks {
		if b.Type == "tool_use" || b.Type == "server_tool_use" {
			st.Calls[b.ID] = keys[i]
		}
	}
	st.Group.join(m.ID, keys)
	st.MsgID, st.MsgKey = m.ID, keys[len(keys)-1]
	return true
}

// contentOf is a message's content: a string, or a list of blocks (by its
// first byte, so it is decoded once); false when it is neither.
func contentOf(raw json.RawMessage) (string, []ccBlock, bool) {
	t := bytes.TrimLeft(raw, " \t\r\n")
	if len(t) == 0 {
		return "", nil, false
	}
	switch t[0] {
	case '"':
		var s string
		return s, nil, json.Unmarshal(t, &s) == nil
	case '[':
		var blocks []ccBlock
		if json.Unmarshal(t, &blocks) != nil {
			return "", nil, false
		}
		return "", blocks, true
	}
	return "", nil, false
}

// resultContent is a tool result's content: its text (a string, or its
// text blocks joined, other blocks named in brackets) and its images.
func (p *ccParse) resultContent(raw json.RawMessage, isErr bool) (string, []engine.Attachment) {
	s, blocks, ok := contentOf(raw)
	var atts []engine.Attachment
	if blocks != nil || !ok {
		if ok {
			var parts []string
			for _, b := range blocks {
				switch b.Type {
				case "text":
					parts = append(parts, b.Text)
				case "image":
					if a, ok := p.image(b.Source, len(atts)+1); ok {
						atts = append(atts, a)
						continue
					}
					parts = append(parts, "[image]")
				default:
					parts = append(parts, "["+b.Type+"]")
				}
			}
			s = strings.Join(parts, "\n")
		} else if len(raw) > 0 {
			s = string(raw)
		}
	}
	if isErr {
		s = "[error] " + s
	}
	return s, atts
}

// subagent reads a sub-agent transcript of the session p parsed (file
// path: <session>/subagents/agent-<id>.jsonl, or agent-<id>.jsonl beside
// the session in older versions) as a task of the Task call it ran for;
// ok is false when no call of the session names it (an automatic
// compaction's agent, or a file whose call is not in the session).
func (p *ccParse) subagent(r io.Reader, path string) (t engine.ImportTask, st Stats, ok bool, err error) {
	agent := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(path), "agent-"), ".jsonl")
	sub, err := parseClaudeCode(r, path, nil, -1)
	if err != nil {
		return t, sub.stats, false, err
	}
	call := p.taskCall(agent, sub)
	if call == "" {
		return t, sub.stats, false, nil
	}
	t = engine.ImportTask{ID: "agent-" + strings.ToLower(agent), CallKey: call, Items: sub.src.Items, At: sub.src.Created}
	if i, ok := p.byKey[call]; ok {
		var in struct {
			Description string `json:"description"`
		}
		json.Unmarshal([]byte(p.src.Items[i].Text), &in)
		t.Label = in.Description
	}
	return t, sub.stats, true, nil
}

// taskCall is the key of the Task call of the session that ran sub-agent
// agent (its transcript sub): the call its progress or result names, else
// (older versions name neither) the Task call whose prompt is the
// sub-agent's first prompt, when exactly one of the calls not yet taken
// has it.
func (p *ccParse) taskCall(agent string, sub *ccParse) string {
	if id := p.st.Agents[agent]; id != "" {
		if k := p.callKeys()[id]; k != "" {
			return k
		}
	}
	first := ""
	for _, it := range sub.src.Items {
		if it.Type == engine.User {
			first = strings.TrimSpace(it.Text)
			break
		}
	}
	if first == "" {
		return ""
	}
	found := ""
	for _, it := range p.src.Items {
		if it.Type != engine.ToolCall || (it.Tool != "Task" && it.Tool != "Agent") || p.taken[it.Key] {
			continue
		}
		var in struct {
			Prompt string `json:"prompt"`
		}
		if json.Unmarshal([]byte(it.Text), &in) == nil && strings.TrimSpace(in.Prompt) == first {
			if found != "" {
				return "" // two calls with that prompt: no telling which
			}
			found = it.Key
		}
	}
	if found != "" {
		if p.taken == nil {
			p.taken = map[string]bool{}
		}
		p.taken[found] = true
	}
	return found
}

// callKeys maps each tool call's id to its item's key, over the items
// this read made.
func (p *ccParse) callKeys() map[string]string {
	if p.calls == nil {
		p.calls = map[string]string{}
		for _, it := range p.src.Items {
			if it.Type == engine.ToolCall && it.CallID != "" {
				p.calls[it.CallID] = it.Key
			}
		}
	}
	return p.calls
}
