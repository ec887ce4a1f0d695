package engine

import "cairn/engine/internal/changes"

// fsck of file revert's lines in a changes journal (revert, reverted,
// unrevert, unreverted, overlap; package changes, timeline.go, overlap.go):
// each must fold into the journal's timeline — a revert line well formed,
// a "reverted" naming a revert the journal holds, an unrevert naming the
// stack of reverts, an overlap line well formed.
// The undo stack's fold, which fsck checks too, passes over them.

// revertFsck folds a changes journal's lines into a timeline and says why
// a file revert line does not fit ("" when it does, or is not one).
type revertFsck struct{ tl changes.Timeline }

func (r *revertFsck) check(l *changes.Line) string {
	if l == nil {
		return "" // not a line: the undo stack's fold names it
	}
	err := r.tl.Fold(l)
	if err == nil {
		return ""
	}
	switch l.Kind {
	case changes.KindRevert, changes.KindReverted, changes.KindUnrevert, changes.KindUnreverted, changes.KindOverlap:
		return err.Error()
	}
	return "" // the undo stack's fold names the others
}
