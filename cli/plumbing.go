package cli

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"cairn/cli/cmdbase"
	"cairn/cli/display"
	"cairn/engine"
	"cairn/internal/jsonw"
	"cairn/internal/timefmt"
)

// PromptCmd appends a user prompt.
type PromptCmd struct {
	Session string   `name:"session" placeholder:"S" help:"Session to append to (id, prefix or title)."`
	New     bool     `name:"new" help:"Start a new session."`
	Attach  []string `name:"attach" placeholder:"FILE" help:"Attach FILE to the prompt (repeatable); its bytes are kept with the session."`
	Text    string   `arg:"" help:"The prompt ('-' reads stdin)."`
}

// itemAnswer is what prompt and append print.
type itemAnswer struct {
	Session string `json:"session"`
	Item    string `json:"item"`
	Task    string `json:"task,omitempty"` // the task a task call started, or whose transcript took the item
}

func (c *PromptCmd) Run(g *Globals) error {
	if c.New && c.Session != "" {
		return usageErrorf("--new and --session cannot be used together")
	}
	text, err := argText(g, c.Text)
	if err != nil {
		return err
	}
	if strings.TrimSpace(text) == "" {
		// The REPL sends nothing for a blank line; a script's empty
		// variable must not start or extend a session with nothing in it.
		return usageErrorf("a prompt cannot be empty")
	}
	ws, err := g.workspace()
	if err != nil {
		return err
	}
	for _, f := range c.Attach {
		if _, err := checkAttach(ws.Store(), f); err != nil {
			return err
		}
	}
	if g.SSH != "" {
		return c.onHost(g, ws, text) // remote_plumbing.go
	}
	var s *engine.Session
	id := ""
	switch {
	case c.New:
		s = ws.Create(g.SessionOptions())
	case c.Session != "":
		if ws, id, err = g.resolveSession(c.Session); err != nil {
			return err
		}
		s, err = ws.Open(g.Ctx, id, g.SessionOptions())
	default:
		if id, err = ws.Latest(g.Ctx); err == nil {
			s, err = ws.Open(g.Ctx, id, g.SessionOptions())
		} else {
			s, err = ws.Create(g.SessionOptions()), nil
		}
	}
	if b := refusedBound(err); b != nil {
		// The conversation is kept here, its files on the host: the
		// prompt is appended here once the host is checked.
		return c.append(g, ws, text, id, b)
	}
	if err != nil {
		return err
	}
	defer s.Close()
	it, err := c.appendTo(g, ws, s, text)
	if err != nil {
		return err
	}
	return g.answerItem(s.ID(), it.ID)
}

// appendTo appends the prompt to s and closes it, durable.
func (c *PromptCmd) appendTo(g *Globals, ws *engine.Workspace, s *engine.Session, text string) (*engine.Item, error) {
	atts, err := attachFiles(g, ws, c.Attach)
	if err != nil {
		return nil, err
	}
	it, err := s.Append(g.Ctx, engine.Item{Type: engine.User, Text: text, Attachments: atts})
	if err != nil {
		return nil, err
	}
	if err := s.Commit(g.Ctx); err != nil {
		return nil, err
	}
	if err := s.Close(); err != nil {
		return nil, err
	}
	g.Store.AddHistory(text, ws.Path())
	return &it, nil
}

func (g *Globals) answerItem(session, item string) error {
	if g.JSON {
		return g.PrintJSON(itemAnswer{Session: session, Item: item})
	}
	fmt.Fprintf(g.Stdout, "%s %s\n", session, item)
	return nil
}

