package importer

import (
	"encoding/base64"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	json "github.com/segmentio/encoding/json"

	"cairn/engine"
	"cairn/internal/lazyre"
)

// AgentCodex is Codex's name in an import's meta.
const AgentCodex = "codex"

// Codex keeps a session as a rollout file,
// ~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl (or .jsonl.zst):
// one {"timestamp","type","payload"} object a line, in order, no tree.
// "session_meta" names the session and its cwd; "response_item" lines are
// what the model saw and said (messages, reasoning, function and custom tool
// calls and their outputs, paired by call_id); "event_msg" lines are the
// UI's events, most of them echoes of response items; "turn_context" names
// the model; "compacted" is a summary that replaced what came before.

type cxLine struct {
	Timestamp time.Time       `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

type cxPayload struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Cwd       string          `json:"cwd"`
	Timestamp time.Time       `json:"timestamp"`
	Model     string          `json:"model"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Summary   json.RawMessage `json:"summary"` // reasoning: [{text}]; turn_context: a mode
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Input     string          `json:"input"`
	CallID    string          `json:"call_id"`
	Output    json.RawMessage `json:"output"`
	Action    json.RawMessage `json:"action"`
	Message   string          `json:"message"`
	Info      *struct {
		Total *struct {
			Input  int64 `json:"input_tokens"`
			Output int64 `json:"output_tokens"`
		} `json:"total_token_usage"`
	} `json:"info"`
}

// Rollouts written before session_meta existed (Codex CLI of mid 2025)
// have no envelope: a first line {"id","timestamp","instructions"}, then
// {"record_type":"state"} markers and the response items themselves
// ({"type":"message",...}). Their working directory is only in the
// <environment_context> message Codex sends at the start ("<cwd>DIR</cwd>").

// cxState is what a Codex read carries from one line to the next, and, in
// a State, to the next read of the same file.
type cxState struct {
	Last  string            `json:"last,omitempty"`  // the key of the last item: the next one's parent
	Calls map[string]string `json:"calls,omitempty"` // call_id -> the tool_call item's key
	Spend engine.Spend      `json:"spend"`           // the last token_count's running total
	// Legacy: the file is of the format before session_meta.
	Legacy bool `json:"legacy,omitempty"`
}

type cxParse struct {
	src   engine.ImportSource
	stats Stats
	st    *cxState
}

var rolloutIDRE = lazyre.New(`([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl(\.zst)?$`)

// Codex parses a Codex rollout (decompressed). The session id is
// session_meta's (else the uuid in the file's name), its directory
// session_meta's cwd (else the first turn_context's).
func Codex(r io.Reader, path string) (*engine.ImportSource, Stats, error) {
	p, err := parseCodex(r, path, nil, -1)
	if err != nil {
		return nil, p.stats, err
	}
	return &p.src, p.stats, nil
}

// parseCodex reads r, the rollout path from the offset from says (from its
// start when from is nil), up to the line that starts at limit (to the
// end when limit < 0).
func parseCodex(r io.Reader, path string, from *State, limit int64) (*cxParse, error) {
	p := &cxParse{stats: newStats(), st: &cxState{Calls: map[string]string{}}}
	p.src.Agent, p.src.Path = AgentCodex, path
	var base int64
	if from != nil {
		p.st, base = from.CX, from.Offset
		from.into(&p.src)
	}
	read, torn, err := eachLine(r, base, limit, p.line)
	if err != nil {
		return p, fmt.Errorf("read %s: %w", path, err)
	}
	p.src.Offset, p.stats.Torn = read, torn
	p.src.Spend = p.st.Spend
	if p.src.SourceID == "" {
		if m := rolloutIDRE.FindStringSubmatch(filepath.Base(path)); m != nil {
			p.src.SourceID = m[1]
		} else {
			p.src.SourceID = strings.TrimSuffix(strings.TrimSuffix(filepath.Base(path), ".zst"), ".jsonl")
		}
	}
	if p.src.Dir == "" && p.st.Legacy && len(p.src.Items) > 0 {
		return p, fmt.Errorf("%s: a Codex rollout from before session_meta (mid 2025) that names no working directory: cairn cannot tell which directory's session it is", filepath.Base(path))
	}
	return p, nil
}

