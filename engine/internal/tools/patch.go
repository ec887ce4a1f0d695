package tools

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"syscall"

	"cairn/engine/internal/errs"
	"cairn/engine/internal/fstate"
	"cairn/engine/internal/patch"
	"cairn/internal/vfs"
)

// apply_patch worked out in memory: every name resolved inside the
// workspace, every file read and every hunk applied before anything is
// captured (step 1 of the engine's patch_run.go).

// PatchError is the refusal of a patch that does not apply to the files as
// they are: the file and, when one, the hunk (numbered from 1) that does
// not fit. Nothing was changed. It wraps ErrRefused.
type PatchError struct {
	Path   string `json:"path"`
	Hunk   int    `json:"hunk,omitempty"`
	Reason string `json:"reason"`
}

func (e *PatchError) Error() string { return errs.RefusedText(e.Why()) }

// Why is what the refusal says after the word.
func (e *PatchError) Why() string {
	where := e.Path
	if e.Hunk > 0 {
		where = fmt.Sprintf("%s: hunk %d", e.Path, e.Hunk)
	}
	return fmt.Sprintf("the patch does not apply: %s: %s; nothing was changed", where, e.Reason)
}

func (e *PatchError) Unwrap() error { return errs.ErrRefused }

// PatchFile is one file of a patch's change: as the plan read it, and what
// the patch makes of it.
type PatchFile struct {
	Rel  string
	Old  State // before
	New  State // after
	Read bool  // Old was read from the disk (not made by the patch)
}

// State is a file's content and permission bits, or its absence.
type State struct {
	Exists bool
	Data   []byte
	Perm   fs.FileMode
}

// Same reports whether two states of a file are alike: both absent, or
// the same content and permission bits.
func (st State) Same(o State) bool {
	return st.Exists == o.Exists && (!st.Exists || st.Perm == o.Perm && bytes.Equal(st.Data, o.Data))
}

// FState is the fstate.State of st, by its hash (nil when absent).
func (st State) FState() *fstate.State {
	if !st.Exists {
		return nil
	}
	f := fstate.Content(st.Data, fstate.PermMode(st.Perm))
	f.Perm = fstate.PermString(st.Perm)
	return f
}

// Resolver resolves a name a patch gives inside the workspace: Rel gives
// its workspace-relative name (or refuses it: outside the workspace, in
// the state folder, in a version control folder, below a link), and
// LinkedOut is the refusal of a name a symbolic link leads out of the
// workspace.
type Resolver interface {
	Rel(name string) (string, error)
	LinkedOut(name string) error
}

// patchPlan works a patch out in memory: each name's state, read from the
// disk when the patch first names it, then as the patch's files before it
// left it.
type patchPlan struct {
	res   Resolver
	fsys  vfs.FS
	order []*PatchFile // every name the patch touches, first named first
	byRel map[string]*PatchFile
	umask fs.FileMode
}

