package cli

import (
	"fmt"
	"io"

	"cairn/cli/display"
	"cairn/engine"
)

// Sub-agent tasks on the command line (engine task.go). The plumbing runs
// one process per command, so the tasks it starts are held: they belong to
// the session, and run until a tool_result answers their call or
// `cairn task --cancel` stops them.
//
//	cairn append --session S --type tool_call --tool task DESCRIPTION     start a task
//	cairn append --session S --type tool_call --tool task --task ID TEXT  continue a settled one
//	cairn append --session S --task ID --type assistant TEXT              add to its transcript
//	cairn append --session S --type tool_result --call CALL TEXT          deliver it: settled
//	cairn task S ID, cairn tasks S

// startTask records a task call and starts (or continues) its task.
func startTask(g *Globals, s *engine.Session, c *AppendCmd, parent, text string) error {
	t, it, err := s.StartTask(g.Ctx, engine.TaskStart{Description: text, Continue: c.Task, Parent: parent, Held: true, Background: c.Background})
	if err != nil {
		return err
	}
	if err := s.Close(); err != nil {
		return err
	}
	return g.answerTask(s.ID(), it.ID, t.ID())
}

// appendReport records task c.Task's report_to_parent as a report item
// of the session's conversation; a blocked one ends the task.
func appendReport(g *Globals, s *engine.Session, c *AppendCmd, text string) error {
	it, err := s.Report(g.Ctx, c.Task, engine.ReportInput{Message: text, Title: c.Title, Blocked: c.Blocked})
	if err != nil {
		return err
	}
	if err := s.Close(); err != nil {
		return err
	}
	return g.answerTask(s.ID(), it.ID, c.Task)
}

// appendToTask appends an item to running task c.Task's transcript; its
// --parent and --call are ids of that transcript.
func appendToTask(g *Globals, s *engine.Session, c *AppendCmd, text string) error {
	t, err := s.Task(g.Ctx, c.Task)
	if err != nil {
		return err
	}
	it, err := t.Append(g.Ctx, engine.Item{Type: engine.ItemType(c.Type), Parent: c.Parent, Text: text, Tool: c.Tool, Call: c.Call, Outputs: c.Output})
	if err != nil {
		return err
	}
	if err := t.Sync(); err != nil {
		return err
	}
	if err := s.Close(); err != nil {
		return err
	}
	return g.answerTask(s.ID(), it.ID, t.ID())
}

func (g *Globals) answerTask(session, item, task string) error {
	if g.JSON {
		return g.PrintJSON(itemAnswer{Session: session, Item: item, Task: task})
	}
	fmt.Fprintf(g.Stdout, "%s %s %s\n", session, item, task)
	return nil
}

// TaskCmd prints a task's transcript, or cancels a running one.
type TaskCmd struct {
	Session string `arg:"" help:"Session (id, prefix or title)."`
	Task    string `arg:"" help:"Task id, as the task call returned it."`
	All     bool   `name:"all" help:"Every item of every branch of the transcript, in the order written."`
	Cancel  bool   `name:"cancel" help:"Cancel the task (it must be running)."`
}

func (c *TaskCmd) Run(g *Globals) error {
	if c.Cancel {
		_, s, err := g.openSession(c.Session)
		if err != nil {
			return err
		}
		defer s.Close()
		t, err := s.Task(g.Ctx, c.Task)
		if err != nil {
			return err
		}
		if err := t.End(g.Ctx, engine.TaskCancelled); err != nil {
			return err
		}
		if err := s.Close(); err != nil {
			return err
		}
		if g.JSON {
			return g.PrintJSON(struct {
				Task  string `json:"task"`
				State string `json:"state"`
			}{c.Task, engine.TaskCancelled})
		}
		fmt.Fprintf(g.Stdout, "%s %s\n", c.Task, engine.TaskCancelled)
		return nil
	}
	ws, id, err := g.resolveSession(c.Session)
	if err != nil {
		return err
	}
	v, err := ws.ReadTask(g.Ctx, id, c.Task)
	if err != nil {
		return err
	}
	items := v.Transcript()
	if c.All {
		items = v.AllItems()
	}
	if g.JSON {
		if items == nil {
			items = []engine.Item{}
		}
		return g.PrintJSON(struct {
			engine.TaskRecord
			Transcript []engine.Item `json:"transcript"`
		}{v.Record, items})
	}
	writeTaskRow(g.Stdout, v.Record, 0)
	writeTranscript(g.Stdout, items)
	return nil
}

// TasksCmd lists a session's tasks and background shell jobs.
type TasksCmd struct {
	Session string `arg:"" help:"Session (id, prefix or title)."`
}

func (c *TasksCmd) Run(g *Globals) error {
	ws, id, err := g.resolveSession(c.Session)
	if err != nil {
		return err
	}
	ts, err := ws.Tasks(g.Ctx, id)
	if err != nil {
		return err
	}
	if g.JSON {
		return g.PrintJSON(ts)
	}
	width := 0 // the ids line up, whatever their lengths
	for _, t := range ts {
		width = max(width, len(t.ID))
	}
	for _, t := range ts {
		writeTaskRow(g.Stdout, t, width)
	}
	return nil
}

// writeTaskRow is a task as `cairn tasks` shows it: id (padded to width),
// state, type, item count, calls, label.
func writeTaskRow(w io.Writer, t engine.TaskRecord, width int) {
	bg := ""
	if t.Background {
		bg = " bg"
	}
	fmt.Fprintf(w, "%-*s  %-11s %-5s %4d %-5s %d call(s)%s  %s\n", width, t.ID, t.State, t.Type, t.Items, itemWord(t.Items), len(t.Calls), bg, display.Line(t.Label))
}