func (p *cxParse) add(it engine.ImportItem) {
	it.ParentKey = p.st.Last
	p.src.Items = append(p.src.Items, it)
	p.stats.Items[string(it.Type)]++
	p.st.Last = it.Key
}

func (p *cxParse) line(b []byte, off int64) {
	var l cxLine
	var pl cxPayload
	if json.Unmarshal(b, &l) != nil || json.Unmarshal(l.Payload, &pl) != nil && len(l.Payload) > 0 {
		p.stats.Skipped["invalid"]++
		return
	}
	if l.Payload == nil && p.legacy(b, off, &l, &pl) {
		return
	}
	kind := orNone(l.Type)
	p.stats.Lines[kind]++
	if p.src.Created.IsZero() && !l.Timestamp.IsZero() {
		p.src.Created = l.Timestamp
	}
	key := fmt.Sprintf("o%d", off)
	it := engine.ImportItem{Key: key, At: l.Timestamp, Off: off}
	switch l.Type {
	case "session_meta":
		if pl.ID != "" {
			p.src.SourceID = pl.ID
		}
		if pl.Cwd != "" {
			p.src.Dir = pl.Cwd
		}
		if !pl.Timestamp.IsZero() {
			p.src.Created = pl.Timestamp
		}
		p.stats.Skipped["session_meta"]++
		return
	case "turn_context":
		if pl.Model != "" {
			p.src.Model = pl.Model
		}
		if p.src.Dir == "" {
			p.src.Dir = pl.Cwd
		}
		p.stats.Skipped["turn_context"]++
		return
	case "compacted":
		it.Type, it.Text = engine.Compaction, pl.Message
		if p.st.Last != "" {
			// From the first item of the path to the last.
			it.ReplacesKeys = []string{"", p.st.Last}
		}
	case "event_msg":
		if pl.Type == "token_count" && pl.Info != nil && pl.Info.Total != nil {
			// A running total: the last one is the session's.
			p.st.Spend = engine.Spend{InputTokens: pl.Info.Total.Input, OutputTokens: pl.Info.Total.Output}
		}
		// The UI's own record of what response items already hold.
		p.stats.Skipped["event_msg/"+orNone(pl.Type)]++
		return
	case "response_item":
		if !p.response(&pl, &it) {
			p.stats.Skipped["response_item/"+orNone(pl.Type)]++
			return
		}
	default:
		p.stats.Skipped[kind]++
		return
	}
	p.add(it)
	p.stats.Made[kind]++
}

// legacy reads a line of a rollout from before session_meta (see above):
// its header, a state marker, or a bare response item; false for a line
// of no such shape.
func (p *cxParse) legacy(b []byte, off int64, l *cxLine, pl *cxPayload) bool {
	var h struct {
		ID         string    `json:"id"`
		Timestamp  time.Time `json:"timestamp"`
		RecordType string    `json:"record_type"`
	}
	json.Unmarshal(b, &h)
	switch {
	case h.RecordType != "":
		p.st.Legacy = true
		p.stats.Lines["(none)"]++
		p.stats.Skipped["record_type/"+h.RecordType]++
		return true
	case l.Type == "" && h.ID != "":
		p.st.Legacy = true
		p.src.SourceID = h.ID
		if !h.Timestamp.IsZero() {
			p.src.Created = h.Timestamp
		}
		p.stats.Lines["(none)"]++
		p.stats.Skipped["header"]++
		return true
	}
	switch l.Type {
	case "message", "reasoning", "function_call", "function_call_output", "custom_tool_call", "custom_tool_call_output", "local_shell_call", "web_search_call":
	default:
		return false
	}
	if json.Unmarshal(b, pl) != nil {
		return false
	}
	p.st.Legacy = true
	p.stats.Lines[l.Type]++
	it := engine.ImportItem{Key: fmt.Sprintf("o%d", off), At: p.src.Created, Off: off}
	if !p.response(pl, &it) {
		p.stats.Skipped[l.Type+"/"+orNone(pl.Role)]++
		return true
	}
	p.add(it)
	p.stats.Made[l.Type]++
	return true
}

