package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"syscall"

	"cairn/engine/internal/patch"
	"cairn/internal/vfs"
)

// The apply_patch file tool: one call that changes several files, one
// change line that names them all, so one undo puts them all back. It takes
// a git diff or a "*** Begin Patch" envelope (engine/internal/patch parses
// both) and runs in the steps of the other file tools (tools.go), for
// every file at once (patch_run.go):
//
//  1. plan: every name is resolved inside the workspace (as write, edit and
//     rm resolve theirs), every file read and every hunk applied in memory,
//     before anything is captured; a patch that does not apply is refused
//     whole (a *PatchError), naming the file and the hunk, and changes
//     nothing;
//  2. the pre-image of every file is captured (created: absent; deleted,
//     and both sides of a rename), and the required ones checked, file by
//     file;
//  3. the change line naming every file is appended and synced while the
//     new contents are staged beside their names and fsynced, and while the
//     folder sync of the file tool before it may still be under way;
//  4. then, once all are over, each file is swapped in or removed, in the
//     patch's order.
//
// A crash in step 4 leaves each file old or new (each swap is atomic). The
// next owner settles the change (changes_recover.go): every file still
// old, it was never made (an abort line); some old and some new, the new
// ones get their pre-image back and then the abort is written, so a patch
// is never left half applied (patch_recover.go). A swap that fails while
// the tool runs is settled the same way at once.

// ToolPatchName is the tool name apply_patch's change lines carry.
const ToolPatchName = "apply_patch"

// PatchError is the refusal of a patch that does not apply to the files as
// they are: the file and, when one, the hunk (numbered from 1) that does
// not fit. Nothing was changed. It wraps ErrRefused.
type PatchError struct {
	Path   string `json:"path"`
	Hunk   int    `json:"hunk,omitempty"`
	Reason string `json:"reason"`
}

func (e *PatchError) Error() string { return refusedText(e.Why()) }

// Why is what the refusal says after the word.
func (e *PatchError) Why() string {
	where := e.Path
	if e.Hunk > 0 {
		where = fmt.Sprintf("%s: hunk %d", e.Path, e.Hunk)
	}
	return fmt.Sprintf("the patch does not apply: %s: %s; nothing was changed", where, e.Reason)
}

func (e *PatchError) Unwrap() error { return ErrRefused }

// ToolPatch is the apply_patch tool: it applies text, a git diff (git diff
// or git diff --binary output: renames, copies, mode changes, new, deleted
// and binary files) or a "*** Begin Patch" envelope, to the workspace's
// files, all of them or none. A malformed patch, or one naming a file
// outside the workspace, a folder or a symbolic link, is ErrBadInput; one
// that does not apply is a *PatchError. Either changes nothing. The answer
// names every file the patch changed and the one snapshot that undoes them
// all.
func (s *Session) ToolPatch(ctx context.Context, text []byte, opts ...ToolOptions) (*ToolAnswer, error) {
	files, err := patch.Parse(text)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadInput, err)
	}
	return s.runPatch(ctx, files, opts)
}

// patchFile is one file of a patch's change: as the plan read it, and what
// the patch makes of it.
type patchFile struct {
	rel  string
	old  fileState // before
	neu  fileState // after
	read bool      // old was read from the disk (not made by the patch)
}

// fileState is a file's content and permission bits, or its absence.
type fileState struct {
	exists bool
	data   []byte
	perm   fs.FileMode
}

// same reports whether two states of a file are alike: both absent, or
// the same content and permission bits.
func (st fileState) same(o fileState) bool {
	return st.exists == o.exists && (!st.exists || st.perm == o.perm && bytes.Equal(st.data, o.data))
}

// patchPlan works a patch out in memory: each name's state, read from the
// disk when the patch first names it, then as the patch's files before it
// left it.
type patchPlan struct {
	w     *Workspace
	fsys  vfs.FS
	cfg   Config
	order []*patchFile // every name the patch touches, first named first
	byRel map[string]*patchFile
	umask fs.FileMode
}

