package cli

import (
	"context"
	"errors"
	"fmt"

	"cairn/cli/display"
	"cairn/engine"
	"cairn/remotews"
)

// Background shell lines on a remote workspace. A line the agent section
// answers with a receipt (shell auto over the threshold, or async) is
// admitted here as held work of the session (engine.Session.AdmitHeldShell:
// recorded before it is sent) and runs on the host, in the host session,
// under the same id (shell.start): its shell history entry, output and
// change record are the host's. Its end comes back as the connection's
// job.ended notification and settles the job here, delivered above the
// input line as a local job's end is; /tasks and /shells see it, and a
// cancel of it here (/shells stop, /tasks cancel) is sent to the host.
//
// When the client goes away (the REPL ends, the connection is lost) the
// job keeps running on the host, whose cairn host lingers until it ends;
// the next connect to the session (a resume, a plumbing command that
// opens it to write) asks the host how each job still running here
// stands (jobs.list) and settles those that ended, so their results are
// delivered then, as a local job's are at the next resume. A job the
// host never started (the connection was lost before it could) settles
// failed, "not run"; a cancel asked while the host could not be reached
// is sent then.

// remoteJob runs line in the background on the host, timeout seconds
// its hard deadline there.
func (r *repl) remoteJob(ctx context.Context, line string, timeout int) error {
	c := r.rc.cell
	if c == nil || c.hs == nil {
		return r.noHostSession()
	}
	if err := c.ready(ctx); err != nil {
		return err
	}
	p, err := r.sess.Place("")
	if err != nil {
		return err
	}
	rc, err := r.sess.AdmitHeldShell(ctx, line, "") // a person's line, no agent's tool call, as locally
	if err != nil {
		return err
	}
	host := r.rc.client.Target.Host
	if _, err := c.hs.ShellStart(ctx, p.Call, p.Item, rc.Work, line, timeout); err != nil {
		if errors.Is(err, remotews.ErrLost) {
			// It may have started there: the next connect says.
			fmt.Fprintf(r.out, "%s was sent to %s as the connection was lost: the next connect says whether it runs there.\n", rc.Work, display.Line(host))
			return err
		}
		refusedJob(r.sess, rc.Work, err)
		return err
	}
	fmt.Fprintf(r.out, "Running in the background on %s as %s (a receipt: admitted, not a success); its end is reported here. /tasks lists it, /shells stop %s stops it.\n",
		display.Line(host), rc.Work, rc.Work)
	r.refreshPrompt()
	return nil
}

// refusedJob settles held job id that the host refused: failed, not run.
func refusedJob(s *engine.Session, id string, why error) {
	_, _ = s.SettleHeldShell(id, engine.WorkResult{Outcome: "failed", Text: "not run: " + userError(why)})
}

// jobEnded settles the job a job.ended notification tells of, when its
// session is the REPL's current one (the delivery wakes the REPL).
func (r *repl) jobEnded(session string, w engine.BackgroundWork) {
	r.open.mu.Lock()
	s := r.open.sess
	r.open.mu.Unlock()
	if s == nil || s.ID() != session || r.rc.client == nil {
		return
	}
	settleFromHost(s, r.rc.client.Target.Host, w)
}

// settleFromHost settles held job w.ID of s with how it ended on host.
func settleFromHost(s *engine.Session, host string, w engine.BackgroundWork) {
	text := w.Text
	if host != "" {
		text += " (on " + host + ")"
	}
	_, _ = s.SettleHeldShell(w.ID, engine.WorkResult{Outcome: w.Outcome, Text: text, Output: w.Output})
}

// syncJobs takes up s's background jobs on its host session hs as the
// session opens there: a cancel of one reaches the host from now on; each
// held job still running here is asked after, and settled with its
// outcome if it ended there (or failed, not run, if the host never
// started it); one cancelled while the host could not be reached is
// cancelled there now. What it cannot do is said, not fatal: the jobs
// stay as they are until the next connect.
func syncJobs(ctx context.Context, s *engine.Session, hs *remotews.Session, host string, say func(string)) {
	s.OnHeldShellCancel(func(id string) error {
		_, err := hs.JobCancel(ctx, id)
		return err
	})
	held, err := s.HeldShells()
	if err != nil || len(held) == 0 {
		return
	}
	ids := make([]string, len(held))
	for i, w := range held {
		ids[i] = w.ID
	}
	there, err := hs.Jobs(ctx, ids)
	if err != nil {
		say(fmt.Sprintf("cairn: the background jobs on %s could not be asked after (the next connect asks again): %s", host, userError(err)))
		return
	}
	by := map[string]engine.BackgroundWork{}
	for _, w := range there {
		by[w.ID] = w
	}
	for _, w := range held {
		hw, ok := by[w.ID]
		switch {
		case !ok:
			_, _ = s.SettleHeldShell(w.ID, engine.WorkResult{Outcome: "failed",
				Text: "not run: the connection to " + host + " was lost before the job started there"})
		case !hw.Live():
			settleFromHost(s, host, hw)
		case w.State == "cancelling" && hw.State == "running":
			if _, err := hs.JobCancel(ctx, w.ID); err != nil {
				say(fmt.Sprintf("cairn: %s could not be cancelled on %s: %s", w.ID, host, userError(err)))
			}
		}
	}
}

// sayClosingJobs says what becomes of s's shells running background jobs
// as it closes: the local ones are stopped; those on a remote workspace's
// host go on there, their ends delivered at the next connect.
func (r *repl) sayClosingJobs(s *engine.Session, shells int) {
	held, _ := s.HeldShells()
	if local := shells - len(held); local > 0 {
		fmt.Fprintf(r.out, "Stopping %s before the session closes.\n", plural(local, "background shell job", "background shell jobs"))
	}
	if len(held) > 0 && r.rc.client != nil {
		fmt.Fprintf(r.out, "%s on %s %s on there; %s delivered at the next connect to the session.\n",
			plural(len(held), "background shell job", "background shell jobs"), display.Line(r.rc.client.Target.Host),
			map[bool]string{true: "goes", false: "go"}[len(held) == 1], map[bool]string{true: "its end is", false: "their ends are"}[len(held) == 1])
	}
}