// response fills it from a response item; false leaves the line out.
func (p *cxParse) response(pl *cxPayload, it *engine.ImportItem) bool {
	switch pl.Type {
	case "message":
		text, atts := contentText(pl.Content)
		switch {
		case pl.Role == "user" && isContext(text):
			if m := cwdRE.FindStringSubmatch(text); m != nil && p.src.Dir == "" {
				p.src.Dir = strings.TrimSpace(m[1])
			}
			return false // the environment and instructions every turn repeats
		case pl.Role == "user":
			it.Type = engine.User
		case pl.Role == "assistant":
			it.Type = engine.Assistant
		default:
			return false // developer and system messages
		}
		it.Text, it.Attachments = text, atts
	case "reasoning":
		var summary []struct {
			Text string `json:"text"`
		}
		json.Unmarshal(pl.Summary, &summary)
		var parts []string
		for _, s := range summary {
			parts = append(parts, s.Text)
		}
		if len(parts) == 0 {
			return false // encrypted only
		}
		it.Type, it.Text = engine.Reasoning, strings.Join(parts, "\n")
	case "function_call", "custom_tool_call", "local_shell_call", "web_search_call":
		it.Type, it.Tool, it.CallID = engine.ToolCall, pl.Name, pl.CallID
		switch pl.Type {
		case "function_call":
			it.Text = pl.Arguments
		case "custom_tool_call":
			it.Text = pl.Input
		case "local_shell_call":
			it.Tool, it.Text = "shell", string(pl.Action)
		case "web_search_call":
			it.Tool, it.Text = "web_search", string(pl.Action)
		}
		if pl.CallID != "" {
			p.st.Calls[pl.CallID] = it.Key
		}
	case "function_call_output", "custom_tool_call_output":
		it.Type, it.CallKey = engine.ToolResult, p.st.Calls[pl.CallID]
		delete(p.st.Calls, pl.CallID)
		it.Text = outputText(pl.Output)
	default:
		return false
	}
	return true
}

// cwdRE finds the working directory in an <environment_context> message.
var cwdRE = lazyre.New(`<cwd>([^<]*)</cwd>`)

// contentText joins a message's text parts (input_text, output_text, text);
// an image given by its bytes (a data: URL) is an attachment, any other is
// named in brackets.
func contentText(raw json.RawMessage) (string, []engine.Attachment) {
	var parts []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		ImageURL string `json:"image_url"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		var s string
		json.Unmarshal(raw, &s)
		return s, nil
	}
	var out []string
	var atts []engine.Attachment
	for _, c := range parts {
		switch {
		case c.Text != "":
			out = append(out, c.Text)
		case strings.Contains(c.Type, "image"):
			if a, ok := dataURLImage(c.ImageURL, len(atts)+1); ok {
				atts = append(atts, a)
			} else {
				out = append(out, "[image]")
			}
		}
	}
	return strings.Join(out, "\n"), atts
}

// dataURLImage is the image a data: URL holds, as the n-th attachment.
func dataURLImage(u string, n int) (engine.Attachment, bool) {
	rest, ok := strings.CutPrefix(u, "data:")
	if !ok {
		return engine.Attachment{}, false
	}
	head, data, ok := strings.Cut(rest, ",")
	mediaType, enc, _ := strings.Cut(head, ";")
	if !ok || enc != "base64" {
		return engine.Attachment{}, false
	}
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return engine.Attachment{}, false
	}
	return imageAttachment(b, mediaType, n), true
}

func isContext(s string) bool {
	s = strings.TrimSpace(s)
	for _, p := range []string{"<environment_context>", "<user_instructions>", "# AGENTS.md instructions", "<permissions instructions>"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// outputText is a tool output's text: a string, or the "output" field of
// an object (custom tools wrap theirs so, and often as a string of JSON).
func outputText(raw json.RawMessage) string {
	var o struct {
		Output *string `json:"output"`
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		if json.Unmarshal(raw, &o) == nil && o.Output != nil {
			return *o.Output
		}
		return string(raw)
	}
	if strings.HasPrefix(s, "{") && json.Unmarshal([]byte(s), &o) == nil && o.Output != nil {
		return *o.Output
	}
	return s
}
