package importer

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

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

type ccLine struct {
	Type              string          `json:"type"`
	UUID              string          `json:"uuid"`
	ParentUUID        *string         `json:"parentUuid"`
	LogicalParentUUID string          `json:"logicalParentUuid"`
	SessionID         string          `json:"sessionId"`
	Cwd               string          `json:"cwd"`
	Timestamp         time.Time       `json:"timestamp"`
	IsMeta            bool            `json:"isMeta"`
	IsCompactSummary  bool            `json:"isCompactSummary"`
	PromptID          string          `json:"promptId"` // the prompt's id, as the hooks' prompt_id names it
	Subtype           string          `json:"subtype"`
	Summary           string          `json:"summary"`
	CustomTitle       string          `json:"customTitle"`
	AITitle           string          `json:"aiTitle"`
	Message           json.RawMessage `json:"message"`
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
}

// ccParse is the state of one Claude Code file's parse.
type ccParse struct {
	src   engine.ImportSource
	stats Stats
	// tip maps a line's uuid to the key of the item a child of that line
	// hangs under: its own last item, or, for a line that made none, its
	// parent's (so the tree closes over progress lines and the like).
	tip map[string]string
	// calls maps a tool_use id to its tool_call item's key.
	calls map[string]string
	// byKey finds an item by key, to merge a split message into it and to
	// walk a path back to its root.
	byKey map[string]int
	// msg is the message id and key of the last assistant item made, for
	// merging the next line of the same message.
	msgID, msgKey string
	usage         map[string]engine.Spend
	titles        struct{ custom, summary, ai string }
	// agents maps a sub-agent's id to the tool_use id of the call it ran for.
	agents map[string]string
}

// ClaudeCode parses a Claude Code session file. The session id is the
// lines' sessionId (else the file's name), its directory the first cwd.
func ClaudeCode(r io.Reader, path string) (*engine.ImportSource, Stats, error) {
	p, err := parseClaudeCode(r, path)
	return &p.src, p.stats, err
}

