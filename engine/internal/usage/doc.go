// Package usage keeps the usage ledger, usage.jsonl at the top of the state
// folder: one line per turn that spent anything. No session owns it and
// retention never touches it, so spend stays visible after sessions are
// gone; an ephemeral run writes to the persistent ledger, labelled
// ephemeral.
//
// # The ledger
//
// Part of the format. A line names its session's turn ("turn":N), which is
// how an open finds a line a crash lost and puts it back from the turn
// line:
//
//	{"v":1,"kind":"usage","at":T,"path":DIR,"session":ID,"model":M,"input_tokens":N,
//	 "output_tokens":N,"cost_usd":X,"ephemeral":true|absent,"turn":N}
//
// A move of a directory's sessions appends
//
//	{"v":1,"kind":"move","at":T,"from":DIR,"to":DIR}
//
// and a reader counts every usage line of DIR before it as the new
// directory's; the lines are never rewritten.
//
// # Words
//
//   - line: a usage line (Line); a sum: the spend of one directory and
//     model (Sum); a skipped line: one no sum counts (Skipped).
//   - queue: a session's lines on their way to the ledger (Queue).
//
// # Locks
//
// Append takes the mutex its caller passes (the store's usage-ledger lock,
// a leaf) while it opens the ledger and appends, and the ledger file's own
// lock for the same span, so that no writer cuts another's line in flight.
// A Queue holds no lock: its owner guards it (Session.mu).
package usage