// AppendCmd appends an item of another type.
type AppendCmd struct {
	Session    string   `name:"session" required:"" placeholder:"S" help:"Session to append to."`
	Type       string   `name:"type" required:"" enum:"user,assistant,reasoning,tool_call,tool_result,report" help:"Item type: assistant, reasoning, tool_call or tool_result (and user, in a task's transcript); report: task --task's report_to_parent, kept in the session's conversation."`
	Parent     string   `name:"parent" placeholder:"ITEM" help:"Parent item, an id or N for the Nth item of the head path (default: the head)."`
	Tool       string   `name:"tool" help:"Tool name of a tool_call (required for one)."`
	Call       string   `name:"call" placeholder:"ITEM" help:"The tool_call a tool_result answers, an id or N (required for a tool_result)."`
	Task       string   `name:"task" placeholder:"ID" help:"With --type tool_call --tool task: the settled task to continue. Otherwise: append to task ID's transcript (its items by id)."`
	Background bool     `name:"background" help:"With --type tool_call --tool task: the task runs in the background (cairn tasks marks it bg)."`
	Output     []string `name:"output" placeholder:"ID" help:"A tool output of the session (as output put printed it) this item refers to; repeatable. A fork keeps it readable."`
	Title      string   `name:"title" help:"With --type report: a one-line title of at most 80 characters (default: the message's first non-empty line, cut to 80)."`
	Blocked    bool     `name:"blocked" help:"With --type report: the task cannot go on without something (the message says what); it ends, blocked."`
	Text       string   `arg:"" help:"The text ('-' reads stdin)."`
}

// check refuses flags that do not fit the item's type, before anything is
// read or opened.
func (c *AppendCmd) check() error {
	switch {
	case c.Type == "tool_result" && c.Call == "":
		return usageErrorf("a tool_result needs --call ITEM: the tool_call it answers")
	case c.Type != "tool_result" && c.Call != "":
		return usageErrorf("--call is for a tool_result only")
	case c.Type == "tool_call" && strings.TrimSpace(c.Tool) == "":
		return usageErrorf("a tool_call needs --tool NAME")
	case c.Type != "tool_call" && c.Tool != "":
		return usageErrorf("--tool is for a tool_call only")
	case c.Background && !(c.Type == "tool_call" && c.Tool == engine.TaskTool):
		return usageErrorf("--background is for a task call only (--type tool_call --tool task)")
	case c.Type == "tool_call" && c.Tool == engine.TaskTool && len(c.Output) > 0:
		return usageErrorf("--output is not for a task call: name the outputs on the items of its transcript or its result")
	case c.Type == "report" && c.Task == "":
		return usageErrorf("a report needs --task ID: the task reporting to its parent")
	case c.Type == "report" && (c.Parent != "" || len(c.Output) > 0):
		return usageErrorf("--parent and --output are not for a report")
	case c.Type != "report" && (c.Title != "" || c.Blocked):
		return usageErrorf("--title and --blocked are for a report only (--type report)")
	case c.Type == "user" && c.Task == "":
		return usageErrorf("a user prompt is appended with cairn prompt (--type user is for a task's transcript, with --task ID)")
	}
	return nil
}

func (c *AppendCmd) Run(g *Globals) error {
	if err := c.check(); err != nil {
		return err
	}
	text, err := argText(g, c.Text)
	if err != nil {
		return err
	}
	ws, s, err := g.openSession(c.Session)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := checkOutputs(g, ws, s.ID(), c.Output); err != nil {
		return err
	}
	if c.Type == "report" {
		return appendReport(g, s, c, text) // tasks.go
	}
	if c.Task != "" && !(c.Type == "tool_call" && c.Tool == engine.TaskTool) {
		return appendToTask(g, s, c, text) // tasks.go
	}
	// ITEM flags take an id or N, and must name an item of the session.
	path, all := s.Transcript(), map[string]bool{}
	for _, it := range s.AllItems() {
		all[it.ID] = true
	}
	item := func(flag, arg string) (string, error) {
		if arg == "" {
			return "", nil
		}
		id, err := itemArg(path, arg)
		if err == nil && !all[id] {
			err = notFoundf("--%s: no item %q in session %s", flag, arg, s.ID())
		}
		return id, err
	}
	parent, err := item("parent", c.Parent)
	if err != nil {
		return err
	}
	call, err := item("call", c.Call)
	if err != nil {
		return err
	}
	if c.Type == "tool_call" && c.Tool == engine.TaskTool {
		return startTask(g, s, c, parent, text) // tasks.go
	}
	it, err := s.Append(g.Ctx, engine.Item{Type: engine.ItemType(c.Type), Parent: parent, Text: text, Tool: c.Tool, Call: call, Outputs: c.Output})
	if err != nil {
		return err
	}
	if err := s.Close(); err != nil {
		return err
	}
	return g.answerItem(s.ID(), it.ID)
}

