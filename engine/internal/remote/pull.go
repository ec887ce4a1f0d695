package remote

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// outputMark marks a pending tool output among a session's segments.
const outputMark = "output:"

// pull reads the log, then brings every session's journals up to what the
// remote holds (objects come on demand when read), then the other
// machines' usage ledgers.
func (s *Syncer) pull(ctx context.Context) error {
	if _, err := s.readLogs(ctx); err != nil {
		s.st.Save(s.Local.FS(), s.Name)
		return err
	}
	ids := make([]string, 0, len(s.st.Pending))
	for id := range s.st.Pending {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	err := s.each(ctx, len(ids), func(ctx context.Context, i int) error {
		return s.pullSession(ctx, ids[i])
	})
	if err == nil {
		err = s.pullUsage(ctx)
	}
	if serr := s.st.Save(s.Local.FS(), s.Name); serr != nil && err == nil {
		err = serr
	}
	return err
}

// pullSession applies the segments pending for session id under its
// ownership here: an owner here (a session open) keeps them pending.
func (s *Syncer) pullSession(ctx context.Context, id string) error {
	s.mu.Lock()
	s.st.touch(id)
	pending := append([]Segment(nil), s.st.Pending[id]...)
	if s.st.Forgotten[id] {
		delete(s.st.Pending, id)
		s.mu.Unlock()
		return nil
	}
	ss := s.st.Sessions[id]
	ws := ""
	if ss != nil {
		ws = ss.WS
	}
	card := s.st.Cards[id]
	s.mu.Unlock()
	if ws == "" {
		if card == nil || card.Path == "" {
			s.skip(id, "the remote's log does not say which directory it belongs to")
			return nil
		}
		var err error
		if ws, err = s.Local.Place(ctx, card.Path); err != nil {
			s.skip(id, fmt.Sprintf("no workspace here for %s: %v", card.Path, err))
			return nil
		}
	}
	release, err := s.Local.Hold(ctx, ws, id)
	if err != nil {
		s.skip(id, fmt.Sprintf("not pulled: %v; the next sync pulls it", err))
		return nil
	}
	defer release()
	s.mu.Lock()
	ss = s.st.session(id, ws)
	files := map[string]FileState{}
	for f, fs := range ss.Files {
		files[f] = *fs
	}
	s.mu.Unlock()

	byFile := map[string][]Segment{}
	var outputs []string
	for _, seg := range pending {
		if o, ok := strings.CutPrefix(seg.File, outputMark); ok {
			outputs = append(outputs, o)
			continue
		}
		byFile[seg.File] = append(byFile[seg.File], seg)
	}
	names := make([]string, 0, len(byFile))
	for f := range byFile {
		names = append(names, f)
	}
	sort.Slice(names, func(i, j int) bool {
		if (names[i] == FileItems) != (names[j] == FileItems) {
			return names[j] == FileItems
		}
		return names[i] < names[j]
	})
	var left []Segment
	wrote := false
	for _, file := range names {
		fs, rest, n, err := s.pullFile(ctx, ws, id, file, files[file], byFile[file])
		if errors.Is(err, ErrConflict) {
			s.skip(id, err.Error())
			s.mu.Lock()
			s.st.Pending[id] = pending
			s.mu.Unlock()
			return nil
		}
		if err != nil {
			return err
		}
		wrote = wrote || n > 0
		left = append(left, rest...)
		s.mu.Lock()
		f := fs
		ss.Files[file] = &f
		s.mu.Unlock()
	}
	for _, o := range outputs {
		if err := s.pullOutput(ctx, ws, id, o); err != nil {
			return err
		}
		s.mu.Lock()
		ss.Outputs[o] = true
		s.mu.Unlock()
	}
	if wrote {
		s.Local.Settle(ctx, ws, id)
		s.mu.Lock()
		s.rep.Pulled.Sessions++
		s.mu.Unlock()
	}
	s.mu.Lock()
	if len(left) > 0 {
		s.st.Pending[id] = left
	} else {
		delete(s.st.Pending, id)
	}
	s.mu.Unlock()
	return nil
}
