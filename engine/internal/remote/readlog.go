package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
)

// readLogs reads the log entries other machines wrote since the last
// read: one listing of machines/ (a key per machine, not per session),
// then only the heads that changed and the entries past what was read.
// What they name is noted in the state (cards, pending segments,
// forgets); nothing is downloaded but the entries.
func (s *Syncer) readLogs(ctx context.Context) (int, error) {
	type change struct {
		machine string
		e       Entry
	}
	var changed []change
	err := s.Bucket.List(ctx, machinesPref, func(e Entry) error {
		m := strings.TrimSuffix(strings.TrimPrefix(e.Key, machinesPref), ".json")
		if m == s.Machine || !validName(m) || !strings.HasSuffix(e.Key, ".json") {
			return nil
		}
		if ms := s.st.Machines[m]; ms != nil && headSame(ms, e) {
			return nil
		}
		changed = append(changed, change{m, e})
		return nil
	})
	if err != nil {
		return 0, err
	}
	read := 0
	for _, c := range changed {
		data, _, err := s.Bucket.Get(ctx, machineKey(c.machine))
		if err != nil {
			return read, err
		}
		var head machineHead
		if err := json.Unmarshal(data, &head); err != nil {
			s.note("the head of machine %s cannot be read (%v): its log is passed over", c.machine, err)
			continue
		}
		ms := s.st.Machines[c.machine]
		if ms == nil {
			ms = &MachineState{}
			s.st.Machines[c.machine] = ms
		}
		if head.Seq < ms.Seq {
			s.note("machine %s's head went back from %d to %d: read on from %d", c.machine, ms.Seq, head.Seq, ms.Seq)
		}
		from := ms.Seq + 1
		n := int(max(head.Seq-ms.Seq, 0))
		entries := make([]*logEntry, n)
		err = s.each(ctx, n, func(ctx context.Context, i int) error {
			data, _, err := s.Bucket.Get(ctx, logKey(c.machine, from+int64(i)))
			if errors.Is(err, ErrNotFound) {
				return nil // a number a cut push skipped
			}
			if err != nil {
				return err
			}
			var le logEntry
			if err := json.Unmarshal(data, &le); err != nil {
				s.note("log entry %d of machine %s cannot be read (%v): passed over", from+int64(i), c.machine, err)
				return nil
			}
			entries[i] = &le
			return nil
		})
		if err != nil {
			return read, err
		}
		for _, le := range entries {
			if le != nil {
				s.takeEntry(c.machine, ms, le)
				read++
			}
		}
		ms.Seq = max(ms.Seq, head.Seq)
		ms.Size, ms.ModTime, ms.MD5 = c.e.Size, c.e.ModTime, c.e.MD5
	}
	return read, nil
}

// headSame reports whether a machine's head is as it was when read last.
// A listing's time may be whole seconds and a head rewritten within one
// keeps its size (only its number and time change), so size and time
// alone would miss it: the MD5 must match too, and a listing without one
// has the head read again (one small read per machine).
func headSame(ms *MachineState, e Entry) bool {
	return ms.Size == e.Size && ms.ModTime.Equal(e.ModTime) && len(e.MD5) > 0 && bytes.Equal(ms.MD5, e.MD5)
}

// takeEntry notes what one log entry says.
func (s *Syncer) takeEntry(machine string, ms *MachineState, le *logEntry) {
	for _, ls := range le.Sessions {
		if !validID(ls.ID) {
			continue
		}
		s.st.touch(ls.ID)
		if ls.Card != nil {
			c := *ls.Card
			c.ID, c.Machine = ls.ID, machine
			if old := s.st.Cards[ls.ID]; old == nil || old.UpdatedAt <= c.UpdatedAt {
				s.st.Cards[ls.ID] = &c
			}
		}
		for _, seg := range ls.Segments {
			if validFile(seg.File) && seg.Off >= 0 && seg.Size > 0 {
				s.st.Pending[ls.ID] = append(s.st.Pending[ls.ID], seg)
			}
		}
		for _, o := range ls.Outputs {
			if validName(o) {
				s.st.Pending[ls.ID] = append(s.st.Pending[ls.ID], Segment{File: outputMark + o})
			}
		}
	}
	ms.PendingUsage = append(ms.PendingUsage, le.Usage...)
	for _, id := range le.Forgets {
		s.st.touch(id)
		s.st.Forgotten[id] = true
		delete(s.st.Pending, id)
	}
}
