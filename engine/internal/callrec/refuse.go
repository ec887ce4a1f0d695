package callrec

import (
	"errors"
	"fmt"
	"syscall"

	"cairn/engine/internal/changes"
	"cairn/internal/timefmt"
	"cairn/internal/usermsg"
)

// Refused is a record the store refuses: the call runs without one. Why is
// a changes.Why* reason; Err what caused it, when anything did.
type Refused struct {
	Why string
	Err error
}

func (e *Refused) Error() string {
	if e.Err != nil {
		return e.Why + ": " + e.Err.Error()
	}
	return e.Why
}

// Refusal is the store's refusal in err (a full disk), or nil.
func Refusal(err error) *Refused {
	var r *Refused
	if errors.As(err, &r) {
		return r
	}
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return &Refused{Why: changes.WhyFull, Err: err}
	}
	return nil
}

// UnrecordedText is the notice of a call of tool run without a record.
func UnrecordedText(tool string, r *Refused) string {
	var why string
	switch r.Why {
	case changes.WhyDisabled:
		why = "change recording is off (--no-snapshots or storage.snapshots.enabled)"
	case changes.WhyStateFolder:
		why = "the workspace contains cairn's state folder, so it records nothing"
	case changes.WhyMaxFiles:
		why = "the record would cover more files than storage.snapshots.max_files"
	case changes.WhyMaxBytes:
		why = "the record would cover more data than storage.snapshots.max_bytes_mb"
	case changes.WhyFull:
		why = "the change store is full"
	default:
		why = r.Why
	}
	if r.Err != nil && r.Why != changes.WhyMaxFiles && r.Why != changes.WhyMaxBytes {
		why += " (" + usermsg.Error(r.Err) + ")"
	}
	return fmt.Sprintf("%s calls run without a change record: %s; a file revert across them cannot undo their changes", tool, why)
}

// Marks is the start or off line a call writes before its own lines,
// given the newest mark of the journal (recs.Mark) and whether the session
// holds any record yet: off when recording is off, the newest mark is not
// off and the session holds a record (a change line or a record line);
// start, why "enabled", when it is on and the newest mark is off. A
// session's first record writes no start line: with none, its records
// reach back to its first one, and a start line would refuse a revert to
// the prompt before it.
func Marks(on bool, mark string, anyRecord bool, now timefmt.Time) []any {
	switch {
	case !on && mark != changes.KindOff && !anyRecord:
		// No record yet: nothing a revert could reach back to, and the
		// first record writes a start line.
		return nil
	case !on && mark != changes.KindOff:
		return []any{changes.MarkLine{V: 1, Kind: changes.KindOff, At: now}}
	case on && mark == changes.KindOff:
		return []any{changes.MarkLine{V: 1, Kind: changes.KindStart, At: now, Why: "enabled"}}
	}
	return nil
}

// WroteMarks folds the start or off lines just written into recs.
func WroteMarks(recs *changes.Records, lines []any) {
	for _, l := range lines {
		if m, ok := l.(changes.MarkLine); ok {
			recs.Mark = m.Kind
		}
	}
}