// planPatch applies files in memory to the workspace's files.
func planPatch(w *Workspace, fsys vfs.FS, cfg Config, files []*patch.File) ([]*patchFile, error) {
	p := &patchPlan{w: w, fsys: fsys, cfg: cfg, byRel: map[string]*patchFile{}, umask: vfs.Umask(fsys)}
	for _, f := range files {
		if err := p.apply(f); err != nil {
			return nil, err
		}
	}
	var out []*patchFile
	for _, pf := range p.order {
		// A file made and removed again, or left as it was (the source of
		// a copy), is not part of the change.
		if !pf.old.same(pf.neu) {
			out = append(out, pf)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: the patch changes no file", ErrBadInput)
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
		if err == nil && len(b) > maxEditBytes {
			return nil, fmt.Errorf("%w: %s would be larger than %d bytes", ErrBadInput, f.Path, maxEditBytes)
		}
		return b, err
	}
	switch f.Kind {
	case patch.Add:
		if f.Exclusive && src.neu.exists {
			return refuse("it already exists")
		}
		b, err := content(nil)
		if err != nil {
			return err
		}
		perm := p.newPerm()
		if src.neu.exists {
			perm = src.neu.perm
		}
		return p.set(src, fileState{exists: true, data: b, perm: execPerm(perm, f.Exec)})
	case patch.Delete:
		if !src.neu.exists {
			return refuse("no such file to delete")
		}
		if _, err := content(src.neu.data); err != nil {
			return err
		}
		return p.set(src, fileState{})
	}
	if !src.neu.exists {
		return refuse("no such file to update")
	}
	b, err := content(src.neu.data)
	if err != nil {
		return err
	}
	next := fileState{exists: true, data: b, perm: execPerm(src.neu.perm, f.Exec)}
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
	if f.Exclusive && dst.neu.exists {
		return &PatchError{Path: f.MoveTo, Reason: "it already exists"}
	}
	if !f.Copy {
		if err := p.set(src, fileState{}); err != nil {
			return err
		}
	}
	return p.set(dst, next)
}

// file is the patch's file for name, read from the disk when first named:
// a regular file or nothing, inside the workspace and outside cairn's
// state folder; a folder, a link or anything else is bad input.
func (p *patchPlan) file(name string) (*patchFile, error) {
	if err := fileName(name); err != nil {
		return nil, err
	}
	rel, err := p.w.relPath(name)
	if err != nil {
		return nil, err
	}
	if pf := p.byRel[rel]; pf != nil {
		return pf, nil
	}
	if fencedOff(p.fsys, rel) {
		return nil, fmt.Errorf("%w: %s is inside cairn's state folder", ErrBadInput, name)
	}
	if err := p.w.leadsOut(p.fsys, rel, name); err != nil {
		return nil, err
	}
	if err := toolPath(p.fsys, p.cfg, rel, name); err != nil {
		return nil, err
	}
	pf := &patchFile{rel: rel}
	fi, err := p.fsys.Lstat(rel)
	switch {
	case vfs.IsNotExist(err):
	case vfs.IsEscape(err):
		return nil, p.w.linkedOut(name)
	case errors.Is(err, syscall.ENOTDIR):
		return nil, fmt.Errorf("%w: %s: a name above it is not a folder", ErrBadInput, rel)
	case err != nil:
		return nil, fmt.Errorf("engine: apply_patch: %w", err)
	case fi.IsDir():
		return nil, fmt.Errorf("%w: %s is a folder", ErrBadInput, rel)
	case fi.Mode()&fs.ModeSymlink != 0:
		return nil, fmt.Errorf("%w: %s is a symbolic link; apply_patch does not follow links", ErrBadInput, rel)
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrBadInput, rel)
	case fi.Size() > maxEditBytes:
		return nil, fmt.Errorf("%w: %s is larger than %d bytes", ErrBadInput, rel, maxEditBytes)
	default:
		b, err := readRegular(p.fsys, rel)
		if err != nil {
			return nil, fmt.Errorf("engine: apply_patch: read %s: %w", rel, err)
		}
		pf.old = fileState{exists: true, data: b, perm: fi.Mode().Perm()}
		pf.read = true
	}
	pf.neu = pf.old
	p.byRel[rel] = pf
	p.order = append(p.order, pf)
	return pf, nil
}

// set gives pf its state after the patch's file. A file made must have a
// folder to go in: no name above it is a file, on the disk or in the plan.
func (p *patchPlan) set(pf *patchFile, st fileState) error {
	if st.exists {
		for dir := path.Dir(pf.rel); dir != "."; dir = path.Dir(dir) {
			if d := p.byRel[dir]; d != nil && d.neu.exists {
				return fmt.Errorf("%w: %s cannot be made: %s is a file", ErrBadInput, pf.rel, dir)
			}
			if fi, err := p.fsys.Stat(dir); err == nil && !fi.IsDir() {
				return fmt.Errorf("%w: %s cannot be made: %s is not a folder", ErrBadInput, pf.rel, dir)
			}
		}
	}
	pf.neu = st
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

// readRegular reads a regular file of at most maxEditBytes.
func readRegular(fsys vfs.FS, rel string) ([]byte, error) {
	f, err := fsys.OpenFile(rel, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxEditBytes+1))
}