// checkOutputs refuses an --output that is not one of the session's tool
// outputs: an item names only outputs a fork can copy and a reader find.
// One the session does not hold is not found (exit 1), as cairn output
// says of it; one no output could have as its id is bad usage (exit 2).
func checkOutputs(g *Globals, ws *engine.Workspace, session string, outs []string) error {
	for _, o := range outs {
		rc, err := ws.ReadOutput(g.Ctx, session, o)
		if errors.Is(err, engine.ErrNotFound) {
			return notFoundf("--output %s: no such tool output in session %s", display.Text(o), session)
		}
		if errors.Is(err, engine.ErrBadInput) {
			return usageErrorf("--output %s: not a tool output id", display.Text(o))
		}
		if err != nil {
			return err
		}
		rc.Close()
	}
	return nil
}

func argText(g *Globals, t string) (string, error) {
	if t != "-" {
		return t, nil
	}
	b, err := io.ReadAll(g.input())
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(string(b), "\n"), nil
}

// SessionsCmd lists sessions.
type SessionsCmd struct {
	All          bool   `name:"all" help:"Every directory, not only this one."`
	AllCheckouts bool   `name:"all-checkouts" help:"This directory's sessions, then those of the repository's other checkouts (git worktrees), one section per checkout."`
	Remote       string `name:"remote" placeholder:"NAME" help:"List a remote's sessions (as its log says; no payload is downloaded)."`
}

// writeSessionsJSON prints the listing as one JSON array of sessionRow
// objects, field for field, without reflection: at 100,000 sessions
// encoding/json's reflection would cost more than reading the index.
func writeSessionsJSON(w io.Writer, sums []engine.Summary) error {
	sw := newSessionsJSON(w)
	for _, e := range sums {
		if err := sw.row(e); err != nil {
			return err
		}
	}
	return sw.end()
}

// sessionsJSON writes the array of writeSessionsJSON a row at a time, so a
// listing can be printed as the engine hands it over.
type sessionsJSON struct {
	bw *bufio.Writer
	b  []byte
	n  int
}

func newSessionsJSON(w io.Writer) *sessionsJSON {
	sw := &sessionsJSON{bw: bufio.NewWriterSize(w, 64<<10), b: make([]byte, 0, 512)}
	sw.bw.WriteByte('[')
	return sw
}

func (sw *sessionsJSON) row(e engine.Summary) error {
	b := sw.b[:0]
	if sw.n > 0 {
		b = append(b, ',')
	}
	sw.n++
	b = append(b, `{"id":`...)
	b = jsonw.String(b, e.ID)
	b = append(b, `,"title":`...)
	b = jsonw.String(b, e.Title)
	b = append(b, `,"created_at":`...)
	b = jsonw.Time(b, e.CreatedAt)
	b = append(b, `,"updated_at":`...)
	b = jsonw.Time(b, e.UpdatedAt)
	b = append(b, `,"items":`...)
	b = jsonw.Int(b, int64(e.Items))
	b = append(b, `,"tier":`...)
	b = jsonw.String(b, e.Tier)
	b = append(b, `,"pinned":`...)
	b = jsonw.Bool(b, e.Pinned)
	b = append(b, `,"fork_of":`...)
	if e.ForkOf == "" {
		b = append(b, "null"...)
	} else {
		b = jsonw.String(b, e.ForkOf)
	}
	b = append(b, `,"path":`...)
	b = jsonw.String(b, e.Path)
	b = append(b, `,"branch":`...)
	b = jsonw.String(b, e.Branch)
	b = append(b, `,"remote":`...)
	if e.Remote == "" {
		b = append(b, "null"...)
	} else {
		b = jsonw.String(b, e.Remote)
	}
	b = append(b, `,"owner_pid":`...)
	if e.OwnerPID == 0 {
		b = append(b, "null"...)
	} else {
		b = jsonw.Int(b, int64(e.OwnerPID))
	}
	b = append(b, '}')
	sw.b = b
	_, err := sw.bw.Write(b)
	return err
}

func (sw *sessionsJSON) end() error {
	sw.bw.WriteString("]\n")
	return sw.bw.Flush()
}

