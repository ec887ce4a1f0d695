package cli

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"cairn/cli/term"
	"cairn/engine"
)

// The rewind picker (seed 000: "Esc Esc with no session work left uses the
// same conversation-only mechanism through the rewind picker. If tasks or
// workflows are still active, it stops that work instead."). Esc Esc, or
// /rewind, lists the prompts of the head path, newest first; choosing one
// is a conversation revert to it: the head moves to just before it, the
// prompt leaves the head path (transcript --all keeps it) and comes back in
// the input line for editing.

// bindRewindKeys ties Esc Esc to /rewind. The editor takes two Esc presses
// that reach it together (one Alt+Esc) as the pair too.
func (r *repl) bindRewindKeys() {
	if r.ed == nil {
		return
	}
	r.ed.Bind("esc esc", "/rewind")
}

// replRewindCmd is /rewind (Esc Esc): the running tasks and shell jobs of
// the session stopped, or, when none runs, the rewind picker.
type replRewindCmd struct{}

func (c *replRewindCmd) Run(r *repl) error {
	r.rewind()
	return nil
}

// rewind is /rewind.
func (r *repl) rewind() {
	ctx := r.g.Ctx
	if stopped, err := r.stopRunningTasks(); err != nil {
		fmt.Fprintln(r.out, "cairn:", userError(err))
		return
	} else if len(stopped) > 0 {
		fmt.Fprintf(r.out, "Stopped %s: %s. Esc Esc again goes back to a prompt.\n",
			plural(len(stopped), "running task", "running tasks"), strings.Join(stopped, ", "))
		return
	}
	rows := r.promptRows()
	if len(rows) == 0 {
		fmt.Fprintln(r.out, "No prompt to go back to yet.")
		return
	}
	row, err := r.pickPrompt(rows)
	switch {
	case errors.Is(err, term.ErrCancelled), errors.Is(err, term.ErrInterrupted):
		return
	case err != nil:
		fmt.Fprintln(r.out, "cairn:", userError(err))
		return
	}
	typed := ""
	if r.ed != nil {
		typed = r.ed.Typed()
	}
	r.revertPreview = ""
	res, err := r.sess.Revert(ctx, row.ID, engine.RevertConversation)
	if err != nil {
		fmt.Fprintln(r.out, "cairn:", userError(err))
		return
	}
	fmt.Fprintf(r.out, "Went back to before item %d, the prompt you chose: %s on the head path now; /unrevert undoes it.\n",
		row.Items, plural(len(r.sess.Transcript()), "item", "items"))
	if strings.TrimSpace(typed) != "" && r.ed != nil {
		// What was being typed gives way to the prompt handed back, and
		// stays one Up away.
		r.ed.AddHistory(typed)
		fmt.Fprintln(r.out, "The text you were typing is in the history (Up).")
	}
	r.offerDraft(res.Draft, res.DraftUnavailable)
	r.offerDraftAttachments()
}

// stopRunningTasks ends the session's running tasks and background shell
// jobs as cancelled, and returns their ids.
func (r *repl) stopRunningTasks() ([]string, error) {
	ctx := r.g.Ctx
	if r.sess == nil || !r.sess.Recorded() {
		return nil, nil
	}
	// The background work first: stop all is recorded before it is
	// cancelled, and what settles after it wakes nothing until the next
	// prompt (its end is still shown and kept).
	var stopped []string
	if tasks, shells := r.sess.Running(); tasks+shells > 0 {
		ws, err := r.sess.StopAll(ctx)
		if err != nil {
			return nil, err
		}
		for _, w := range ws {
			stopped = append(stopped, w.ID)
		}
	}
	recs, err := r.ws.Tasks(ctx, r.sess.ID())
	if errors.Is(err, engine.ErrNotFound) {
		return stopped, nil
	}
	if err != nil {
		return stopped, err
	}
	for _, rec := range recs {
		if rec.State != engine.TaskRunning {
			continue
		}
		t, err := r.sess.Task(ctx, rec.ID)
		if err != nil {
			return stopped, err
		}
		if err := t.End(ctx, engine.TaskCancelled); err != nil {
			return stopped, err
		}
		stopped = append(stopped, rec.ID)
	}
	return stopped, nil
}

// promptRows are the prompts of the head path as rows of the rewind picker,
// newest first: Row.Items is the prompt's item number N on the head path
// (as /revert N counts).
func (r *repl) promptRows() []term.Row {
	now := time.Now()
	var rows []term.Row
	for i, it := range r.sess.Transcript() {
		if it.Type != engine.User {
			continue
		}
		rows = append([]term.Row{{ID: it.ID, Title: it.Text, Age: age(now, it.At.Time), Items: i + 1}}, rows...)
	}
	return rows
}

// pickPrompt shows the rewind picker over rows (a numbered list without a
// terminal). The preview of a prompt is its whole text and the answer it
// got.
func (r *repl) pickPrompt(rows []term.Row) (term.Row, error) {
	answers := r.answers()
	return r.pickRow(term.Listing{Kind: term.Prompts, Rows: rows,
		Heading: "Go back to before a prompt: it leaves the conversation (transcript --all keeps it) and comes back for editing.",
		Preview: func(row term.Row) term.Preview {
			return term.Preview{Turns: []term.PreviewTurn{{Prompt: row.Title, Answer: answers[row.ID]}}}
		}})
}

// answers maps each prompt of the head path to the last assistant item
// before the next prompt.
func (r *repl) answers() map[string]string {
	out := map[string]string{}
	prompt := ""
	for _, it := range r.sess.Transcript() {
		switch it.Type {
		case engine.User:
			prompt = it.ID
		case engine.Assistant:
			if prompt != "" {
				out[prompt] = it.Text
			}
		}
	}
	return out
}
