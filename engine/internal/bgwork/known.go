package bgwork

import (
	"time"

	"cairn/engine/internal/tasks"
	"cairn/internal/timefmt"
	"cairn/internal/vfs"
)

// Known is a task as the engine's task records say it stands: the tasks
// a session's conversation starts with a "task" tool_call (the plumbing's
// among them, held by the session, one process per command), which keep
// a transcript beside the ledger. The ledger lists them as it lists the
// work a Runner runs, so task_control sees every task of the session.
type Known struct {
	ID    string
	Label string
	// Calls are the tool_call items that started and continued it.
	Calls      []string
	Background bool
	Held       bool
	// Outcome is how its last run settled; "" while it runs.
	Outcome string
	// StartedAt and EndedAt are when its last run started and settled:
	// the times a reader's fold shows (a line written now is stamped now).
	StartedAt, EndedAt time.Time
}

// agree is the lines that make s say of each task of ks what ks says:
// a task s lacks is admitted (and settled when it ended); a live one
// that ended is settled; a settled one continued since is continued.
// Nothing is delivered for them: their results reach their callers as
// the tool_results those append. s is left as it was.
func (s *State) agree(ks []Known) []*line {
	var out []*line
	for _, k := range ks {
		if !validID(k.ID) || len(k.Calls) == 0 {
			continue
		}
		w := s.by[k.ID]
		calls := 0
		switch {
		case w == nil:
			out = append(out, &line{Kind: KindAdmit, Work: k.ID, Type: TypeTask, Call: k.Calls[0],
				Label: oneLine(k.Label, maxLabel), Receipt: k.Background, Held: k.Held})
			calls = 1
		case w.Type != TypeTask:
			continue // another piece of work took the id: the Runner's
		case w.Live():
			calls = len(k.Calls)
		default:
			calls = len(w.Calls)
			if w.Outcome == Interrupted || calls >= len(k.Calls) {
				continue
			}
			// Continued since it settled: its latest run.
			out = append(out, &line{Kind: KindContinue, Work: k.ID, Call: k.Calls[len(k.Calls)-1], Receipt: k.Background})
			calls = len(k.Calls)
		}
		if k.Outcome != "" && validOutcome(k.Outcome) && calls == len(k.Calls) {
			out = append(out, &line{Kind: KindSettle, Work: k.ID, Outcome: k.Outcome})
		}
	}
	return out
}

// Agree makes the ledger say of each task of ks what ks says (see agree),
// its lines written and synced: the session's owner calls it when it
// opens the ledger, so tasks recorded before the ledger knew of them (an
// import, an older cairn, a crash between the two writes) are listed too.
func (l *Ledger) Agree(ks []Known) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.write(l.st.agree(ks)...)
}

// Agree is Ledger.Agree in memory, for a reader that does not own the
// session: nothing is written.
func (s *State) Agree(ks []Known) {
	at := map[string]Known{}
	for _, k := range ks {
		at[k.ID] = k
	}
	for _, ln := range s.agree(ks) {
		ln.V, ln.At = 1, timefmt.Mk(at[ln.Work].StartedAt)
		if ln.Kind == KindSettle {
			ln.At = timefmt.Mk(at[ln.Work].EndedAt)
		}
		if !s.apply(ln) {
			s.Skipped++
		}
	}
}

// KnownTask is task id of recs as KnownTasks says it (nil when recs
// lacks it or recs is not read: err).
func KnownTask(recs []*tasks.Record, err error, id string) []Known {
	if r := tasks.Find(recs, id); err == nil && r != nil {
		return KnownTasks([]*tasks.Record{r})
	}
	return nil
}

// KnownTasks is the agent tasks of recs, as the engine's task records
// fold them (their states settled: running or interrupted), as Known.
func KnownTasks(recs []*tasks.Record) []Known {
	out := make([]Known, 0, len(recs))
	for _, r := range recs {
		if r.Type != tasks.TypeAgent {
			continue
		}
		k := Known{ID: r.ID, Label: r.Label, Calls: r.Calls, Background: r.Background, Held: r.Held,
			Outcome: TaskOutcome(r.State), StartedAt: r.LastAt.Time}
		if r.EndedAt != nil {
			k.EndedAt = r.EndedAt.Time
		}
		out = append(out, k)
	}
	return out
}

// TaskOutcome is the outcome of a task whose record ended in state
// (tasks.Settled, Cancelled, Blocked, Interrupted); "" for running.
func TaskOutcome(state string) string {
	switch state {
	case tasks.Settled:
		return Succeeded
	case tasks.Cancelled:
		return Cancelled
	case tasks.Blocked:
		return Blocked
	case tasks.Interrupted:
		return Interrupted
	}
	return ""
}

// ReadQuery answers q (a list or a status) from journal name as Read
// folds it, without owning the session: ks agreed (the task records),
// live work shown interrupted when its owner is gone (ownerGone).
func ReadQuery(fsys vfs.FS, name string, q Request, ks []Known, ownerGone bool) (Answer, error) {
	if err := CheckRequest(q); err != nil {
		return Answer{}, err
	}
	st, err := Read(fsys, name)
	if err != nil {
		return Answer{}, err
	}
	st.Agree(ks)
	if ownerGone {
		st.OwnerGone()
	}
	return st.Query(q)
}