// toRow is a session as `cairn sessions` shows it.
func toRow(e engine.Summary) sessionRow {
	r := sessionRow{ID: e.ID, Title: e.Title, CreatedAt: fmtTime(e.CreatedAt), UpdatedAt: fmtTime(e.UpdatedAt),
		Items: e.Items, Tier: e.Tier, Pinned: e.Pinned, Path: e.Path, Branch: e.Branch}
	if e.ForkOf != "" {
		r.ForkOf = &e.ForkOf
	}
	if e.OwnerPID != 0 {
		r.OwnerPID = &e.OwnerPID
	}
	if e.Remote != "" {
		r.Remote = &e.Remote
	}
	return r
}

// sessionRow is one session in `cairn sessions --json`; writeSessionsJSON
// writes the same fields in the same order.
type sessionRow struct {
	ID        string  `json:"id"`
	Title     string  `json:"title"`
	CreatedAt string  `json:"created_at"`
	UpdatedAt string  `json:"updated_at"`
	Items     int     `json:"items"`
	Tier      string  `json:"tier"`
	Pinned    bool    `json:"pinned"`
	ForkOf    *string `json:"fork_of"`
	Path      string  `json:"path"`
	Branch    string  `json:"branch"`
	// Remote is host:path of a session whose files are on a remote
	// workspace (cairn --ssh), null for a local one.
	Remote   *string `json:"remote"`
	OwnerPID *int    `json:"owner_pid"`
}

func (c *SessionsCmd) Run(g *Globals) error {
	if c.Remote != "" {
		return g.remoteSessions(c.Remote)
	}
	if c.AllCheckouts && !c.All {
		return c.runAllCheckouts(g)
	}
	defer cmdbase.BurstGC()()
	var wss []*engine.Workspace
	if c.All {
		s, err := g.Open()
		if err != nil {
			return err
		}
		var skipped []engine.WorkspaceProblem
		if wss, skipped, err = s.Workspaces(); err != nil {
			return err
		}
		for _, p := range skipped {
			fmt.Fprintf(g.Stderr, "cairn: skipped %s (%s): %s\n", p.Name, plural(len(p.Sessions), "session", "sessions"), userError(p.Err))
		}
	} else {
		ws, err := g.workspace()
		if err != nil {
			return err
		}
		wss = []*engine.Workspace{ws}
	}
	var store *engine.Store
	if len(wss) > 0 {
		store = wss[0].Store()
	}
	rows := []sessionRow{}
	if g.JSON && !c.All && len(wss) == 1 {
		// One workspace: printed as the index hands it over, so the
		// listing is held once (see ListEach).
		sw := newSessionsJSON(g.Stdout)
		problems, err := wss[0].ListEach(g.Ctx, sw.row)
		if err != nil {
			return err
		}
		for _, p := range problems {
			fmt.Fprintf(g.Stderr, "cairn: skipped %s: %s\n", display.Line(p.Name), display.Line(userText(p.Err)))
		}
		return sw.end()
	}
	var sums []engine.Summary
	for _, ws := range wss {
		l, problems, err := ws.List(g.Ctx)
		if err != nil {
			return err
		}
		for _, p := range problems {
			fmt.Fprintf(g.Stderr, "cairn: skipped %s: %s\n", display.Line(p.Name), display.Line(userText(p.Err)))
		}
		sums = append(sums, l...)
	}
	if c.All && store != nil {
		store.SortSummaries(sums)
	}
	if g.JSON {
		return writeSessionsJSON(g.Stdout, sums)
	}
	for _, e := range sums {
		rows = append(rows, toRow(e))
	}
	now := time.Now()
	for _, r := range rows {
		owned := ""
		if r.OwnerPID != nil {
			owned = fmt.Sprintf("  [open in pid %d]", *r.OwnerPID)
		}
		if r.Remote != nil {
			owned = "  [on " + display.Line(*r.Remote) + "]" + owned
		}
		t, _ := time.Parse(time.RFC3339, r.UpdatedAt)
		fmt.Fprintf(g.Stdout, "%s  %-8s %4d %-5s  %s%s\n", r.ID, age(now, t), r.Items, itemWord(r.Items), display.Title(r.Title), owned)
	}
	return nil
}

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return timefmt.Format(t)
}

