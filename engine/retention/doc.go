// Package retention holds the keep rules of cairn's retention policies:
// which sessions a trim or a forget keeps. It is pure: it reads no file
// and keeps no state, so the CLI's dry runs and embedders can ask it what
// a policy would do.
//
// # Words
//
// A Candidate is one session as a policy sees it: its id, its last
// activity, and the flags that keep it whatever the policy says (pinned,
// open by an owner, a pending file revert, activity dated in the future).
// A Decision is the answer for one candidate: kept or not, and why.
//
// The rules themselves (keep_last, keep_hourly ... keep_within_yearly, in
// restic's vocabulary, grouped by directory) are evaluated by a later
// change; today this package holds only the types they work over. The
// oracle for that evaluation is restic's own policy cases, in the
// project's shared test data.
//
// # Rules
//
// It imports only the standard library; engine imports it, never the
// reverse.
package retention
