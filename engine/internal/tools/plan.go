package tools

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"

	"cairn/engine/internal/errs"
	"cairn/engine/internal/fstate"
	"cairn/internal/vfs"
)

// What a single-file tool will do to its file.

// MaxEditBytes is the largest file the edit tool reads.
const MaxEditBytes = 64 << 20

// Edit is what a file tool will do to its file: write content (with
// the executable bit or not), or remove it.
type Edit struct {
	Content []byte
	Exec    bool
	Remove  bool
	Cur     fs.FileInfo // the file as the plan found it (Lstat); nil when it did not look, or found none
}

// Plan is how a file tool works out what it will do to its file
// (Write, Replace, Remove). Without NeedsContent (write, rm) the edit
// does not depend on the file's content: Plan runs before the pre-image is
// captured (with mode "" and data nil), so the new content is staged
// meanwhile. With it (edit), Plan sees the file as captured, before its
// pre-image is stored: its data and F mode, or nil and "" when the capture
// did not read it (absent, too large, snapshots off), and the tool reads
// the file itself. An error refuses the tool before anything is written.
type Plan interface {
	NeedsContent() bool
	Plan(fsys vfs.FS, rel, mode string, data []byte) (*Edit, error)
}

// Write is the write tool's: the file gets content, keeping its
// executable bit.
type Write struct{ Content []byte }

func (Write) NeedsContent() bool { return false }

func (p Write) Plan(fsys vfs.FS, rel, _ string, _ []byte) (*Edit, error) {
	exec := false
	fi, err := fsys.Lstat(rel)
	if err == nil {
		if fi.IsDir() {
			return nil, fmt.Errorf("%w: %s is a folder", errs.ErrBadInput, rel)
		}
		exec = fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
	} else {
		fi = nil
	}
	return &Edit{Content: p.Content, Exec: exec, Cur: fi}, nil
}

// Replace is the edit tool's: the one occurrence of Old (every one, with
// All) becomes Repl, in the content the pre-image captured.
type Replace struct {
	Old, Repl string
	All       bool
}

func (Replace) NeedsContent() bool { return true }

func (p Replace) Plan(fsys vfs.FS, rel, mode string, data []byte) (*Edit, error) {
	var b []byte
	var exec bool
	var err error
	if data != nil && mode != fstate.ModeLink {
		b, err = checkEdit(data, rel, p.Old, p.All)
		exec = mode == fstate.ModeExec
	} else {
		b, exec, err = readForEdit(fsys, rel, p.Old, p.All)
	}
	if err != nil {
		return nil, err
	}
	n := 1
	if p.All {
		n = -1
	}
	return &Edit{Content: bytes.Replace(b, []byte(p.Old), []byte(p.Repl), n), Exec: exec}, nil
}

// Remove is the rm tool's: the file or symbolic link goes (never a folder).
type Remove struct{}

func (Remove) NeedsContent() bool { return false }

func (Remove) Plan(fsys vfs.FS, rel, _ string, _ []byte) (*Edit, error) {
	fi, err := fsys.Lstat(rel)
	switch {
	case vfs.IsNotExist(err):
		return nil, fmt.Errorf("%w: no file %s", errs.ErrBadInput, rel)
	case err != nil:
		return nil, err
	case fi.IsDir():
		return nil, fmt.Errorf("%w: %s is a folder", errs.ErrBadInput, rel)
	}
	return &Edit{Remove: true}, nil
}

// readForEdit reads a regular file and checks old occurs in it once (or,
// all, at least once).
func readForEdit(fsys vfs.FS, rel, old string, all bool) ([]byte, bool, error) {
	fi, err := fsys.Lstat(rel)
	if vfs.IsNotExist(err) {
		return nil, false, fmt.Errorf("%w: no file %s", errs.ErrBadInput, rel)
	}
	if err != nil {
		return nil, false, err
	}
	if !fi.Mode().IsRegular() {
		return nil, false, fmt.Errorf("%w: %s is not a regular file", errs.ErrBadInput, rel)
	}
	f, err := fsys.OpenFile(rel, os.O_RDONLY, 0)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	b, err := vfs.ReadSized(f, fi.Size(), MaxEditBytes)
	if err != nil {
		return nil, false, err
	}
	b, err = checkEdit(b, rel, old, all)
	return b, fi.Mode().Perm()&0o111 != 0, err
}

// checkEdit checks content b of rel may be edited: it is not too large and
// old occurs in it once (or, all, at least once).
func checkEdit(b []byte, rel, old string, all bool) ([]byte, error) {
	if len(b) > MaxEditBytes {
		return nil, fmt.Errorf("%w: %s is larger than %d bytes", errs.ErrBadInput, rel, MaxEditBytes)
	}
	switch n := bytes.Count(b, []byte(old)); {
	case n == 1 || n > 1 && all:
		return b, nil
	case n == 0:
		return nil, fmt.Errorf("%w: the text to replace is not in %s", errs.ErrBadInput, rel)
	default:
		return nil, fmt.Errorf("%w: the text to replace occurs %d times in %s; give more context, or replace every one", errs.ErrBadInput, n, rel)
	}
}
