// Package bgwork is the ledger of a session's background work: what was
// admitted, how each piece settled, the results and reports owed to the
// agents that own the work, which of them reached their owner, and
// whether automatic continuation is stopped. It is one append-only
// journal with a pure fold, written only by the session's owner, and a
// Runner that runs admitted work in goroutines and settles it.
//
// It knows no session: the engine says where the journal is, gives it
// the owner's conversations as Sinks, and maps its errors. It imports
// engine/ids, engine/internal/errs (ErrPaused), engine/internal/tasks (to list the tasks its records keep:
// Known), journal, internal/timefmt and internal/vfs.
//
// # Words
//
// Work: one task (a sub-agent), shell job or workflow run, named by its
// id (package ids: a task's slug, a shell label, a workflow's word id).
// Its owner is the agent it reports to: the session (owner "") or the
// child task that started it. A child's shell jobs report only to that
// child.
//
// Receipt: the admission of a piece of work, recorded before the work
// starts and before the caller hears of it. A receipt is never a success:
// the outcome comes later, as a result. A call that waits gets its result
// directly and no delivery; a call answered with a receipt gets a
// delivery.
//
// Result: how a run of work settled (succeeded, failed, cancelled,
// interrupted, blocked), with a text and an optional tool output id.
// Report: a child's report_to_parent (CheckReport), delivered to its owner.
//
// Delivery: a result or report owed to an owner, as one item of the
// owner's conversation, under an item id the ledger reserves when it
// records the result or report. Deliveries reach each owner in the order
// they were recorded, exactly once, across a kill -9 of the owner (see
// Ordering).
//
// Known: a task the engine's task records keep (the tasks a "task"
// tool_call starts, with a transcript; the plumbing's, held). The owner
// writes them here too, and Agree puts right what the ledger missed of
// them, so task_control lists, shows and cancels them as any work; their
// results reach their callers as tool_results, so the ledger delivers
// nothing for them.
//
// Live: running or cancelling work; only live work counts against
// Options.MaxLive. Archived: settled work whose deliveries have all been
// made. Archived work stays in the journal (list, status, continue) until
// the session is deleted.
//
// Stopped: after Stop (stop all) and until the next user turn
// (UserTurn), automatic continuation is off: a result or report recorded
// meanwhile is still delivered as an item, but with Wake false, kept, not
// new work that starts a run of the agent.
//
// # Journal (Part of the format)
//
// tasks/<session id>/work.jsonl in the workspace folder (the engine's
// choice of name), one line per event, each with "v":1 and "at":
//
//	{"v":1,"kind":"admit","work":W,"type":"task|shell|workflow","owner":O,"call":C,"label":L,"receipt":true,"held":true,"turn":N,"at":T}
//	{"v":1,"kind":"continue","work":W,"call":C,"receipt":true,"at":T}
//	{"v":1,"kind":"promote","work":W,"at":T}
//	{"v":1,"kind":"pause","work":W,"at":T}
//	{"v":1,"kind":"cancel","work":W,"at":T}
//	{"v":1,"kind":"report","work":W,"item":I,"title":T,"message":M,"blocked":true,"at":T}
//	{"v":1,"kind":"settle","work":W,"outcome":"succeeded|failed|cancelled|interrupted|blocked","text":X,"output":OUT,"item":I,"at":T}
//	{"v":1,"kind":"delivered","item":I,"at":T}
//	{"v":1,"kind":"stop","at":T}
//	{"v":1,"kind":"resume","at":T}
//	{"v":1,"kind":"remind","item":I,"text":X,"turn":N,"at":T}
//
// and the journal's repair line. Absent fields are empty or false: owner
// absent is the session; receipt absent means its caller waits for it;
// held work belongs to the session rather than to the process that
// admitted it (the plumbing, one process per command) and is not
// interrupted when another process opens the ledger. A settle line
// without "item" delivers nothing (its caller waited, or its owner went
// with it). "continue" runs a settled agent task again from its saved
// history, or a paused workflow, under the same id; "promote" moves a
// waited agent task to the background; "cancel" marks work cancelling
// until its settle line. "resume" is the next user turn after a "stop".
// "turn" is how many turns the session had ended: when work was
// admitted, and at a reminder (reminder.go), whose "item" is a delivery
// to the session that wakes nothing.
// A line that makes no sense where it stands (a second admit of an id, a
// settle of settled work) is skipped by the fold and counted.
//
// # Ordering
//
// Every line is synced before the call that wrote it returns, so:
//
//  1. An admit line is durable before the work starts and before the
//     receipt is returned: a receipt always names recorded work. If the
//     line cannot be written, the work does not run.
//  2. A settle or report line, with the item id it reserves, is durable
//     before any delivery of it begins; whatever the result names (a tool
//     output) is the caller's to make durable first.
//  3. A delivery is put into the owner's conversation (Sink.Put) and made
//     durable there (Sink.Sync) before its delivered line is written. So
//     a delivered line never names an item its owner could lose.
//  4. Before it puts an item, Deliver asks the owner whether it already
//     holds it (Sink.Has). After a kill -9 between steps 3 and 4 the item
//     is there without its delivered line: Deliver writes the line and
//     does not put it again. An item that never reached the owner's disk
//     is put, once. Together: exactly once.
//  5. Deliveries to one owner go one batch at a time, in the order their
//     lines were recorded; a batch's items are put in that order and
//     synced once. An owner's journal keeps a prefix of what was written
//     to it, so after a crash the items it holds are a prefix of the
//     batch, and the rest follow them in order.
//  6. A Put or Sync that failed is never taken as done: the batch stays
//     owed, and the ledger delivers nothing more to that owner until it
//     is opened again, when Has decides each item.
//  7. A crash ends every piece of work that was not held: the next Open
//     settles each as interrupted (never run again), delivering that
//     result to its owner unless the owner, a child, was interrupted with
//     it. A child settles only once the work it owns has settled: the
//     Runner cancels and drains a child's jobs before it settles it.
//  8. A stop line is durable before Stop cancels anything, so a late
//     result, however late, is recorded with Wake false, and a resumed
//     session still knows it was stopped until its next user turn.
package bgwork
