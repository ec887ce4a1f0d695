package cli

import (
	"fmt"
	"io"
	"strings"

	"cairn/cli/display"
	"cairn/engine"
)

// TaskControlCmd is `cairn task-control list|status|cancel|background|pause`:
// the task_control tool over a session's background work (engine
// Session.TaskControl). list and status read without the session's lock,
// so they answer while a REPL owns it; cancel, background and pause take
// the lock for the call.
type TaskControlCmd struct {
	Action  string `arg:"" enum:"list,status,cancel,background,pause" help:"list (newest first, a page at a time), status, cancel, background (promote a running agent task; task auto only), or pause (a running workflow run; the runtime that runs it resumes it under the same id)."`
	Session string `name:"session" placeholder:"S" help:"Session (default: the most recently written one)."`
	Task    string `name:"task" placeholder:"ID" help:"The task or shell job (every action but list)."`
	Cursor  string `name:"cursor" placeholder:"C" help:"list: the next page, the \"next\" the page before printed, passed back as given."`
	Limit   int    `name:"limit" placeholder:"N" help:"list: entries a page (default 20, at most 200)."`
}

func (c *TaskControlCmd) Run(g *Globals) error {
	q := engine.TaskControlRequest{Action: c.Action, TaskID: c.Task, Cursor: c.Cursor, Limit: c.Limit}
	switch {
	case c.Action == "list" && c.Task != "":
		return usageErrorf("list takes no --task")
	case c.Action != "list" && c.Task == "":
		return usageErrorf("%s needs --task ID", c.Action)
	case c.Action != "list" && (c.Cursor != "" || c.Limit != 0):
		return usageErrorf("--cursor and --limit are for list only")
	}
	var (
		a   engine.TaskControlAnswer
		err error
	)
	if c.Action == "list" || c.Action == "status" {
		ws, id, rerr := g.resolveSession(c.Session)
		if rerr != nil {
			return rerr
		}
		a, err = ws.TaskControl(g.Ctx, id, q)
	} else {
		_, s, oerr := g.openSession(c.Session)
		if oerr != nil {
			return oerr
		}
		defer s.Close()
		if a, err = s.TaskControl(g.Ctx, q); err == nil {
			err = s.Close()
		}
	}
	if err != nil {
		return err
	}
	if g.JSON {
		return g.PrintJSON(a)
	}
	writeTaskControl(g.Stdout, a)
	return nil
}

// writeTaskControl prints a task_control answer for a person: a list as
// rows (id, type, state, label; bg on background work) and the cursor of
// the next page; one piece of work as its row and its deliveries.
func writeTaskControl(w io.Writer, a engine.TaskControlAnswer) {
	switch {
	case a.Page != nil:
		width := 0
		for _, t := range a.Page.Works {
			width = max(width, len(t.ID))
		}
		for _, t := range a.Page.Works {
			writeWorkRow(w, t, width)
		}
		if a.Page.Next != "" {
			fmt.Fprintf(w, "more: --cursor %s\n", a.Page.Next)
		}
	case a.Status != nil:
		writeWorkRow(w, a.Status.Work, 0)
		for _, d := range a.Status.Deliveries {
			state := "owed"
			if d.Delivered {
				state = "delivered"
			}
			fmt.Fprintf(w, "  %s %s %s\n", d.Kind, d.Item, state)
		}
	case a.Work != nil:
		writeWorkRow(w, *a.Work, 0)
	case a.Receipt != nil:
		fmt.Fprintf(w, "%s background (receipt: admitted, not a success)\n", a.Receipt.Work)
	}
}

// workState is a piece of work's state in one word: running, cancelling,
// paused, or how it settled.
func workState(t engine.BackgroundWork) string {
	if t.Outcome != "" {
		return t.Outcome
	}
	return t.State
}

func writeWorkRow(w io.Writer, t engine.BackgroundWork, width int) {
	bg := ""
	if t.Background {
		bg = "  bg"
	}
	label := display.Line(t.Label)
	if t.Text != "" && t.Outcome != "" {
		label += " — " + display.Line(t.Text)
	}
	fmt.Fprintf(w, "%-*s  %-5s  %-11s  %s%s\n", width, t.ID, t.Type, workState(t), strings.TrimSpace(label), bg)
}
