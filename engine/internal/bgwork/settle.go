package bgwork

import "fmt"

// Cancel marks running work id cancelling; it shows so until it settles.
// Cancelling work that is cancelling already changes nothing; a paused
// workflow, which runs nothing, settles cancelled at once. It returns the
// work as it now stands.
func (l *Ledger) Cancel(id string) (Work, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	w, err := l.find(id)
	if err != nil {
		return Work{}, err
	}
	switch w.State {
	case StateCancelling:
		return w.copy(), nil
	case StateSettled:
		return Work{}, refused("%s is settled (%s): nothing to cancel", id, w.Outcome)
	case StatePaused:
		err = l.settle(w, Result{Outcome: Cancelled, Text: "cancelled while paused"}, true)
	default:
		err = l.write(&line{Kind: KindCancel, Work: id})
	}
	if err != nil {
		return Work{}, err
	}
	return w.copy(), nil
}

// Result is how a run of work ended.
type Result struct {
	Outcome string // Succeeded when empty
	Text    string
	// Output names a tool output that holds what the work printed; it is
	// durable before Settle is called.
	Output string
	// After, when set, runs once the result is settled and its caller
	// answered, before the work counts as ended (its owner's drain and the
	// runner's Close wait for it): what must follow the result rather than
	// hold it back (a background shell line's change record, which waits
	// for a call of its session that may itself wait for this result). It
	// is not kept in the ledger.
	After func()
}

// Settle records that work id settled with r and returns the delivery it
// owes, if any: a result is delivered when its run was answered with a
// receipt (the caller of a waited run has it already). Work that made a
// blocked report settles blocked. Work that still owns live work is
// refused: its jobs are cancelled and drained first.
func (l *Ledger) Settle(id string, r Result) (*Delivery, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	w, err := l.find(id)
	if err != nil {
		return nil, err
	}
	if w.State == StateSettled {
		return nil, refused("%s is settled already (%s)", id, w.Outcome)
	}
	if err := l.settle(w, r, w.Background); err != nil {
		return nil, err
	}
	if d := l.st.lastOwed(w.ID); d != nil {
		c := *d
		return &c, nil
	}
	return nil, nil
}

// Abandon settles work id failed without a delivery: for work whose
// admission its caller was told had failed (its line was written after
// all), so that it does not read as running.
func (l *Ledger) Abandon(id, why string) error {
	return l.End(id, Result{Outcome: Failed, Text: why})
}

// End settles work id with r and delivers nothing: work whose caller has
// its result another way (a task of the plumbing, answered by the
// tool_result its caller appends, or ended by it). Settled work is left
// as it reads.
func (l *Ledger) End(id string, r Result) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	w, err := l.find(id)
	if err != nil {
		return err
	}
	if w.State == StateSettled {
		return nil
	}
	return l.settle(w, r, false)
}

// settle writes w's settle line; l.mu is held.
func (l *Ledger) settle(w *Work, r Result, deliver bool) error {
	if r.Outcome == "" {
		r.Outcome = Succeeded
	}
	if !validOutcome(r.Outcome) {
		return fmt.Errorf("%w: outcome %q", ErrInvalid, r.Outcome)
	}
	if w.Blocked {
		r.Outcome = Blocked
	}
	for _, o := range l.st.works {
		if o.Owner == w.ID && o.Live() {
			return refused("%s still runs %s: cancel and drain its work before it settles", w.ID, o.ID)
		}
	}
	ln := &line{Kind: KindSettle, Work: w.ID, Outcome: r.Outcome, Text: r.Text, Output: r.Output}
	if deliver {
		ln.Item = l.newItem()
	}
	return l.write(ln)
}

// lastOwed is the latest delivery of work id still owed, or nil.
func (s *State) lastOwed(id string) *Delivery {
	for i := len(s.deliveries) - 1; i >= 0; i-- {
		if d := s.deliveries[i]; d.Work == id {
			if d.Delivered {
				return nil
			}
			return d
		}
	}
	return nil
}

// Report records report r of running agent work from, owed to its owner,
// and returns that delivery. A blocked report marks the work blocked: it
// starts no new work and settles blocked (the Runner ends it).
func (l *Ledger) Report(from string, r Report) (Delivery, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	w, err := l.find(from)
	if err != nil {
		return Delivery{}, err
	}
	switch {
	case w.Type == TypeShell:
		return Delivery{}, refused("%s is a shell job: only an agent reports to its parent", from)
	case !w.Live():
		return Delivery{}, refused("%s is %s: only running work reports", from, w.describe())
	}
	ln := &line{Kind: KindReport, Work: from, Item: l.newItem(), Title: r.Title, Message: r.Message, Blocked: r.Blocked}
	if err := l.write(ln); err != nil {
		return Delivery{}, err
	}
	return *l.st.items[ln.Item], nil
}

// Stop records a stop of all work (ordering 8) and returns the live work
// the caller is to cancel (held work aside). From here to the next
// UserTurn, what is delivered does not wake its owner.
func (l *Ledger) Stop() ([]Work, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.st.stopped {
		if err := l.write(&line{Kind: KindStop}); err != nil {
			return nil, err
		}
	}
	var out []Work
	for _, w := range l.st.works {
		if w.Live() && !w.Held {
			out = append(out, w.copy())
		}
	}
	return out, nil
}

// UserTurn records that a user turn began: automatic continuation is on
// again. It writes nothing when it was not stopped.
func (l *Ledger) UserTurn() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.st.stopped {
		return nil
	}
	return l.write(&line{Kind: KindResume})
}
