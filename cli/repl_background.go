package cli

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"cairn/cli/display"
	"cairn/cli/term"
	"cairn/engine"
)

// Background work in the REPL, where a person plays the agent: a shell
// line whose timeout is over agent.shell_async_threshold_secs (shell
// auto), or any under async, is answered with its receipt and runs on;
// its end, a child's report and a message from another session are
// shown above the input line and kept as items of the conversation, at
// the REPL's safe boundary: while it waits for a line, never in the
// middle of one. The prompt carries the chips [tasks · N] [shell · N]
// while work runs. /tasks and /shells inspect and stop it; closing the
// session cancels and drains it.

// replBG is the REPL's side of its session's background work.
type replBG struct {
	mu   sync.Mutex // held while delivering and printing what was delivered
	idle bool       // the REPL waits for a line: deliveries show at once
	wake chan struct{}
	// cursor is where /tasks older goes on from; "" on the first page.
	cursor string
	// watched is the session OnBackground was last hooked on.
	watched *engine.Session
	// spinning: the goroutine animating the waiting label runs; frame is
	// its spinner's frame.
	spinning bool
	frame    int
}

// spinFrames are the waiting label's spinner, drawn every spinEvery.
const (
	spinFrames = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
	spinEvery  = 200 * time.Millisecond
)

// watchBackground hooks the REPL on its session's background work (once
// a session) and starts the goroutine that delivers while the REPL is idle.
func (r *repl) watchBackground() {
	if r.bg.wake == nil {
		r.bg.wake = make(chan struct{}, 1)
		go func() {
			for range r.bg.wake {
				r.deliverIf(true)
			}
		}()
	}
	s := r.sess
	if s == nil || r.bg.watched == s {
		return
	}
	r.bg.watched, r.bg.cursor = s, ""
	wake := r.bg.wake
	s.OnBackground(func() {
		select {
		case wake <- struct{}{}:
		default:
		}
	})
}

// setIdle says whether the REPL waits for a line; going idle delivers what
// came meanwhile first.
func (r *repl) setIdle(idle bool) {
	if idle {
		r.deliverIf(false)
	}
	r.bg.mu.Lock()
	r.bg.idle = idle
	r.bg.mu.Unlock()
	if idle {
		r.spin()
	}
}

// spin animates the waiting label while the REPL waits for a line and
// its session's background work will wake it (engine Session.Waiting):
// the goroutine ends once either stops.
func (r *repl) spin() {
	r.bg.mu.Lock()
	defer r.bg.mu.Unlock()
	if r.bg.spinning || r.sess == nil || !r.sess.Waiting() {
		return
	}
	r.bg.spinning = true
	go func() {
		t := time.NewTicker(spinEvery)
		defer t.Stop()
		for range t.C {
			r.bg.mu.Lock()
			r.open.mu.Lock()
			s, ed := r.open.sess, r.open.ed
			r.open.mu.Unlock()
			if !r.bg.idle || s == nil || ed == nil || !s.Waiting() {
				r.bg.spinning = false
				if ed != nil && s != nil {
					ed.SetPrompt(promptText(s, r.bg.frame))
				}
				r.bg.mu.Unlock()
				return
			}
			r.bg.frame++
			if !ed.SetPrompt(promptText(s, r.bg.frame)) {
				r.bg.spinning = false // no line is being read: nothing to draw on
				r.bg.mu.Unlock()
				return
			}
			r.bg.mu.Unlock()
		}
	}()
}

// promptLine is the input line's prompt as it stands.
func (r *repl) promptLine() string {
	r.bg.mu.Lock()
	defer r.bg.mu.Unlock()
	return promptText(r.sess, r.bg.frame)
}

