// Package retention holds the keep rules of cairn's retention policies:
// which sessions a trim or a forget keeps. It is pure: it reads no file
// and keeps no state, so the CLI's dry runs and embedders can ask it what
// a policy would do.
//
// # Words
//
// A Candidate is one session as a policy sees it: its id, its activity
// (the later of its last write and its last open), and the flags that keep
// it whatever the policy says (pinned, open by an owner, a pending file
// revert, activity dated in the future). A Decision is the answer for one
// candidate: kept or not, and every reason.
//
// # Rules
//
// A Policy speaks restic forget's vocabulary with restic's semantics
// (Apply): keep_last N; keep_hourly, keep_daily, keep_weekly,
// keep_monthly, keep_yearly N (the newest candidate of each of the last N
// periods that hold any; -1 unlimited); keep_within D (every candidate
// active within D of the newest activity); keep_within_hourly ...
// keep_within_yearly D (one per period within D). Periods are cut in a
// given location at natural boundaries: hours on the hour, days at
// midnight, ISO weeks from Monday. Durations are y, m, d and h parts
// ("2y5m7d3h"); "w" is refused with a message saying to write 7d. The
// oldest candidate is kept by every period rule with room left, as in
// restic. Reasons use restic's words without its "snapshot": "last",
// "daily", "oldest yearly", "within 90d", "daily within 7d".
//
// Decide adds what cairn adds: the always-kept flags, and an empty policy
// that keeps everything ("no policy") where restic's keeps nothing.
//
// The oracle is restic's own TestApplyPolicy table, vendored under
// testdata/restic-policy with restic's licence (BSD 2-Clause, in
// LICENSE-restic there; its README says where it came from): all 40 cases pass
// through Apply (restic_test.go).
//
// It imports only the standard library; engine imports it, never the
// reverse.
package retention
