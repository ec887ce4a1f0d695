package changes

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"cairn/engine/internal/fstate"
	"cairn/internal/vfs"
	"cairn/objects"
)

// Plan is the files an undo, redo, restore-to step, recovery or a file
// tool that stopped half way puts back.
type Plan struct {
	Files []File
}

// File is one file of a plan.
type File struct {
	Path string
	// To is the state the file gets (nil: removed).
	To *fstate.State
	// Leave: the file is left as it is. The plan's maker knows why (the
	// state cannot be put back, or the file already holds it).
	Leave bool
	// Check: the file is put back only while it still holds Expect; one
	// holding anything else (a hand edit since) is left. Recovery checks
	// as it applies; an undo or redo compares before it writes its line.
	Check   bool
	Expect  *fstate.State
	MaxRead int64 // the most bytes the comparison reads (at least 1)
	// SwapBack is the temp name holding the file's old content, which a
	// tool swapped out for its new one (fstate.Staged.Exchange): the two
	// are swapped again and the temp removed. Only when that fails is To
	// put, unless Leave; then the swap's error is the file's.
	SwapBack string
}

// Result is what running a plan did, file by file, in the plan's order.
type Result struct {
	// Written: the file was put back.
	Written []bool
	// Errs: why a file that was to be put back was not (nil otherwise).
	Errs []error
	// Sync is the failure of syncing the folders whose entries changed.
	Sync error
	// Temps is the temp files swapped back (File.SwapBack) that could not
	// be removed: each holds what the tool wrote, left for cleanup.
	Temps []error
}

// Applier runs plans. Its zero value is ready to use; it is safe for
// concurrent use, though a session runs one plan at a time.
type Applier struct {
	runs atomic.Int64
}

// Runs is how many plans the applier has run.
func (a *Applier) Runs() int64 { return a.runs.Load() }

// Apply puts back every file of p not left, through fsys (the workspace
// root), reading stored content from objs, then syncs the folders whose
// entries changed. A file that cannot be written is left as it was
// (fstate.Put replaces atomically) and its error is in the result.
func (a *Applier) Apply(ctx context.Context, fsys vfs.FS, objs *objects.Store, p Plan) Result {
	a.runs.Add(1)
	r := Result{Written: make([]bool, len(p.Files)), Errs: make([]error, len(p.Files))}
	var links fstate.Links
	var mu sync.Mutex // guards r.Temps
	put := func(i int, dirs fstate.DirSet) {
		f := p.Files[i]
		if f.SwapBack != "" {
			err := vfs.Exchange(fsys, f.SwapBack, f.Path)
			if err == nil {
				dirs.Add(f.Path)
				if rerr := fsys.Remove(f.SwapBack); rerr != nil {
					mu.Lock()
					r.Temps = append(r.Temps, rerr)
					mu.Unlock()
				}
			}
			vfs.ReleaseTemp(f.SwapBack)
			if err == nil {
				r.Written[i] = true
				return
			}
			if f.Leave {
				r.Errs[i] = err
				return
			}
		}
		if f.Leave {
			return
		}
		if l := links.Above(fsys, f.Path); l != "" {
			// Never written through a link (see
			// engine/internal/fstate/links.go): a file to remove is not
			// there as the record names it, one to put back cannot be.
			if f.To == nil {
				r.Written[i] = true
			} else {
				r.Errs[i] = fmt.Errorf("%s is a symbolic link: a file below it is not put back", l)
			}
			return
		}
		if f.Check {
			if _, _, ok := fstate.Holds(ctx, fsys, f.Path, max(f.MaxRead, 1), f.Expect); !ok {
				return
			}
		}
		if err := fstate.Put(ctx, fsys, objs, f.Path, f.To, dirs); err != nil {
			r.Errs[i] = err
			return
		}
		r.Written[i] = true
	}
	r.Sync = putAll(p, put).Sync(fsys)
	return r
}

// UndoPlan is the plan of an undo (or a restore-to step) of e, whose
// undo line keeps kept: each file gets its pre-image, except those
// left[k] names (why the maker leaves them: a pre-image it cannot put
// back, a current content it cannot keep) and those that already hold
// their pre-image.
func UndoPlan(e *Entry, kept []*fstate.State, left []bool) Plan {
	p := Plan{Files: make([]File, len(e.Rec.Files))}
	for k, f := range e.Rec.Files {
		p.Files[k] = File{Path: f.Path, To: f.Before, Leave: left[k] || fstate.Same(kept[k], f.Before)}
	}
	return p
}

// RedoPlan is the plan of a redo of e: each file gets what its undo kept,
// except those left[k] names.
func RedoPlan(e *Entry, left []bool) Plan {
	p := Plan{Files: make([]File, len(e.Rec.Files))}
	for k, f := range e.Rec.Files {
		p.Files[k] = File{Path: f.Path, To: e.Kept[k], Leave: left[k]}
	}
	return p
}

// RecoveryPlan is the plan that finishes an undo or redo of e its owner
// stopped in: its line, written first, holds every content it needs. A
// file still as the step found it gets what the step gives (an undo: the
// pre-image; a redo: what the undo kept); a file holding anything else,
// or whose states were not captured, or whose content canPut says is
// gone, is left. e must have its undo's kept states.
func RecoveryPlan(e *Entry, canPut func(*fstate.State) bool) Plan {
	p := Plan{Files: make([]File, len(e.Rec.Files))}
	for i, f := range e.Rec.Files {
		from, to := e.Kept[i], f.Before // an undo not finished
		if e.Applied {
			from, to = f.Before, e.Kept[i] // a redo not finished
		}
		leave := from.IsSkipped() || to.IsSkipped() || fstate.Same(from, to) || !canPut(to)
		p.Files[i] = File{Path: f.Path, To: to, Leave: leave, Check: true, Expect: from, MaxRead: fstate.SizeLimit(1, from, to)}
	}
	return p
}
