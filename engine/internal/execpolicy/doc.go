// Package execpolicy decides how a task call or a shell call runs: waited
// for until it settles, or admitted with a receipt while the work goes on
// in the background. It is pure: it reads no file and keeps no state; the
// engine parses the policy from config.json and asks it per call.
//
// # Modes
//
// config.json's "agent" section sets the mode of tasks and of shell calls
// apart, each one of "sync", "auto" (the default) or "async" (part of the
// format), and the threshold of shell auto:
//
//	{"agent": {"task_execution": "auto", "shell_execution": "auto", "shell_async_threshold_secs": 120}}
//
//	mode   tasks                                      shell calls
//	sync   wait; no background launch or promotion    wait for the command to end
//	auto   wait, unless the call says background:     a receipt when the requested timeout is over
//	       true; a running task can be promoted       the threshold, else wait
//	async  a receipt for every admitted task          a receipt for every admitted command
//
// A shell call that gives no timeout asks for DefaultTimeoutSecs (120).
// The threshold measures the requested timeout, never the time a command
// takes: with the default threshold, 120 waits and 121 returns a receipt
// even when the command ends at once. The threshold never changes the hard
// deadline, which is always the requested timeout. Shell calls have no
// background argument of their own.
//
// # Use
//
// A receipt needs someone to deliver the result to later. A persistent use
// (the REPL, an embedding runtime's open session) has one; a one-shot use
// (each plumbing command, cairn mcp unless it says otherwise) has not, so
// there auto resolves to sync, and strict async withholds the tool: a call
// is refused with ErrWithheld, and nothing runs.
//
// # Receipts
//
// A receipt is a recorded admission, never a success: the work's outcome
// is delivered later (package bgwork keeps the record).
package execpolicy