func parseClaudeCode(r io.Reader, path string) (*ccParse, error) {
	p := &ccParse{stats: newStats(), tip: map[string]string{}, calls: map[string]string{}, byKey: map[string]int{},
		usage: map[string]engine.Spend{}, agents: map[string]string{}}
	p.src.Agent, p.src.Path = AgentClaudeCode, path
	read, torn, err := eachLine(r, p.line)
	if err != nil {
		return p, fmt.Errorf("read %s: %w", path, err)
	}
	p.src.Offset, p.stats.Torn = read, torn
	if p.src.SourceID == "" {
		p.src.SourceID = strings.TrimSuffix(filepath.Base(path), ".jsonl")
	}
	for _, u := range p.usage {
		p.src.Spend.InputTokens += u.InputTokens
		p.src.Spend.OutputTokens += u.OutputTokens
	}
	switch {
	case p.titles.custom != "":
		p.src.Title = p.titles.custom
	case p.titles.summary != "":
		p.src.Title = p.titles.summary
	case p.titles.ai != "":
		p.src.Title = p.titles.ai
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
	if l.Type == "progress" && l.ParentToolUseID != "" {
		var d struct {
			Type    string `json:"type"`
			AgentID string `json:"agentId"`
		}
		if json.Unmarshal(l.Data, &d) == nil && d.Type == "agent_progress" && d.AgentID != "" {
			p.agents[d.AgentID] = l.ParentToolUseID
		}
	}
	parent := ""
	if l.ParentUUID != nil {
		parent = p.tip[*l.ParentUUID]
	}
	made := false
	switch l.Type {
	case "user":
		made = p.user(&l, parent)
	case "assistant":
		made = p.assistant(&l, parent)
	case "system":
		if l.Subtype == "compact_boundary" && l.LogicalParentUUID != "" {
			// The chain after it goes on from the one before.
			parent = p.tip[l.LogicalParentUUID]
		}
		p.stats.Skipped["system/"+orNone(l.Subtype)]++
	case "summary":
		if p.titles.summary == "" {
			p.titles.summary = l.Summary
		}
		p.stats.Skipped["summary"]++
	case "custom-title":
		p.titles.custom = l.CustomTitle
		p.stats.Skipped["custom-title"]++
	case "ai-title":
		p.titles.ai = l.AITitle
		p.stats.Skipped["ai-title"]++
	default:
		p.stats.Skipped[l.Type]++
	}
	if made {
		p.stats.Made[l.Type]++
	} else if l.UUID != "" {
		p.tip[l.UUID] = parent
	}
}

// add appends an item made by line uuid; the line's last item is keyed by
// the uuid itself, earlier ones "<uuid>#<n>".
func (p *ccParse) add(it engine.ImportItem) string {
	p.byKey[it.Key] = len(p.src.Items)
	p.src.Items = append(p.src.Items, it)
	p.stats.Items[string(it.Type)]++
	return it.Key
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func (p *ccParse) user(l *ccLine, parent string) bool {
	var m ccMessage
	if json.Unmarshal(l.Message, &m) != nil {
		p.stats.Skipped["user/no-message"]++
		return false
	}
	if l.IsMeta {
		p.stats.Skipped["user/meta"]++
		return false
	}
	var text string
	var blocks []ccBlock
	if json.Unmarshal(m.Content, &text) != nil {
		if json.Unmarshal(m.Content, &blocks) != nil {
			p.stats.Skipped["user/unreadable-content"]++
			return false
		}
	}
	var out []engine.ImportItem
	var prompt, typed []string // typed: the text parts only, as a hook saw the prompt
	if text != "" {
		prompt, typed = append(prompt, text), append(typed, text)
	}
	for _, b := range blocks {
		switch b.Type {
		case "text":
			prompt, typed = append(prompt, b.Text), append(typed, b.Text)
		case "image":
			prompt = append(prompt, "[image]")
		case "tool_result":
			out = append(out, engine.ImportItem{Type: engine.ToolResult, Text: blockText(b.Content, b.IsError), CallKey: p.calls[b.ToolUseID]})
			var tur struct {
				AgentID string `json:"agentId"`
			}
			if json.Unmarshal(l.ToolUseResult, &tur) == nil && tur.AgentID != "" {
				p.agents[tur.AgentID] = b.ToolUseID
			}
		default:
			prompt = append(prompt, "["+b.Type+"]")
		}
	}
	if len(prompt) > 0 {
		it := engine.ImportItem{Type: engine.User, Text: strings.Join(prompt, "\n"), PromptID: l.PromptID, PromptText: strings.Join(typed, "\n")}
		if l.IsCompactSummary {
			it.PromptID, it.PromptText = "", ""
			it.Type = engine.Compaction
			if first := p.root(parent); first != "" {
				it.ReplacesKeys = []string{first, parent}
			}
		}
		out = append([]engine.ImportItem{it}, out...)
	}
	if len(out) == 0 {
		p.stats.Skipped["user/empty"]++
		return false
	}
	p.chain(l, parent, out)
	p.msgID = ""
	return true
}

// chain adds items made by one line, each under the one before.
func (p *ccParse) chain(l *ccLine, parent string, out []engine.ImportItem) {
	for i := range out {
		out[i].Key = l.UUID
		if i < len(out)-1 || l.UUID == "" {
			out[i].Key = fmt.Sprintf("%s#%d", l.UUID, i)
		}
		out[i].ParentKey, out[i].At = parent, l.Timestamp
		parent = p.add(out[i])
	}
	if l.UUID != "" {
		p.tip[l.UUID] = parent
	}
}

// root is the first item on the path that ends at key.
func (p *ccParse) root(key string) string {
	for n := 0; key != "" && n <= len(p.src.Items); n++ {
		i, ok := p.byKey[key]
		if !ok {
			return ""
		}
		if p.src.Items[i].ParentKey == "" {
			return key
		}
		key = p.src.Items[i].ParentKey
	}
	return ""
}

func (p *ccParse) assistant(l *ccLine, parent string) bool {
	var m ccMessage
	if json.Unmarshal(l.Message, &m) != nil {
		p.stats.Skipped["assistant/no-message"]++
		return false
	}
	if m.Model != "" && m.Model != "<synthetic>" {
		p.src.Model = m.Model
	}
	if m.Usage != nil && m.ID != "" {
		// Every line of a split message repeats its usage: the last counts.
		p.usage[m.ID] = engine.Spend{InputTokens: m.Usage.Input + m.Usage.CacheCreation + m.Usage.CacheRead, OutputTokens: m.Usage.Output}
	}
	var text string
	var blocks []ccBlock
	if json.Unmarshal(m.Content, &text) == nil {
		blocks = []ccBlock{{Type: "text", Text: text}}
	} else if json.Unmarshal(m.Content, &blocks) != nil {
		p.stats.Skipped["assistant/unreadable-content"]++
		return false
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
			out = append(out, engine.ImportItem{Type: engine.ToolCall, Tool: b.Name, Text: string(b.Input)})
		default:
			out = append(out, engine.ImportItem{Type: engine.Assistant, Text: "[" + b.Type + "]"})
		}
	}
	if len(out) == 0 {
		p.stats.Skipped["assistant/empty"]++
		return false
	}
	// A line that goes on the message the line before began, with one text
	// or thinking block of the same kind, joins that item.
	if len(out) == 1 && m.ID != "" && m.ID == p.msgID && parent == p.msgKey && out[0].Type != engine.ToolCall {
		if i, ok := p.byKey[p.msgKey]; ok && p.src.Items[i].Type == out[0].Type {
			p.src.Items[i].Text += out[0].Text
			p.stats.Merged++
			p.tip[l.UUID] = p.msgKey
			return false
		}
	}
	p.chain(l, parent, out)
	for i, b := range blocks {
		if b.Type == "tool_use" || b.Type == "server_tool_use" {
			k := l.UUID
			if i < len(blocks)-1 {
				k = fmt.Sprintf("%s#%d", l.UUID, i)
			}
			p.calls[b.ID] = k
		}
	}
	p.msgID, p.msgKey = m.ID, p.tip[l.UUID]
	return true
}

// blockText is a tool result's content as text: a string, or its text
// blocks joined (other blocks named in brackets).
func blockText(raw json.RawMessage, isErr bool) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		var blocks []ccBlock
		if json.Unmarshal(raw, &blocks) == nil {
			var parts []string
			for _, b := range blocks {
				if b.Type == "text" {
					parts = append(parts, b.Text)
				} else {
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
	return s
}

// Subagent reads a sub-agent transcript of the session p parsed
// (<session>/subagents/agent-<id>.jsonl) as a task of the Task call it ran
// for; ok is false when no call of the session names it (an automatic
// compaction's agent, or a file whose call is not in the session).
func (p *ccParse) subagent(r io.Reader, path string) (t engine.ImportTask, st Stats, ok bool, err error) {
	agent := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(path), "agent-"), ".jsonl")
	sub, err := parseClaudeCode(r, path)
	if err != nil {
		return t, sub.stats, false, err
	}
	call := p.calls[p.agents[agent]]
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