// age is a short human age: 5s, 3m, 2h, 4d, 2025-01-02.
func age(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case t.IsZero():
		return "-"
	case d < 0:
		return "future"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	case d < 60*24*time.Hour:
		return fmt.Sprintf("%dd", int(d.Hours()/24))
	}
	return t.Format("2006-01-02")
}

// ShowCmd prints a session's record.
type ShowCmd struct {
	Session string `arg:"" help:"Session (id, prefix or title)."`
}

func (c *ShowCmd) Run(g *Globals) error {
	ws, id, err := g.resolveSession(c.Session)
	if err != nil {
		return err
	}
	v, err := ws.Read(g.Ctx, id)
	var over *engine.LoadLimitError
	if errors.As(err, &over) {
		// Over the eager-load ceiling: the record without reading the
		// payloads back, and the refusal an open meets.
		v, err = ws.ReadLean(g.Ctx, id)
	}
	if err != nil {
		return err
	}
	type unavailable struct {
		Item string `json:"item"`
		*engine.Unavailable
	}
	out := struct {
		*engine.Record
		OwnerPID *int `json:"owner_pid"`
		// Unavailable lists the items whose text could not be read back.
		Unavailable []unavailable `json:"unavailable,omitempty"`
		// OverCeiling says why the session does not open (its payloads
		// were not read, so none is listed unavailable).
		OverCeiling string `json:"over_ceiling,omitempty"`
	}{Record: v.Record}
	if v.Ceiling != nil {
		out.OverCeiling = v.Ceiling.Error()
	}
	if v.OwnerPID != 0 {
		out.OwnerPID = &v.OwnerPID
	}
	for _, it := range v.Unavailable() {
		out.Unavailable = append(out.Unavailable, unavailable{it.ID, it.Unavailable})
	}
	if g.JSON {
		return g.PrintJSON(out)
	}
	r := v.Record
	title := display.Title(r.Title)
	if r.Title != "" && r.TitleSource != "" {
		title += " (" + display.Line(r.TitleSource) + ")"
	}
	fmt.Fprintf(g.Stdout, "id       %s\ntitle    %s\npath     %s\ncreated  %s\nupdated  %s\nitems    %d\nturns    %d\nbranch   %s\nbuild    %s\n",
		r.ID, title, display.Line(r.Path), fmtTime(r.CreatedAt.Time), fmtTime(r.UpdatedAt.Time),
		r.Counts.Items, r.Counts.Turns, display.Line(r.Branch), display.Line(r.Build))
	if r.Remote != nil {
		fmt.Fprintf(g.Stdout, "remote   %s (identity %s, generation %d)\n", display.Line(r.Remote.String()), r.Remote.Identity, r.Remote.Generation)
	}
	if r.ForkOf != nil {
		fmt.Fprintf(g.Stdout, "fork of  %s at %s (#%d)\n", r.ForkOf.Session, r.ForkOf.Item, r.ForkOf.N)
	}
	if r.Tier == "transcript" || r.Pinned {
		tier := r.Tier
		if r.Pinned {
			tier += ", pinned"
		}
		fmt.Fprintf(g.Stdout, "tier     %s\n", tier) // retention (cli/retention.go)
	}
	if v.OwnerPID != 0 {
		fmt.Fprintf(g.Stdout, "owner    pid %d\n", v.OwnerPID)
	}
	if d, gone, err := v.Draft(g.Ctx); err != nil {
		return err
	} else if t := draftText(d, gone); t != "" {
		fmt.Fprintf(g.Stdout, "draft    %s\n", display.Text(t))
	}
	if r.Draft != nil && len(r.Draft.Attachments) > 0 {
		fmt.Fprintf(g.Stdout, "draft attachments  %d (cairn attachment %s draft N)\n", len(r.Draft.Attachments), r.ID)
	}
	for _, u := range out.Unavailable {
		fmt.Fprintf(g.Stdout, "unavailable  %s %s\n", u.Item, u.Unavailable)
	}
	if v.Ceiling != nil {
		fmt.Fprintf(g.Stdout, "too big to open: %s\n", v.Ceiling)
	}
	return nil
}

// TranscriptCmd prints a session's conversation.
type TranscriptCmd struct {
	Session string `arg:"" help:"Session (id, prefix or title)."`
	All     bool   `name:"all" help:"Every item of every branch, in the order written."`
}

