package bgwork

import (
	"fmt"
	"strings"
	"time"

	"cairn/engine/ids"
)

// Admission is what a call asks to start.
type Admission struct {
	// ID is the work's id (ids.Valid), unique in the ledger; "" for a
	// workflow, which gets a word id (WorkflowID), or a held shell job,
	// which gets one from its line (ids.ShellLabel).
	ID   string
	Type string // TypeTask, TypeShell or TypeWorkflow
	// Owner is the agent it reports to: "" for the session, or the id of
	// the running child task that starts it.
	Owner string
	Call  string // the tool_call item that starts it
	Label string
	// Background: the call is answered with a receipt now and the result
	// delivered later; otherwise the caller waits for it.
	Background bool
	// Held: it belongs to the session, not to this process (the
	// plumbing); a later Open does not interrupt it.
	Held bool
	// Turn is how many turns the session had ended when it was admitted:
	// where a periodic reminder of it counts from (reminder.go).
	Turn int
}

// Receipt is a recorded admission, never a success.
type Receipt struct {
	Work       string    `json:"task_id"`
	Type       string    `json:"type"`
	Call       string    `json:"call,omitempty"`
	Background bool      `json:"background"`
	At         time.Time `json:"at"`
}

// maxLabel is the most bytes of a label kept: one line.
const maxLabel = 200

// Admit records the admission of a; the work may start once it returns.
func (l *Ledger) Admit(a Admission) (Receipt, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !validType(a.Type) {
		return Receipt{}, fmt.Errorf("%w: work type %q", ErrInvalid, a.Type)
	}
	if a.Type == TypeWorkflow && a.ID == "" {
		a.ID = WorkflowID(l.opt.Rand, func(id string) bool { return l.st.by[id] != nil })
	}
	if a.Type == TypeShell && a.Held && a.ID == "" {
		a.ID = ids.Unique(ids.ShellLabel(a.Label), func(id string) bool { return l.st.by[id] != nil })
	}
	if !ids.Valid(a.ID) {
		return Receipt{}, fmt.Errorf("%w: %q is not a task id", ErrInvalid, a.ID)
	}
	if l.st.by[a.ID] != nil {
		return Receipt{}, refused("%s exists already: continue it, or give the new work another id", a.ID)
	}
	if err := l.ownerTakes(a.Owner); err != nil {
		return Receipt{}, err
	}
	if err := l.room(); err != nil {
		return Receipt{}, err
	}
	ln := &line{Kind: KindAdmit, Work: a.ID, Type: a.Type, Owner: a.Owner, Call: a.Call, Label: oneLine(a.Label, maxLabel),
		Receipt: a.Background, Held: a.Held, Turn: a.Turn}
	if err := l.write(ln); err != nil {
		return Receipt{}, err
	}
	return Receipt{Work: a.ID, Type: a.Type, Call: a.Call, Background: a.Background, At: ln.At.Time}, nil
}

// ownerTakes refuses an owner that cannot own new work: one that is not
// running agent work (a shell job owns nothing), or is cancelling or
// blocked.
func (l *Ledger) ownerTakes(owner string) error {
	if owner == "" {
		return nil
	}
	o := l.st.by[owner]
	switch {
	case o == nil:
		return fmt.Errorf("%w: owner %q", ErrNotFound, owner)
	case o.Type == TypeShell:
		return refused("%s is a shell job: it owns no work", owner)
	case o.State != StateRunning || o.Blocked:
		return refused("%s is %s: it starts no new work", owner, o.describe())
	}
	return nil
}

// room refuses an admission over MaxLive.
func (l *Ledger) room() error {
	if l.opt.MaxLive > 0 && l.st.Live() >= l.opt.MaxLive {
		return refused("%d pieces of work are running, the most admitted at once; wait for one to settle", l.opt.MaxLive)
	}
	return nil
}

// describe is w's state in words.
func (w *Work) describe() string {
	switch {
	case w.State == StateSettled:
		return "settled (" + w.Outcome + ")"
	case w.Blocked:
		return "blocked"
	}
	return w.State
}

// Continue runs settled agent task id again from its saved history, or a
// paused workflow, under the same id, started by call. Running or
// cancelling work cannot be resumed, nor can a shell job or an
// interrupted task.
func (l *Ledger) Continue(id, call string, background bool) (Receipt, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	w, err := l.find(id)
	if err != nil {
		return Receipt{}, err
	}
	switch {
	case w.Type == TypeShell:
		return Receipt{}, refused("%s is a shell job: shell jobs are never resumed; run a new command", id)
	case w.Live():
		return Receipt{}, refused("%s is %s: only settled work can be continued", id, w.describe())
	case w.Type == TypeWorkflow && w.State != StatePaused:
		return Receipt{}, refused("workflow %s is %s: only a paused workflow is resumed", id, w.describe())
	case w.Outcome == Interrupted:
		return Receipt{}, refused("%s was interrupted (its outcome is unknown) and is never resumed; start new work", id)
	}
	if err := l.ownerTakes(w.Owner); err != nil {
		return Receipt{}, err
	}
	if err := l.room(); err != nil {
		return Receipt{}, err
	}
	ln := &line{Kind: KindContinue, Work: id, Call: call, Receipt: background}
	if err := l.write(ln); err != nil {
		return Receipt{}, err
	}
	return Receipt{Work: id, Type: w.Type, Call: call, Background: background, At: ln.At.Time}, nil
}

// find is the work of id, or an error saying why there is none.
func (l *Ledger) find(id string) (*Work, error) {
	if !ids.Valid(id) {
		return nil, fmt.Errorf("%w: %q is not a task id", ErrInvalid, id)
	}
	w := l.st.by[id]
	if w == nil {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	return w, nil
}

// Promote moves running agent task id, whose caller waits for it, to the
// background without restarting it: its caller gets a receipt and its
// result is delivered. Whether the policy allows it (task auto) is the
// caller's to check. Shell jobs are never promoted.
func (l *Ledger) Promote(id string) (Receipt, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	w, err := l.find(id)
	if err != nil {
		return Receipt{}, err
	}
	switch {
	case w.Type != TypeTask:
		return Receipt{}, refused("%s is a %s: only an agent task is moved to the background", id, typeWord(w.Type))
	case w.State != StateRunning:
		return Receipt{}, refused("%s is %s: only a running task is moved to the background", id, w.describe())
	case w.Background:
		return Receipt{}, refused("%s runs in the background already", id)
	}
	ln := &line{Kind: KindPromote, Work: id}
	if err := l.write(ln); err != nil {
		return Receipt{}, err
	}
	return Receipt{Work: id, Type: w.Type, Call: w.Calls[len(w.Calls)-1], Background: true, At: ln.At.Time}, nil
}

func typeWord(t string) string {
	if t == TypeShell {
		return "shell job"
	}
	return t
}

// Pause records that running workflow id paused: not running, not
// settled; Continue resumes it under the same id.
func (l *Ledger) Pause(id string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	w, err := l.find(id)
	if err != nil {
		return err
	}
	switch {
	case w.Type != TypeWorkflow:
		return refused("%s is a %s: only a workflow run is paused (cancel stops it)", id, typeWord(w.Type))
	case w.State != StateRunning:
		return refused("workflow %s is %s: only a running workflow is paused", id, w.describe())
	}
	return l.write(&line{Kind: KindPause, Work: id})
}

// oneLine is s on one line (runs of white space made one space), cut to
// at most n bytes at a UTF-8 boundary.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8Start(s[n]) {
		n--
	}
	return s[:n]
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
