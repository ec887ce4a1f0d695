package changes

import (
	"encoding/json"
	"fmt"
)

// Cancelling an undo or redo step that changed no file, with the opposite
// line. Until the cancellation is in the journal, its line says the step
// was made while the files say it was not: a new change would then end
// the undone branch, and with it the only record of a change the files
// still hold. So a cancellation that cannot be written is owed, and is
// written before any other line: at the start of the next file tool,
// change, undo, redo or restore-to (PayCancels, which refuses that call
// while it cannot). Meanwhile the stack is what the journal says, as a
// reader sees it, and no close line is written: an owner that opens the
// session next finishes the step, which agrees with it.

// Cancel writes lines, the cancellations of steps that changed no file,
// after those still owed, folding them into st (PayCancels). The caller
// holds the lock that guards st.
func (wr *Writer) Cancel(j Journal, st *Stack, refold func(), lines ...any) error {
	wr.mu.Lock()
	wr.cancels = append(wr.cancels, lines...)
	wr.mu.Unlock()
	return wr.PayCancels(j, st, refold)
}

// PayCancels writes the owed cancellations, oldest first, and brings st to
// what the journal then says (after a failed write, refold reads it
// again into st). What it could not write stays owed, and it says why.
// The caller holds the lock that guards st.
func (wr *Writer) PayCancels(j Journal, st *Stack, refold func()) error {
	wr.mu.Lock()
	owed := wr.cancels
	wr.mu.Unlock()
	if len(owed) == 0 {
		return nil
	}
	var err error
	for len(owed) > 0 {
		if err = wr.Write(j, Synced, nil, owed[0]); err != nil {
			break
		}
		// The stack folds the line as a reader of the journal does.
		b, _ := json.Marshal(owed[0])
		if l, err := Decode(b); err == nil {
			st.Fold(l)
		}
		owed = owed[1:]
	}
	if err != nil {
		refold() // the truth, whatever reached the journal
		if reached(st, owed[0]) {
			owed = owed[1:] // it reached the journal before the failure
		}
	}
	wr.mu.Lock()
	wr.cancels = owed
	wr.mu.Unlock()
	if err != nil && len(owed) > 0 {
		return fmt.Errorf("engine: the cancellation of an undo or redo that changed no file is not recorded yet (it goes before the next line of the changes journal): %w", err)
	}
	return nil
}

// reached reports whether the journal, folded into st, holds cancellation
// line l (or no longer has its snapshot).
func reached(st *Stack, l any) bool {
	var id string
	var applied bool
	switch l := l.(type) {
	case EventLine: // a redo cancels an undo
		id, applied = l.ID, true
	case UndoLine: // an undo cancels a redo
		id, applied = l.ID, false
	default:
		return false
	}
	i := st.Find(id)
	return i < 0 || st.Entries()[i].Applied == applied
}
