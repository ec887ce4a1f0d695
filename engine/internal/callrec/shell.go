package callrec

import (
	"cairn/engine/internal/bgwork"
	"cairn/engine/internal/execpolicy"
)

// ShellOptions change how a shell call runs (engine Session.Shell).
type ShellOptions struct {
	ExecOptions
	// TimeoutSecs is the call's timeout, its hard deadline;
	// execpolicy.DefaultTimeoutSecs when 0.
	TimeoutSecs int
	// Use: execpolicy.Persistent (the session stays open to take a receipt's
	// result) or execpolicy.OneShot (auto resolves to sync).
	Use execpolicy.Use
}

// ShellAnswer is what a shell call answered: Exec when it waited, Receipt
// when it went on in the background (its end comes through Deliver).
type ShellAnswer struct {
	Exec    *ExecAnswer     `json:"exec,omitempty"`
	Receipt *bgwork.Receipt `json:"receipt,omitempty"`
	// TimedOut: it waited and was killed at its deadline.
	TimedOut bool `json:"timed_out,omitempty"`
}
