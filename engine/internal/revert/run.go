package revert

import (
	"context"
	"fmt"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/fstate"
	"cairn/engine/internal/snapshot"
	"cairn/internal/timefmt"
	"cairn/internal/vfs"
	"cairn/objects"
)

// A file revert's and an unrevert's writes: what each file holds kept for
// unrevert, the lines, the files put back (steps 7 to 9 of the engine's
// doc_map.go).

// revertInline is how many bytes of what a revert keeps go inline in its
// lines (the rest is stored as objects, one fsync each), and revertPart
// the most of them one line holds.
const (
	revertInline = 16 << 20
	revertPart   = 4 << 20
)

// Host is what a revert or unrevert needs of its session: answers name
// files by their absolute path; lines are written synced, each naming the
// newest item; Settled brings the undo stack up to a line just written.
type Host interface {
	AbsPath(rel string) string
	Now() timefmt.Time
	NewestItem() changes.ItemRef
	WriteSynced(lines ...any) error
	Settled()
}

// Run is one file revert or unrevert at work, over the workspace's files,
// the session's object store and its applier. The caller holds the
// session's locks (the engine's revert_files.go says which).
type Run struct {
	Host    Host
	FS      vfs.FS
	Objs    *objects.Store
	Applier *changes.Applier
}

// Revert keeps what each file of plan holds and writes the revert
// line, puts the files back, and writes the "reverted" line.
func (r *Run) Revert(ctx context.Context, to string, targets []changes.Target, plan changes.Plan, fr *FileRevert) error {
	h, fsys, objs := r.Host, r.FS, r.Objs
	budget := revertInline
	sink := keptSink(ctx, objs, &budget)
	var files []changes.RevertFile
	var conflicts []changes.Conflict
	for i, f := range plan.Files {
		if f.Leave {
			continue
		}
		t := targets[i]
		kept, err := fstate.Capture(ctx, fsys, sink, f.Path, fstate.SizeLimit(1, t.Expect))
		if kept.IsSkipped() && (kept.Skipped == fstate.SkipStore || kept.Skipped == fstate.SkipUnreadable) {
			return fmt.Errorf("engine: revert: keep what %s holds, for unrevert: %w; nothing was changed", f.Path, err)
		}
		if !fstate.Same(kept, t.Expect) {
			conflicts = append(conflicts, changes.Conflict{Kind: changes.ConflictChanged, Path: f.Path, Detail: "it changed while the revert was checking"})
			continue
		}
		files = append(files, changes.RevertFile{Path: f.Path, Kept: kept, Put: changes.HashOnly(f.To)})
	}
	if len(conflicts) > 0 {
		return r.ConflictError("revert", fr, conflicts)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(files) == 0 {
		return nil // every file holds what it would get: nothing to write, nothing to unrevert
	}
	now := h.Now()
	id := changes.NewSnapID(now.Time)
	lines := changes.RevertLines(id, now, to, h.NewestItem(), files, revertPart)
	out := make([]any, len(lines))
	for i := range lines {
		out[i] = lines[i]
	}
	if err := h.WriteSynced(out...); err != nil {
		// Not durable, maybe not all written: a revert whose parts are
		// not all read never started, and none of its files changed.
		return fmt.Errorf("engine: revert: write its line: %w; nothing was changed", err)
	}
	left, syncErr := r.apply(ctx, plan, fr)
	if syncErr != nil {
		// Not known durable: the next owner settles the revert from the
		// files (Settle); until then it is unfinished.
		return fmt.Errorf("engine: revert: sync folders: %w", syncErr)
	}
	if err := h.WriteSynced(changes.DoneLine{V: 1, Kind: changes.KindReverted, ID: id, At: h.Now(), Left: left}); err != nil {
		return fmt.Errorf("engine: revert: the files are reverted, but its end could not be recorded (the next open settles it): %w", err)
	}
	return nil
}

// keptSink keeps what a file holds for unrevert: inline while budget
// lasts (the revert line's one fsync makes it durable), else as an
// object.
func keptSink(ctx context.Context, objs *objects.Store, budget *int) fstate.Sink {
	store := fstate.StoreSink(ctx, objs)
	if store == nil {
		return nil
	}
	return func(b []byte, mode string) (*fstate.State, error) {
		if len(b) <= fstate.MaxInline && len(b) <= *budget {
			*budget -= len(b)
			f, _ := fstate.HashSink(b, mode)
			if len(b) > 0 {
				f.Data = b
			}
			return f, nil
		}
		return store(b, mode)
	}
}

// ConflictError is the refusal over conflicts, with fr naming them.
func (r *Run) ConflictError(action string, fr *FileRevert, cs []changes.Conflict) error {
	fr.Conflicts = nil
	for _, c := range cs {
		fr.Conflicts = append(fr.Conflicts, RevertConflict{Kind: c.Kind, Path: r.Host.AbsPath(c.Path), Detail: c.Detail})
	}
	fr.Applied = false
	return &RevertConflictError{Action: action, Files: fr}
}

// apply writes the files of a file revert or unrevert whose line is
// written, noting in fr each file it could not write; left is their paths,
// for its end line, and syncErr why its folders are not known durable.
func (r *Run) apply(ctx context.Context, plan changes.Plan, fr *FileRevert) (left []string, syncErr error) {
	r.Host.Settled() // what the fold makes of the line written
	res := r.Applier.Apply(ctx, r.FS, r.Objs, plan)
	for i, err := range res.Errs {
		if err != nil {
			left = append(left, plan.Files[i].Path)
			fr.Left = append(fr.Left, snapshot.FileReason{Path: r.Host.AbsPath(plan.Files[i].Path), Reason: "it could not be written: " + err.Error()})
		}
	}
	return left, res.Sync
}

// Plan checks every file of targets (changes.Check) and makes the plan of
// a revert and its answer, fr (apply false: a preview). conflicts are the
// ones found before; any conflict refuses the whole revert, with fr naming
// them (a *RevertConflictError). unrecorded is how many calls after the
// boundary ran without a record.
func (r *Run) Plan(ctx context.Context, targets []changes.Target, conflicts []changes.Conflict, unrecorded int, apply bool) (*FileRevert, changes.Plan, error) {
	cur, more, err := changes.Check(ctx, r.FS, targets, r.restorable)
	if err != nil {
		return nil, changes.Plan{}, fmt.Errorf("engine: revert: %w; nothing was changed", err)
	}
	fr := &FileRevert{Applied: apply, UnrecordedCalls: unrecorded, Files: []RevertedFile{}}
	plan := changes.RevertPlan(targets, cur)
	for i, f := range plan.Files {
		if f.Leave {
			continue
		}
		act := "replace"
		switch {
		case cur[i] == nil:
			act, fr.Create = "create", fr.Create+1
		case f.To == nil:
			act, fr.Delete = "delete", fr.Delete+1
		default:
			fr.Replace++
		}
		fr.Files = append(fr.Files, RevertedFile{Path: r.Host.AbsPath(f.Path), Action: act})
	}
	if conflicts = append(conflicts, more...); len(conflicts) > 0 {
		return nil, plan, r.ConflictError("revert", fr, conflicts)
	}
	return fr, plan, nil
}

// Preview gives fr, a previewed revert of plan, its reader of what each
// file holds now and would get (FileRevert.Contents), through the
// workspace's files as open opens them then.
func (r *Run) Preview(fr *FileRevert, plan changes.Plan, open func() (vfs.FS, func(), error)) {
	var rels []string
	var tos []*fstate.State
	for _, f := range plan.Files {
		if !f.Leave {
			rels, tos = append(rels, f.Path), append(tos, f.To)
		}
	}
	h, objs := r.Host, r.Objs
	fr.SetContents(func(ctx context.Context, limit int64) ([]FileChange, error) {
		fsys, done, err := open()
		if err != nil {
			return nil, err
		}
		defer done()
		out := make([]FileChange, len(rels))
		for i, rel := range rels {
			out[i] = FileChange{Path: h.AbsPath(rel), Before: DiskContent(ctx, fsys, rel, limit)}
			if out[i].After, err = ReadContent(ctx, objs, nil, rel, tos[i], limit); err != nil {
				return nil, err
			}
		}
		return out, nil
	})
}