func (c *TranscriptCmd) Run(g *Globals) error {
	// The transcript streams: the session's shape is read without its
	// texts, then each item's text is read and printed in turn, so a
	// session over the eager-load ceiling prints too.
	ws, id, err := g.resolveSession(c.Session)
	if err != nil {
		return err
	}
	v, err := ws.ReadLean(g.Ctx, id)
	if err != nil {
		return err
	}
	if !g.JSON {
		return v.Stream(g.Ctx, c.All, func(it engine.Item) error {
			writeTranscript(g.Stdout, []engine.Item{it})
			return nil
		})
	}
	// One JSON array, written an item at a time.
	sep := "["
	err = v.Stream(g.Ctx, c.All, func(it engine.Item) error {
		b, err := marshalJSON(it)
		if err == nil {
			_, err = io.WriteString(g.Stdout, sep+string(b))
		}
		sep = ","
		return err
	})
	if err != nil {
		return err
	}
	if sep == "[" {
		_, err = io.WriteString(g.Stdout, "[]\n")
	} else {
		_, err = io.WriteString(g.Stdout, "]\n")
	}
	return err
}

// marshalJSON is one value as PrintJSON writes it, without the newline.
func marshalJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

func writeTranscript(w io.Writer, items []engine.Item) {
	for _, it := range items {
		text := it.Text
		switch {
		case it.Quarantined:
			text = "[quarantined: " + it.Slot + "]"
		case it.Unavailable != nil:
			text = it.Unavailable.String()
		}
		head := ""
		switch it.Type {
		case engine.Report: // a child's report: its task, title and whether it is blocked
			head = " " + it.Task
			if it.Blocked {
				head += " blocked"
			}
			if it.Title != "" && it.Title != strings.TrimSpace(text) {
				text = it.Title + "\n" + text
			}
		case engine.Message:
			head = " from " + cmp.Or(it.From, "a script")
		}
		fmt.Fprintf(w, "[%s %s%s] %s\n", it.Type, it.ID, head, strings.ReplaceAll(text, "\n", "\n    "))
	}
}

// TrailCmd prints a session's audit trail.
type TrailCmd struct {
	Session string `arg:"" help:"Session (id, prefix or title)."`
	Follow  bool   `short:"f" name:"follow" help:"Keep printing lines as they are appended."`
}

func (c *TrailCmd) Run(g *Globals) error {
	ws, id, err := g.resolveSession(c.Session)
	if err != nil {
		return err
	}
	print := func(line []byte) error {
		_, err := g.Stdout.Write(append(bytes.Clone(line), '\n'))
		return err
	}
	end, err := ws.Trail(g.Ctx, id, print)
	if err != nil || !c.Follow {
		return err
	}
	return ws.FollowTrail(g.Ctx, id, end, print)
}

// RenameCmd renames a session.
type RenameCmd struct {
	Session string `arg:"" help:"Session (id, prefix or title)."`
	Name    string `arg:"" help:"The new title."`
}

func (c *RenameCmd) Run(g *Globals) error {
	if strings.TrimSpace(c.Name) == "" {
		return usageErrorf("a session name cannot be empty")
	}
	_, s, err := g.openSession(c.Session)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := s.Rename(g.Ctx, c.Name); err != nil {
		return err
	}
	r := s.Record()
	if err := s.Close(); err != nil {
		return err
	}
	if g.JSON {
		return g.PrintJSON(r)
	}
	fmt.Fprintf(g.Stdout, "%s  %s\n", r.ID, display.Line(r.Title))
	return nil
}

// HistoryCmd prints or clears the prompt history.
type HistoryCmd struct {
	Clear bool `name:"clear" help:"Empty the prompt history."`
}

func (c *HistoryCmd) Run(g *Globals) error {
	s, err := g.Open()
	if err != nil {
		return err
	}
	if c.Clear {
		if err := s.ClearHistory(); err != nil {
			return err
		}
		if g.JSON {
			return g.PrintJSON([]string{}) // the history as it now is
		}
		return nil
	}
	h := s.History()
	if g.JSON {
		if h == nil {
			h = []string{}
		}
		return g.PrintJSON(h)
	}
	for _, l := range h {
		fmt.Fprintln(g.Stdout, l)
	}
	return nil
}
