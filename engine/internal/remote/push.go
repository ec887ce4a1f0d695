package remote

import (
	"context"
	"errors"
	"path"
	"sort"

	"cairn/objects"
)

// maxSegment is the most a segment holds: a journal's new bytes past it go
// up as several, each cut at a line end.
const maxSegment = 32 << 20

// push sends every session's new journal bytes, the objects they name and
// their new tool outputs, then this machine's usage ledger, then a log
// entry naming it all, then the machine's head. The caller saves the
// state (once a sync, after its pull: it is a cache, and a push whose
// state was not saved is found on the remote next time). Each piece is written
// once under a name of its own (create-if-absent): a push cut short and
// run again finds what it sent there, and says so.
func (s *Syncer) push(ctx context.Context) error {
	sc, err := s.scanChanged(ctx)
	if err != nil {
		return err
	}
	refs := sc.refs
	if sc.full {
		s.pushed = loadPushed(s.Local.FS(), s.Name)
	} else {
		// A push of what changed offers each new object with a
		// create-if-absent write instead of reading the list of every
		// object sent so far.
		s.pushed = &pushedSet{ids: map[objects.ID]bool{}, partial: true}
	}
	entries := make([]*logSession, len(refs))
	err = s.each(ctx, len(refs), func(ctx context.Context, i int) error {
		ls, err := s.pushSession(ctx, refs[i])
		if err != nil {
			return err
		}
		entries[i] = ls
		return nil
	})
	// What went up is recorded even when a later session failed: the log
	// names it, and the state keeps it from being offered again.
	var log logEntry
	for _, ls := range entries {
		if ls != nil {
			log.Sessions = append(log.Sessions, *ls)
		}
	}
	if err == nil {
		var useg []Segment
		useg, err = s.pushUsage(ctx)
		log.Usage = useg
	}
	if len(log.Sessions) > 0 || len(log.Usage) > 0 {
		if lerr := s.writeLog(ctx, &log); lerr != nil && err == nil {
			err = lerr
		}
	}
	if serr := s.pushed.save(s.Local.FS(), s.Name); serr != nil && err == nil {
		err = serr
	}
	s.rep.Pushed.Sessions = len(log.Sessions)
	if err == nil {
		// Only a push that went through moves on in the record: one cut
		// short looks at the same sessions again next time. A session
		// left as it was (a conflict) is looked at again too.
		for _, sk := range s.rep.Skipped {
			for _, r := range refs {
				if r.ID == sk.Session {
					sc.watch[r.ID] = r.WS
				}
			}
		}
		s.st.Changes, s.st.Watch = sc.pos, sc.watch
		if sc.full {
			s.st.Scanned = s.now()
		}
	}
	return err
}

// pushSession sends one session's new bytes. It returns nil when nothing
// was new.
func (s *Syncer) pushSession(ctx context.Context, ref SessionRef) (*logSession, error) {
	s.mu.Lock()
	ss := s.st.session(ref.ID, ref.WS) // reads what the state holds of it
	forgotten := s.st.Forgotten[ref.ID]
	files := map[string]FileState{}
	for f, fs := range ss.Files {
		files[f] = *fs
	}
	s.mu.Unlock()
	if forgotten || unchanged(ref, files) {
		return nil, nil
	}
	names := append([]string{}, sessionFiles...)
	names = append(names, s.taskFiles(ref)...)
	// The items journal goes last, as on a pull.
	sort.SliceStable(names, func(i, j int) bool { return names[j] == FileItems && names[i] != FileItems })
	ls := &logSession{ID: ref.ID}
	for _, file := range names {
		fs := files[file]
		segs, nfs, err := s.pushFile(ctx, ref, file, fs)
		if errors.Is(err, ErrConflict) {
			s.skip(ref.ID, err.Error())
			break
		}
		if err != nil {
			return nil, err
		}
		if nfs != fs {
			s.mu.Lock()
			s.st.touch(ref.ID)
			f := nfs
			ss.Files[file] = &f
			s.mu.Unlock()
		}
		ls.Segments = append(ls.Segments, segs...)
	}
	if len(ls.Segments) == 0 {
		return nil, nil
	}
	outs, err := s.pushOutputs(ctx, ref, ss)
	if err != nil {
		return nil, err
	}
	ls.Outputs = outs
	c := s.Local.Card(ctx, ref.WS, ref.ID)
	c.Machine = s.Machine
	ls.Card = &c
	s.mu.Lock()
	s.st.touch(ref.ID)
	s.st.Cards[ref.ID] = &c
	s.mu.Unlock()
	return ls, nil
}

// unchanged reports, from the sizes a listing saw, that none of a
// session's journals grew or shrank since it went up: the same test
// pushFile makes once it opened each file, made without opening any.
func unchanged(ref SessionRef, files map[string]FileState) bool {
	if ref.Sizes == nil || ref.Tasks {
		return false
	}
	for _, f := range sessionFiles {
		size, ok := ref.Sizes[f]
		if ok && size != files[f].End {
			return false
		}
	}
	return true
}

// taskFiles are the journals of a session's tasks folder.
func (s *Syncer) taskFiles(ref SessionRef) []string {
	ents, err := s.Local.FS().ReadDir(path.Join(ref.WS, "tasks", ref.ID))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		f := taskFolder + e.Name()
		if e.Type().IsRegular() && validFile(f) {
			out = append(out, f)
		}
	}
	return out
}
