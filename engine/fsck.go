package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/fsck"
	"cairn/internal/vfs"
	"cairn/journal"
	"cairn/objects"
)

// FsckReport is what `cairn storage fsck` found.
type FsckReport struct {
	Objects  int           `json:"objects"`
	Journals int           `json:"journals"`
	Lines    int           `json:"lines"`
	Records  int           `json:"records"`
	Problems []FsckProblem `json:"problems"`
	Notes    []FsckProblem `json:"notes"`
}

// FsckProblem is one thing wrong, and where (a path relative to the state
// folder, with a line number for a journal line).
type FsckProblem struct {
	Path    string `json:"path"`
	Problem string `json:"problem"`
}

// Fsck verifies every object, parses every journal and record of the store
// and says what is wrong and where. It changes nothing. A torn journal tail
// is the expected shape of a crash and is a note, not a problem: the next
// writer cuts it.
func (s *Store) Fsck(ctx context.Context) (*FsckReport, error) { return s.FsckProgress(ctx, nil) }

// FsckProgress is Fsck that tells progress, when not nil, how many
// workspace folders it has checked of how many.
func (s *Store) FsckProgress(ctx context.Context, progress func(done, total int)) (*FsckReport, error) {
	r := &FsckReport{Problems: []FsckProblem{}, Notes: []FsckProblem{}}
	bad := func(p, format string, a ...any) {
		r.Problems = append(r.Problems, FsckProblem{p, fmt.Sprintf(format, userWords(a)...)})
	}
	note := func(p, format string, a ...any) {
		r.Notes = append(r.Notes, FsckProblem{p, fmt.Sprintf(format, userWords(a)...)})
	}
	if err := checkFormat(readOnly{s.fsys}, s.home); err != nil {
		bad("FORMAT", "%v", err)
	}
	if _, err := s.Config(); err != nil {
		bad(configName, "%v", err)
	}
	for _, j := range []string{historyName, usageName} {
		if _, err := s.fsys.Stat(j); err == nil {
			s.fsckJournal(r, j, bad, note, nil)
		}
	}
	if _, err := s.fsys.Stat(usageName); err == nil {
		s.fsckUsage(ctx, bad) // usage.go
	}
	s.fsckMoves(bad, note) // migrate.go
	s.fsckEphemeral(note)
	s.fsckPlans(bad, note) // retention_plans.go
	ents, err := s.fsys.ReadDir(workspacesDir)
	if err != nil && !vfs.IsNotExist(err) {
		return nil, err
	}
	s.fsckTrash(bad, note)
	for i, e := range ents {
		if progress != nil && i > 0 {
			progress(i, len(ents))
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		dir := path.Join(workspacesDir, e.Name())
		if msg, ok := dotNote(e.Name()); ok {
			note(dir, "%s", msg)
			continue
		}
		if !e.IsDir() {
			bad(dir, "not a workspace folder")
			continue
		}
		s.fsckWorkspace(ctx, r, dir, bad, note)
	}
	if progress != nil && len(ents) > 0 {
		progress(len(ents), len(ents))
	}
	return r, nil
}

// reporter reports a problem or a note (package fsck).
type reporter = fsck.Reporter

// dotNote is what fsck says of a dot file (package fsck).
func dotNote(name string) (string, bool) { return fsck.DotNote(name) }

func (s *Store) fsckWorkspace(ctx context.Context, r *FsckReport, dir string, bad, note reporter) {
	b, err := vfs.ReadFile(s.fsys, path.Join(dir, "workspace.json"))
	var info struct {
		V    int    `json:"v"`
		Path string `json:"path"`
	}
	if vfs.IsNotExist(err) && !s.hasSessions(dir) {
		note(dir, "workspace folder without workspace.json and without sessions: an interrupted creation, adopted by its path on next use")
	} else if err != nil {
		bad(path.Join(dir, "workspace.json"), "%v", err)
	} else if json.Unmarshal(b, &info) != nil || info.V != 1 || info.Path == "" {
		bad(path.Join(dir, "workspace.json"), "not a workspace.json (want {\"v\":1,\"path\":...})")
	}
	s.fsckWorkspaceInfo(dir, bad)
	s.fsckEmptySessions(dir, bad)
	s.fsckFolderFiles(dir, bad, note)
	if _, err := s.fsys.Lstat(dropsName(dir)); err == nil {
		s.fsckJournal(r, dropsName(dir), bad, note, nil) // records dropped (callrec_budget.go)
	}
	objs := objects.New(s.fsys, path.Join(dir, "objects"))
	named := map[string][]string{} // oid -> every journal line naming it
	sess := path.Join(dir, "sessions")
	ents, err := s.fsys.ReadDir(sess)
	if err != nil && !vfs.IsNotExist(err) {
		bad(sess, "%v", err)
	}
	for _, e := range ents {
		name := path.Join(sess, e.Name())
		switch {
		case strings.HasPrefix(e.Name(), "."):
			msg, _ := dotNote(e.Name())
			note(name, "%s", msg)
		case strings.HasSuffix(e.Name(), ".jsonl"):
			s.fsckJournal(r, name, bad, note, named)
			s.fsckItems(dir, name, bad) // items journals only (fsck_items.go)
		case strings.HasSuffix(e.Name(), ".json"):
			id := strings.TrimSuffix(e.Name(), ".json")
			r.Records++
			s.fsckRecord(dir, id, name, bad, note)
		case strings.HasSuffix(e.Name(), ".lock"):
		default:
			bad(name, "unexpected file")
		}
	}
	s.fsckTasks(ctx, r, dir, bad, note, named) // fsck_tasks.go
	s.fsckHooks(dir, bad, note, named)         // fsck_hooks.go
	n, broken := fsck.Objects(ctx, objs, bad)  // and those that fail verification
	r.Objects += n
	fsck.References(objs, named, broken, bad)
}

// fsckJournal reads a journal; named collects the objects its lines name.
func (s *Store) fsckJournal(r *FsckReport, name string, bad, note reporter, named map[string][]string) {
	r.Journals++
	line := 0
	var stack *snapStack // a changes journal's lines must fold
	var recs *changes.Records
	var reverts *revertFsck
	if strings.HasSuffix(name, ".changes.jsonl") {
		stack, recs, reverts = &snapStack{}, &changes.Records{}, &revertFsck{}
	}
	var skipped []string // why the stack skipped the good line at[i]
	var at []int
	// A changes journal's records that are dropped (by its own drop lines
	// or the workspace's drops.jsonl) name nothing: prune frees their
	// objects. Their lines are held back until the journal is read.
	type held struct {
		record string
		oids   []string
		where  string
	}
	var pending []held
	dead := map[string]bool{}
	if id, ok := strings.CutSuffix(path.Base(name), ".changes.jsonl"); ok && named != nil {
		w := &Workspace{s: s, dir: path.Dir(path.Dir(name))}
		if drops, err := w.readDrops(); err == nil {
			for rec := range drops[id] {
				dead[rec] = true
			}
		}
	}
	st, err := journal.Read(s.fsys, name, func(b []byte) error {
		line++
		if stack != nil {
			l, err := changes.Decode(b)
			why := reverts.check(l)
			if err != nil {
				skipped, at = append(skipped, err.Error()), append(at, line)
			} else if err := stack.Fold(l); err != nil {
				skipped, at = append(skipped, err.Error()), append(at, line)
			} else if err := recs.Fold(l); err != nil {
				skipped, at = append(skipped, err.Error()), append(at, line)
			} else if why != "" {
				skipped, at = append(skipped, "file revert line: "+why), append(at, line)
			}
		}
		if named == nil {
			return nil
		}
		if stack != nil {
			var l struct {
				Kind string   `json:"kind"`
				ID   string   `json:"id"`
				IDs  []string `json:"ids"`
			}
			if json.Unmarshal(b, &l) == nil {
				switch l.Kind {
				case changes.KindDrop:
					for _, id := range l.IDs {
						dead[id] = true
					}
				case changes.KindChange, changes.KindRecord:
					pending = append(pending, held{l.ID, fsck.OIDsIn(b), fmt.Sprintf("%s:%d", name, line)})
					return nil
				}
			}
		}
		for _, oid := range fsck.OIDsIn(b) {
			named[oid] = append(named[oid], fmt.Sprintf("%s:%d", name, line))
		}
		return nil
	})
	for _, h := range pending {
		if dead[h.record] {
			continue
		}
		for _, oid := range h.oids {
			named[oid] = append(named[oid], h.where)
		}
	}
	if err != nil {
		bad(name, "%v", err)
		return
	}
	r.Lines += st.Lines
	for i, why := range skipped {
		bad(fmt.Sprintf("%s:%d", name, fileLine(at[i], st.Bad)), "change record skipped by the undo stack: %s", why)
	}
	for _, l := range st.Bad {
		bad(fmt.Sprintf("%s:%d", name, l.Line), "not a JSON line (offset %d): %s", l.Offset, l.Err)
	}
	if st.Torn > 0 {
		note(name, "torn last line of %d bytes (a crash); the next writer cuts it", st.Torn)
	}
}

// readOnly lets fsck reuse checkFormat without ever writing: a missing
// FORMAT file is reported, not created.
type readOnly struct{ vfs.FS }

var errReadOnly = errors.New("engine: fsck writes nothing")

func (readOnly) CreateTemp(string, string) (vfs.File, error) { return nil, errReadOnly }

// hasSessions reports whether a workspace folder holds any session journal.
func (s *Store) hasSessions(dir string) bool {
	ents, _ := s.fsys.ReadDir(path.Join(dir, "sessions"))
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".items.jsonl") {
			return true
		}
	}
	return false
}
