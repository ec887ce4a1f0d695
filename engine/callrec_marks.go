package engine

import (
	"context"
	"fmt"

	"cairn/engine/internal/changes"
	"cairn/internal/usermsg"
)

// The off and start lines a recorded call or file tool writes when
// recording turns off or on, and the notice of calls run unrecorded
// (callrec.go records the calls).

// recordMarks is the start or off line a call writes before its own
// lines: off when recording is off, the newest mark is not off and the
// session holds a record (a change line or a record line); start, why
// "enabled", when it is on and the newest mark is off. A session's first
// record writes no start line: with none, its records reach back to its
// first one, and a start line would refuse a revert to the prompt before
// it.
func (s *Session) recordMarks(on bool) []any {
	mark := s.snaps.recs.Mark
	now := mkTime(s.ws.s.Now())
	switch {
	case !on && mark != changes.KindOff && s.snaps.Seq() == 0 && s.snaps.recs.Seq == 0:
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

// fileToolMarks writes, for a file-tool call about to run (under
// snaps.mu), the off line when change recording is off and the start line
// when it comes back on, as recordCall does for other calls: a file revert
// cannot reach back across a time recording was off, whichever calls ran
// in it. A session that never had recording off writes none (its records
// reach back to its first change line). Lazy and best effort: the lines
// ride with the change line's sync, or Close's.
func (s *Session) fileToolMarks(ctx context.Context) {
	cfg, err := s.config()
	if err != nil {
		return
	}
	on := cfg.Storage.RecordingEnabled && !s.opts.NoSnapshots
	mark := s.snaps.recs.Mark
	if on && mark != changes.KindOff {
		return
	}
	lines := s.recordMarks(on)
	if len(lines) == 0 || s.snapReady(ctx) != nil {
		return
	}
	if err := s.writeChanges(lazy, lines...); err != nil {
		return
	}
	s.wroteMarks(lines)
}

// wroteMarks folds the start or off lines just written.
func (s *Session) wroteMarks(lines []any) {
	for _, l := range lines {
		if m, ok := l.(changes.MarkLine); ok {
			s.snaps.recs.Mark = m.Kind
		}
	}
}

// tellOnce shows msg once per session for reason why (under snaps.mu).
func (s *Session) tellOnce(why, msg string) {
	c := &s.calls
	if c.told == nil {
		c.told = map[string]bool{}
	}
	seen := c.told[why]
	c.told[why] = true
	if !seen {
		s.notice(msg)
	}
}

// unrecordedText is the notice of a call run without a record.
func unrecordedText(tool string, r *errRefusedRecord) string {
	var why string
	switch r.why {
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
		why = r.why
	}
	if r.err != nil && r.why != changes.WhyMaxFiles && r.why != changes.WhyMaxBytes {
		why += " (" + usermsg.Error(r.err) + ")"
	}
	return fmt.Sprintf("%s calls run without a change record: %s; a file revert across them cannot undo their changes", tool, why)
}