// deliverIf delivers what the session's background work and inbox owe it
// and shows each item; onlyIdle: only while the REPL waits for a line.
func (r *repl) deliverIf(onlyIdle bool) {
	r.bg.mu.Lock()
	defer r.bg.mu.Unlock()
	if onlyIdle && !r.bg.idle {
		return
	}
	// The session and the editor as the main goroutine left them.
	r.open.mu.Lock()
	s, ed := r.open.sess, r.open.ed
	r.open.mu.Unlock()
	if s == nil || s != r.bg.watched {
		return
	}
	its, err := s.Deliver(r.g.Ctx)
	for _, it := range its {
		r.say(ed, deliveredText(it))
	}
	if err != nil && !errors.Is(err, engine.ErrRefused) {
		r.say(ed, "cairn: background results could not be delivered (the next open delivers them): "+userError(err))
	}
	if ed != nil {
		ed.SetPrompt(promptText(s, r.bg.frame))
	}
}

// say shows text above the input line of ed, or on its own lines when no
// line is being edited.
func (r *repl) say(ed *term.Editor, text string) {
	if ed == nil || !ed.Println(text) {
		fmt.Fprintln(r.out, text)
	}
}

// deliveredText is how a delivered item shows above the input line.
func deliveredText(it engine.Item) string {
	switch it.Type {
	case engine.Message:
		from := "a script"
		if it.From != "" {
			from = "session " + it.From
		}
		return fmt.Sprintf("message from %s: %s", from, display.Text(it.Text))
	case engine.Reminder:
		return "reminder: " + display.Text(it.Text)
	case engine.Report:
		b := ""
		if it.Blocked {
			b = " (blocked)"
		}
		return fmt.Sprintf("report from %s%s: %s", it.Task, b, display.Line(it.Title))
	}
	out := ""
	if len(it.Outputs) > 0 {
		out = " (output " + it.Outputs[0] + ")"
	}
	return fmt.Sprintf("background: %s%s", display.Line(it.Text), out)
}

// promptText is the input line's prompt: the chips of s's running work,
// each dropped at zero, then, while that work will wake the session (a
// result to come or not yet shown, continuation not stopped), the waiting
// label with its spinner at frame, then "cairn> ". The label does not
// mean a model request runs: the REPL has none.
func promptText(s *engine.Session, frame int) string {
	if s == nil {
		return "cairn> "
	}
	tasks, shells := s.Running()
	var b strings.Builder
	if tasks > 0 {
		fmt.Fprintf(&b, "[tasks · %d] ", tasks)
	}
	if shells > 0 {
		fmt.Fprintf(&b, "[shell · %d] ", shells)
	}
	if s.Waiting() {
		frames := []rune(spinFrames)
		fmt.Fprintf(&b, "[waiting %c] ", frames[frame%len(frames)])
	}
	return b.String() + "cairn> "
}

// replTasksCmd is /tasks [list|status ID|background ID|cancel ID|pause ID|older|recent].
type replTasksCmd struct {
	Action string `arg:"" optional:"" placeholder:"ACTION" help:"list (the default), status ID, background ID (promote a running agent task; task auto only), cancel ID, pause ID (a running workflow run), older (the next page of the archive), recent (back to the newest)."`
	ID     string `arg:"" optional:"" help:"The task or shell job."`
}

func (c *replTasksCmd) Run(r *repl, l *replLine) error {
	q := engine.TaskControlRequest{Action: c.Action, TaskID: c.ID}
	switch c.Action {
	case "", "list", "recent":
		r.bg.cursor = ""
		q.Action = "list"
	case "older":
		q.Action, q.Cursor = "list", r.bg.cursor
		if q.Cursor == "" {
			fmt.Fprintln(r.out, "No older background work: /tasks shows it all.")
			return nil
		}
	case "status", "background", "cancel", "pause":
		if c.ID == "" {
			return usageErrorf("/tasks %s needs a task id", c.Action)
		}
	default:
		return usageErrorf("/tasks takes list, status ID, background ID, cancel ID, pause ID, older or recent, not %s", display.Line(c.Action))
	}
	if q.Action == "list" && c.ID != "" {
		return usageErrorf("/tasks %s takes no id", c.Action)
	}
	a, err := r.sess.TaskControl(l.ctx, q)
	if err != nil {
		return err
	}
	switch {
	case a.Page != nil && len(a.Page.Works) == 0:
		fmt.Fprintln(r.out, "No background work in this session.")
		return nil
	case a.Page != nil:
		r.bg.cursor = a.Page.Next
		page := *a.Page
		page.Next = ""
		writeTaskControl(r.out, engine.TaskControlAnswer{Page: &page})
		if a.Page.Next != "" {
			fmt.Fprintln(r.out, "/tasks older shows the next page.")
		}
	case a.Work != nil && a.Work.State == "cancelling":
		fmt.Fprintf(r.out, "%s cancelling; its end is reported here.\n", a.Work.ID)
	case a.Work != nil && q.Action == "pause":
		fmt.Fprintf(r.out, "%s paused; the runtime that runs it resumes it under the same id (/tasks cancel %s ends it).\n", a.Work.ID, a.Work.ID)
	default:
		writeTaskControl(r.out, a)
	}
	r.refreshPrompt()
	return nil
}

