package execpolicy

import (
	"errors"
	"fmt"
	"time"
)

// Mode is how one kind of call runs. The values are part of the format
// (config.json).
type Mode string

// The modes.
const (
	Sync  Mode = "sync"
	Auto  Mode = "auto"
	Async Mode = "async"
)

// Defaults and bounds, in seconds. DefaultTimeoutSecs and
// DefaultThresholdSecs are the seed's numbers.
const (
	// DefaultTimeoutSecs is a shell call's timeout when it gives none.
	DefaultTimeoutSecs = 120
	// DefaultThresholdSecs is agent.shell_async_threshold_secs unset.
	DefaultThresholdSecs = 120
	// MaxSecs bounds a timeout and the threshold: one week.
	MaxSecs = 7 * 24 * 3600
)

// Errors of the package. ErrBadMode and ErrBadTimeout say the input is
// wrong; ErrWithheld, ErrNoBackground and ErrNoPromotion say the policy
// refuses a call that is well formed.
var (
	ErrBadMode      = errors.New(`execpolicy: a mode is "sync", "auto" or "async"`)
	ErrBadTimeout   = fmt.Errorf("execpolicy: a timeout is a whole number of seconds from 1 to %d", MaxSecs)
	ErrWithheld     = errors.New("execpolicy: async execution needs a session that stays open to deliver results: use sync or auto here, or the REPL")
	ErrNoBackground = errors.New("execpolicy: task_execution is sync: a task cannot run in the background")
	ErrNoPromotion  = errors.New("execpolicy: only task auto promotes a running task to the background")
)

// ParseMode reads a mode as config.json spells it.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case Sync, Auto, Async:
		return m, nil
	}
	return "", fmt.Errorf("%w, not %q", ErrBadMode, s)
}

// Policy is the agent section of config.json.
type Policy struct {
	Task          Mode
	Shell         Mode
	ThresholdSecs int
}

// Check reports what is wrong with p, or nil.
func (p Policy) Check() error {
	for _, m := range []Mode{p.Task, p.Shell} {
		if _, err := ParseMode(string(m)); err != nil {
			return err
		}
	}
	return CheckSecs(p.ThresholdSecs)
}

// CheckSecs refuses a timeout or threshold that is not 1 to MaxSecs.
func CheckSecs(n int) error {
	if n < 1 || n > MaxSecs {
		return fmt.Errorf("%w (got %d)", ErrBadTimeout, n)
	}
	return nil
}

// Default is the policy with nothing configured: auto, auto, 120.
func Default() Policy {
	return Policy{Task: Auto, Shell: Auto, ThresholdSecs: DefaultThresholdSecs}
}

// Use says whether there is a session left open to take a receipt's result.
type Use int

const (
	// Persistent: the REPL or an embedding runtime's open session.
	Persistent Use = iota
	// OneShot: one plumbing command, or cairn mcp unless told otherwise.
	OneShot
)

// Effective is the policy a use runs under: one-shot resolves auto to sync.
func (p Policy) Effective(u Use) Policy {
	if u == OneShot {
		if p.Task == Auto {
			p.Task = Sync
		}
		if p.Shell == Auto {
			p.Shell = Sync
		}
	}
	return p
}

// Decision is how one call runs.
type Decision struct {
	// Receipt: answer at once with an admission receipt; the work goes on
	// and its result is delivered later. Otherwise the caller waits.
	Receipt bool
	// Deadline is a shell call's hard deadline: its requested timeout,
	// whatever the mode. Zero for a task.
	Deadline time.Duration
	// Why says which rule decided, for a notice or a test.
	Why string
}

// TaskCall decides a task call; background is the call's background argument.
func (p Policy) TaskCall(u Use, background bool) (Decision, error) {
	e := p.Effective(u)
	switch e.Task {
	case Sync:
		if background {
			return Decision{}, ErrNoBackground
		}
		return Decision{Why: "task sync: waits"}, nil
	case Auto:
		if background {
			return Decision{Receipt: true, Why: "task auto: background: true"}, nil
		}
		return Decision{Why: "task auto: waits unless background: true"}, nil
	case Async:
		if u == OneShot {
			return Decision{}, ErrWithheld
		}
		return Decision{Receipt: true, Why: "task async: a receipt for every task"}, nil
	}
	return Decision{}, fmt.Errorf("%w, not %q", ErrBadMode, e.Task)
}

// ShellCall decides a shell call that asks for timeoutSecs (DefaultTimeoutSecs
// when the call gives none).
func (p Policy) ShellCall(u Use, timeoutSecs int) (Decision, error) {
	if err := CheckSecs(timeoutSecs); err != nil {
		return Decision{}, err
	}
	d := Decision{Deadline: time.Duration(timeoutSecs) * time.Second}
	e := p.Effective(u)
	switch e.Shell {
	case Sync:
		d.Why = "shell sync: waits"
	case Auto:
		if err := CheckSecs(e.ThresholdSecs); err != nil {
			return Decision{}, err
		}
		d.Receipt = timeoutSecs > e.ThresholdSecs
		rel := map[bool]string{true: ">", false: "<="}[d.Receipt]
		d.Why = fmt.Sprintf("shell auto: timeout %ds %s threshold %ds", timeoutSecs, rel, e.ThresholdSecs)
	case Async:
		if u == OneShot {
			return Decision{}, ErrWithheld
		}
		d.Receipt, d.Why = true, "shell async: a receipt for every command"
	default:
		return Decision{}, fmt.Errorf("%w, not %q", ErrBadMode, e.Shell)
	}
	return d, nil
}

// Promote says whether a running agent task may be moved to the
// background: only under task auto, in a persistent use.
func (p Policy) Promote(u Use) error {
	if p.Effective(u).Task != Auto {
		return ErrNoPromotion
	}
	return nil
}

// Offer is what the tools a runtime shows the model follow from the
// effective policy.
type Offer struct {
	// TaskTool and ShellTool: the tool is offered (strict async withholds
	// it in a one-shot use).
	TaskTool, ShellTool bool
	// BackgroundArg: the task tool takes background: true (task auto).
	BackgroundArg bool
	// Promotion: task_control offers the background action.
	Promotion bool
}

// Offers is what a runtime offers under p in use u.
func (p Policy) Offers(u Use) Offer {
	e := p.Effective(u)
	withheld := func(m Mode) bool { return u == OneShot && m == Async }
	return Offer{
		TaskTool:      !withheld(e.Task),
		ShellTool:     !withheld(e.Shell),
		BackgroundArg: e.Task == Auto,
		Promotion:     e.Task == Auto,
	}
}
