package engine

import (
	"encoding/json"
	"fmt"

	"cairn/engine/internal/changes"
)

// Cancelling an undo or redo step that changed no file, with the opposite
// line. Until the cancellation is in the journal, its line says the step
// was made while the files say it was not: a new change would then end
// the undone branch, and with it the only record of a change the files
// still hold. So a cancellation that cannot be written is owed, and is
// written before any other line: at the start of the next file tool,
// change, undo, redo or restore-to (payCancels, which refuses that call
// while it cannot). Meanwhile the stack is what the journal says, as a
// reader sees it, and no close line is written: an owner that opens the
// session next finishes the step (finishRestore), which agrees with it.

// cancel writes lines, the cancellations of steps that changed no file,
// after those still owed. The caller holds st.mu.
func (s *Session) cancel(lines ...any) error {
	st := &s.snaps
	st.wmu.Lock()
	st.cancels = append(st.cancels, lines...)
	st.wmu.Unlock()
	return s.payCancels()
}

// payCancels writes the owed cancellations, oldest first, and brings the
// stack to what the journal then says. What it could not write stays
// owed, and it says why. The caller holds st.mu.
func (s *Session) payCancels() error {
	st := &s.snaps
	st.wmu.Lock()
	owed := st.cancels
	st.wmu.Unlock()
	if len(owed) == 0 {
		return nil
	}
	var err error
	for len(owed) > 0 {
		if err = s.writeChanges(synced, owed[0]); err != nil {
			break
		}
		// The stack folds the line as a reader of the journal does.
		b, _ := json.Marshal(owed[0])
		if l, err := changes.Decode(b); err == nil {
			st.Fold(l)
		}
		owed = owed[1:]
	}
	if err != nil {
		st.refold(s) // the truth, whatever reached the journal
		if reached(&st.Stack, owed[0]) {
			owed = owed[1:] // it reached the journal before the failure
		}
	}
	st.wmu.Lock()
	st.cancels = owed
	st.wmu.Unlock()
	if err != nil && len(owed) > 0 {
		return fmt.Errorf("engine: the cancellation of an undo or redo that changed no file is not recorded yet (it goes before the next line of the changes journal): %w", err)
	}
	return nil
}

// reached reports whether the journal, folded into st, holds cancellation
// line l (or no longer has its snapshot).
func reached(st *changes.Stack, l any) bool {
	var id string
	var applied bool
	switch l := l.(type) {
	case changes.EventLine: // a redo cancels an undo
		id, applied = l.ID, true
	case changes.UndoLine: // an undo cancels a redo
		id, applied = l.ID, false
	default:
		return false
	}
	i := st.Find(id)
	return i < 0 || st.Entries()[i].Applied == applied
}