// refreshPrompt draws the chips again after a command changed them.
func (r *repl) refreshPrompt() {
	if r.ed != nil {
		r.ed.SetPrompt(r.promptLine())
	}
}

// stopShellJob is /shells stop JOB: the job is cancelled and its owner
// gets a cancelled result (delivered above the input line). Without JOB
// (or the leader, then k) it opens the shell modal of the running jobs,
// where Ctrl-K stops the selected one (seed 000); without a terminal, a
// numbered list.
func (r *repl) stopShellJob(l *replLine, job string) error {
	if job == "" {
		row, err := r.pickShellJob()
		switch {
		case errors.Is(err, term.ErrCancelled), errors.Is(err, term.ErrInterrupted), errors.Is(err, term.ErrNoRows):
			return nil
		case err != nil:
			return err
		}
		job = row.ID
	}
	st, err := r.sess.TaskControl(l.ctx, engine.TaskControlRequest{Action: "status", TaskID: job})
	if err != nil {
		return err
	}
	if st.Status.Type != "shell" {
		return usageErrorf("%s is a %s, not a shell job: /tasks cancel %s stops it", job, st.Status.Type, job)
	}
	a, err := r.sess.TaskControl(l.ctx, engine.TaskControlRequest{Action: "cancel", TaskID: job})
	if err != nil {
		return err
	}
	fmt.Fprintf(r.out, "%s %s; its end is reported here.\n", a.Work.ID, a.Work.State)
	return nil
}

// pickShellJob shows the shell modal: the session's running background
// shell jobs, oldest first; the chosen one is to be stopped. ErrNoRows
// when none runs (said here).
func (r *repl) pickShellJob() (term.Row, error) {
	now := time.Now()
	var rows []term.Row
	for _, w := range r.sess.RunningWork() {
		if w.Type == "shell" {
			rows = append(rows, term.Row{ID: w.ID, Title: w.Label, Age: age(now, w.AdmittedAt)})
		}
	}
	if len(rows) == 0 {
		fmt.Fprintln(r.out, "No background shell job is running.")
		return term.Row{}, term.ErrNoRows
	}
	return r.pickRow(term.Listing{Kind: term.Shells, Rows: rows,
		Heading: "Running background shell jobs: the one you stop gets a cancelled result."})
}

// bindShellKeys ties the leader, then k, to the shell modal.
func (r *repl) bindShellKeys() {
	if r.ed != nil {
		r.ed.Bind("leader k", "/shells stop")
	}
}

// replMessageCmd is /message SESSION TEXT: a message from this session to
// another live one (experimental.cross_session_messaging).
type replMessageCmd struct {
	Session string `arg:"" help:"The session to message (id, prefix or title)."`
	Text    string `arg:"" help:"The message (quote it to keep its blanks)."`
}

func (c *replMessageCmd) Run(r *repl, l *replLine) error {
	id, err := resolve(l.ctx, r.ws, c.Session)
	if err != nil {
		return err
	}
	sent, err := r.ws.SendMessage(l.ctx, id, c.Text, engine.MessageOptions{From: r.sess.ID()})
	if err != nil {
		return err
	}
	fmt.Fprintf(r.out, "Sent to %s (%s).\n", id, sent.ID)
	return nil
}
