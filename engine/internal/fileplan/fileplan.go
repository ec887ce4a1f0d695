// Package fileplan makes a change to a session's files all or nothing
// across a crash: a plan naming what is to happen is made durable first,
// the work runs, and the plan goes last. The next open of the state folder
// finds a plan a crash left behind and replays or rolls back its work.
//
// # Words
//
//   - A plan is one file, <folder>/<session>.json (the engine's plans/
//     folder, at the top of the state folder). Part of the format:
//
//     {"v":1,"kind":K,"session":ID,"workspace":KEY,"path":DIR,"at":T,
//     "stage":"copy"|"remove"|"run","files":[{"from":P,"to":P}...],"items_size":N}
//
//     kind is the caller's word (the engine's: forget, restore, trim);
//     paths are relative to the state folder.
//
//   - A move takes files from one place to another in two stages. At
//     stage "copy" each file is copied durably to its new name (Copy) and
//     the originals are the truth: a crash rolls the move back by removing
//     the copies. Rewriting the plan at stage "remove" is the commit: the
//     copies are the truth, and the originals go (RemoveFrom); a crash
//     replays that. A move never has a file in neither place.
//
//   - A plan at stage "run" has no files: its work is idempotent and is
//     run again whole (the engine's trim), unless the session it names has
//     changed since (items_size).
//
// # Rules
//
// It holds no locks and knows no session format: the caller holds the
// session's lock for the plan's life and decides, by comparing files
// (Same), whether a file at a plan's name is the plan's copy or something
// written since. It imports internal/vfs and internal/timefmt only.
package fileplan

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"

	"cairn/engine/internal/durable"
	"cairn/internal/timefmt"
	"cairn/internal/vfs"
)

// Stages of a plan. Part of the format.
const (
	StageCopy   = "copy"   // a move's copies are being made; the originals are the truth
	StageRemove = "remove" // a move is committed; its originals are being removed
	StageRun    = "run"    // a plan without files, run again whole
)

// Pair is one file of a move: From is copied to To, then From removed.
type Pair struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// Plan is a plan file.
type Plan struct {
	V         int          `json:"v"`
	Kind      string       `json:"kind"`
	Session   string       `json:"session"`
	Workspace string       `json:"workspace"`
	Path      string       `json:"path"`
	At        timefmt.Time `json:"at"`
	Stage     string       `json:"stage"`
	Files     []Pair       `json:"files,omitempty"`
	// ItemsSize is the size of the session's items journal when a "run"
	// plan was made: a journal of another size was written since.
	ItemsSize int64 `json:"items_size,omitempty"`
}

// ErrNotPlan says a file is not a plan this build reads.
var ErrNotPlan = errors.New("fileplan: not a plan")

// Name is the plan file of session id in folder dir.
func Name(dir, id string) string { return path.Join(dir, id+".json") }

// Write makes plan p durable in folder dir (made when missing), replacing
// the session's plan there.
func Write(fsys vfs.FS, dir string, p *Plan) error {
	if err := vfs.MkdirAllDurable(fsys, dir, vfs.DirPerm); err != nil {
		return err
	}
	b, err := json.Marshal(p)
	if err != nil {
		return err
	}
	return vfs.WriteFileAtomic(fsys, Name(dir, p.Session), append(b, '\n'))
}

// Read reads the plan file name.
func Read(fsys vfs.FS, name string) (*Plan, error) {
	b, err := vfs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	var p Plan
	if err := json.Unmarshal(b, &p); err != nil || p.V != 1 || p.Session == "" || path.Base(name) != p.Session+".json" {
		return nil, fmt.Errorf("%w: %s", ErrNotPlan, name)
	}
	switch p.Stage {
	case StageCopy, StageRemove, StageRun:
	default:
		return nil, fmt.Errorf("%w: %s: stage %q", ErrNotPlan, name, p.Stage)
	}
	return &p, nil
}

// Done removes session id's plan from folder dir, durably: the plan's work
// is over.
func Done(fsys vfs.FS, dir, id string) error {
	if err := fsys.Remove(Name(dir, id)); err != nil && !vfs.IsNotExist(err) {
		return err
	}
	return fsys.SyncDir(dir)
}

// Copy copies each pair's From to its To durably (a To already there is
// replaced; a From that is missing copies nothing), making To's folder
// when missing.
func Copy(ctx context.Context, fsys vfs.FS, files []Pair) error {
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := durable.CopyFile(fsys, f.From, f.To); err != nil {
			return err
		}
	}
	return nil
}

// RemoveFrom removes each pair's From (one already gone is not an error)
// and syncs the folders it removed from.
func RemoveFrom(fsys vfs.FS, files []Pair) error {
	return remove(fsys, files, func(p Pair) string { return p.From })
}

// RemoveTo removes each pair's To (one already gone is not an error) and
// syncs the folders it removed from.
func RemoveTo(fsys vfs.FS, files []Pair) error {
	return remove(fsys, files, func(p Pair) string { return p.To })
}

func remove(fsys vfs.FS, files []Pair, name func(Pair) string) error {
	var dirs []string
	seen := map[string]bool{}
	for _, f := range files {
		n := name(f)
		if err := fsys.Remove(n); err != nil && !vfs.IsNotExist(err) {
			return err
		}
		if d := path.Dir(n); !seen[d] {
			seen[d] = true
			dirs = append(dirs, d)
		}
	}
	for _, d := range dirs {
		if err := fsys.SyncDir(d); err != nil && !vfs.IsNotExist(err) {
			return err
		}
	}
	return nil
}

// Same reports whether files a and b hold the same bytes. A missing file
// is the same as nothing else: (false, nil) when one is missing, (true,
// nil) when both are.
func Same(fsys vfs.FS, a, b string) (bool, error) {
	fa, errA := fsys.OpenFile(a, os.O_RDONLY, 0)
	if errA == nil {
		defer fa.Close()
	}
	fb, errB := fsys.OpenFile(b, os.O_RDONLY, 0)
	if errB == nil {
		defer fb.Close()
	}
	switch {
	case vfs.IsNotExist(errA) && vfs.IsNotExist(errB):
		return true, nil
	case vfs.IsNotExist(errA) && errB == nil, vfs.IsNotExist(errB) && errA == nil:
		return false, nil
	case errA != nil:
		return false, errA
	case errB != nil:
		return false, errB
	}
	ba, bb := make([]byte, 32<<10), make([]byte, 32<<10)
	for {
		na, ea := io.ReadFull(fa, ba)
		nb, eb := io.ReadFull(fb, bb)
		if na != nb || !bytes.Equal(ba[:na], bb[:nb]) {
			return false, nil
		}
		aEnd := errors.Is(ea, io.EOF) || errors.Is(ea, io.ErrUnexpectedEOF)
		bEnd := errors.Is(eb, io.EOF) || errors.Is(eb, io.ErrUnexpectedEOF)
		switch {
		case ea != nil && !aEnd:
			return false, ea
		case eb != nil && !bEnd:
			return false, eb
		case aEnd || bEnd:
			return aEnd == bEnd, nil
		}
	}
}
