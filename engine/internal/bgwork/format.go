package bgwork

import "cairn/internal/timefmt"

// Line kinds of the journal. Part of the format.
const (
	KindAdmit     = "admit"
	KindContinue  = "continue"
	KindPromote   = "promote"
	KindPause     = "pause"
	KindCancel    = "cancel"
	KindReport    = "report"
	KindSettle    = "settle"
	KindDelivered = "delivered"
	KindStop      = "stop"
	KindResume    = "resume"
	KindRemind    = "remind"
)

// Work types. Part of the format.
const (
	TypeTask     = "task"     // a sub-agent with a transcript
	TypeShell    = "shell"    // a background shell job
	TypeWorkflow = "workflow" // a workflow run, named by a word id
)

// Work states, as Work.State. Part of the answers of List and Status.
const (
	StateRunning    = "running"
	StateCancelling = "cancelling"
	StatePaused     = "paused"
	StateSettled    = "settled"
)

// Outcomes of a settled run. Part of the format.
const (
	Succeeded   = "succeeded"
	Failed      = "failed"
	Cancelled   = "cancelled"
	Interrupted = "interrupted"
	Blocked     = "blocked" // a blocked report ended it
)

// Delivery kinds.
const (
	DeliverResult = "result"
	DeliverReport = "report"
	// DeliverReminder is a background-work reminder for the session
	// (reminder.go); it never wakes its owner.
	DeliverReminder = "reminder"
)

// line is one line of the journal; which fields a kind uses is drawn in
// doc.go.
type line struct {
	V       int          `json:"v"`
	Kind    string       `json:"kind"`
	Work    string       `json:"work,omitempty"`
	Type    string       `json:"type,omitempty"`
	Owner   string       `json:"owner,omitempty"`
	Call    string       `json:"call,omitempty"`
	Label   string       `json:"label,omitempty"`
	Receipt bool         `json:"receipt,omitempty"`
	Held    bool         `json:"held,omitempty"`
	Outcome string       `json:"outcome,omitempty"`
	Text    string       `json:"text,omitempty"`
	Output  string       `json:"output,omitempty"`
	Item    string       `json:"item,omitempty"`
	Title   string       `json:"title,omitempty"`
	Message string       `json:"message,omitempty"`
	Blocked bool         `json:"blocked,omitempty"`
	Turn    int          `json:"turn,omitempty"`
	At      timefmt.Time `json:"at"`
}

func validOutcome(o string) bool {
	switch o {
	case Succeeded, Failed, Cancelled, Interrupted, Blocked:
		return true
	}
	return false
}

func validType(t string) bool {
	switch t {
	case TypeTask, TypeShell, TypeWorkflow:
		return true
	}
	return false
}