// PlanPatch applies files in memory to the workspace's files, which fsys
// holds and res resolves names in. A patch that does not apply is refused
// whole (a *PatchError); one that changes no file is bad input.
func PlanPatch(res Resolver, fsys vfs.FS, files []*patch.File) ([]*PatchFile, error) {
	p := &patchPlan{res: res, fsys: fsys, byRel: map[string]*PatchFile{}, umask: vfs.Umask(fsys)}
	for _, f := range files {
		if err := p.apply(f); err != nil {
			return nil, err
		}
	}
	var out []*PatchFile
	for _, pf := range p.order {
		// A file made and removed again, or left as it was (the source of
		// a copy), is not part of the change.
		if !pf.Old.Same(pf.New) {
			out = append(out, pf)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: the patch changes no file", errs.ErrBadInput)
	}
	return out, nil
}

// apply works out one file of the patch.
func (p *patchPlan) apply(f *patch.File) error {
	src, err := p.file(f.Path)
	if err != nil {
		return err
	}
	refuse := func(format string, a ...any) error {
		return &PatchError{Path: f.Path, Reason: fmt.Sprintf(format, a...)}
	}
	content := func(old []byte) ([]byte, error) {
		b, err := f.NewContent(old)
		var he *patch.HunkError
		if errors.As(err, &he) {
			return nil, &PatchError{Path: f.Path, Hunk: he.Hunk, Reason: he.Reason}
		}
		if err == nil && len(b) > MaxEditBytes {
			return nil, fmt.Errorf("%w: %s would be larger than %d bytes", errs.ErrBadInput, f.Path, MaxEditBytes)
		}
		return b, err
	}
	switch f.Kind {
	case patch.Add:
		if f.Exclusive && src.New.Exists {
			return refuse("it already exists")
		}
		b, err := content(nil)
		if err != nil {
			return err
		}
		perm := p.newPerm()
		if src.New.Exists {
			perm = src.New.Perm
		}
		return p.set(src, State{Exists: true, Data: b, Perm: execPerm(perm, f.Exec)})
	case patch.Delete:
		if !src.New.Exists {
			return refuse("no such file to delete")
		}
		if _, err := content(src.New.Data); err != nil {
			return err
		}
		return p.set(src, State{})
	}
	if !src.New.Exists {
		return refuse("no such file to update")
	}
	b, err := content(src.New.Data)
	if err != nil {
		return err
	}
	next := State{Exists: true, Data: b, Perm: execPerm(src.New.Perm, f.Exec)}
	if f.MoveTo == "" {
		return p.set(src, next)
	}
	dst, err := p.file(f.MoveTo)
	if err != nil {
		return err
	}
	if dst == src {
		return p.set(src, next)
	}
	if f.Exclusive && dst.New.Exists {
		return &PatchError{Path: f.MoveTo, Reason: "it already exists"}
	}
	if !f.Copy {
		if err := p.set(src, State{}); err != nil {
			return err
		}
	}
	return p.set(dst, next)
}

// file is the patch's file for name, read from the disk when first named:
// a regular file or nothing, inside the workspace and outside cairn's
// state folder; a folder, a link or anything else is bad input.
func (p *patchPlan) file(name string) (*PatchFile, error) {
	if err := FileName(name); err != nil {
		return nil, err
	}
	rel, err := p.res.Rel(name)
	if err != nil {
		return nil, err
	}
	if pf := p.byRel[rel]; pf != nil {
		return pf, nil
	}
	pf := &PatchFile{Rel: rel}
	fi, err := p.fsys.Lstat(rel)
	switch {
	case vfs.IsNotExist(err):
	case vfs.IsEscape(err):
		return nil, p.res.LinkedOut(name)
	case errors.Is(err, syscall.ENOTDIR):
		return nil, fmt.Errorf("%w: %s: a name above it is not a folder", errs.ErrBadInput, rel)
	case err != nil:
		return nil, fmt.Errorf("engine: apply_patch: %w", err)
	case fi.IsDir():
		return nil, fmt.Errorf("%w: %s is a folder", errs.ErrBadInput, rel)
	case fi.Mode()&fs.ModeSymlink != 0:
		return nil, fmt.Errorf("%w: %s is a symbolic link; apply_patch does not follow links", errs.ErrBadInput, rel)
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("%w: %s is not a regular file", errs.ErrBadInput, rel)
	case fi.Size() > MaxEditBytes:
		return nil, fmt.Errorf("%w: %s is larger than %d bytes", errs.ErrBadInput, rel, MaxEditBytes)
	default:
		b, err := readRegular(p.fsys, rel)
		if err != nil {
			return nil, fmt.Errorf("engine: apply_patch: read %s: %w", rel, err)
		}
		pf.Old = State{Exists: true, Data: b, Perm: fi.Mode().Perm()}
		pf.Read = true
	}
	pf.New = pf.Old
	p.byRel[rel] = pf
	p.order = append(p.order, pf)
	return pf, nil
}

// set gives pf its state after the patch's file. A file made must have a
// folder to go in: no name above it is a file, on the disk or in the plan.
func (p *patchPlan) set(pf *PatchFile, st State) error {
	if st.Exists {
		for dir := path.Dir(pf.Rel); dir != "."; dir = path.Dir(dir) {
			if d := p.byRel[dir]; d != nil && d.New.Exists {
				return fmt.Errorf("%w: %s cannot be made: %s is a file", errs.ErrBadInput, pf.Rel, dir)
			}
			if fi, err := p.fsys.Stat(dir); err == nil && !fi.IsDir() {
				return fmt.Errorf("%w: %s cannot be made: %s is not a folder", errs.ErrBadInput, pf.Rel, dir)
			}
		}
	}
	pf.New = st
	return nil
}

// newPerm is the permission bits of a new file: 0666 less the umask.
func (p *patchPlan) newPerm() fs.FileMode { return 0o666 &^ p.umask }

// execPerm is perm with the executable bits set where it may be read
// (exec true) or cleared (false); unchanged when exec is nil.
func execPerm(perm fs.FileMode, exec *bool) fs.FileMode {
	switch {
	case exec == nil:
		return perm
	case *exec:
		return perm | (perm&0o444)>>2
	}
	return perm &^ 0o111
}

// readRegular reads a regular file of at most MaxEditBytes.
func readRegular(fsys vfs.FS, rel string) ([]byte, error) {
	f, err := fsys.OpenFile(rel, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, MaxEditBytes+1))
}
