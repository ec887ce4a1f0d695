package bgwork

import "fmt"

// ShellRun is how a background shell line ran, as its runner saw it.
type ShellRun struct {
	// Started: its shell started (its start line is in the shell history).
	Started bool
	// Stopped: its context ended (a cancel, a stop, the session's close,
	// its deadline): the Runner says how it settled.
	Stopped bool
	Exit    int
	// Err is why it did not start, or why it could not be waited for.
	Err error
	// Output names the tool output holding what it printed.
	Output string
	// Record names its change record, of Files files ("" for none).
	Record string
	Files  int
	// RecordLater: its changes are recorded after its result, once the
	// call of its session that ran when it ended is over.
	RecordLater bool
}

// ShellResult is the Result a background shell line settles with: not
// started and stopped, cancelled (the Runner words the outcome); not
// started otherwise, failed; else its exit, and its record when it has
// one, succeeded on exit 0.
func ShellResult(r ShellRun) Result {
	switch {
	case !r.Started && r.Stopped:
		return Result{Text: "not run: cancelled before it started"}
	case !r.Started:
		return Result{Outcome: Failed, Text: "not run: " + r.Err.Error()}
	}
	res := Result{Text: fmt.Sprintf("exit %d", r.Exit), Output: r.Output}
	switch {
	case r.Record != "":
		res.Text += fmt.Sprintf(", record %s of %d file(s)", r.Record, r.Files)
	case r.RecordLater:
		res.Text += ", its changes recorded once the call under way ends"
	}
	switch {
	case r.Stopped:
		// The Runner says cancelled, or failed past the deadline.
	case r.Exit != 0 || r.Err != nil:
		res.Outcome = Failed
	default:
		res.Outcome = Succeeded
	}
	return res
}

// Running counts the live work of s by type: agent tasks and workflow
// runs, and shell jobs (the footer's chips).
func (s *State) Running() (tasks, shells int) {
	for _, w := range s.works {
		switch {
		case !w.Live():
		case w.Type == TypeShell:
			shells++
		default:
			tasks++
		}
	}
	return tasks, shells
}

// LocalTasks is the live agent tasks of s that are not held: a task
// record's that the process which admitted them ends with its session.
func (s *State) LocalTasks() []string {
	var out []string
	for _, w := range s.works {
		if w.Type == TypeTask && w.Live() && !w.Held {
			out = append(out, w.ID)
		}
	}
	return out
}
