package patch

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
)

// Git diffs, parsed and applied by go-gitdiff. Its applier is strict: each
// hunk's lines must be at the line its header names, as `git apply`
// without fuzz or offsets wants them.

// git file modes (the high bits of a mode line).
const (
	gitTypeMask = 0o170000
	gitLink     = 0o120000
	gitModule   = 0o160000
)

// maxBinary is the most bytes a binary hunk may expand to.
const maxBinary = 64 << 20

func parseGit(b []byte) ([]*File, error) {
	gfs, _, err := gitdiff.Parse(bytes.NewReader(b))
	if err != nil {
		return nil, malformed("%v", err)
	}
	files := make([]*File, 0, len(gfs))
	for _, g := range gfs {
		f, err := gitFile(g)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// gitFile is the File of one file of a git diff.
func gitFile(g *gitdiff.File) (*File, error) {
	name := g.NewName
	if name == "" {
		name = g.OldName
	}
	for _, m := range []os.FileMode{g.OldMode, g.NewMode} {
		switch m & gitTypeMask {
		case gitLink:
			return nil, malformed("%s: a symbolic link: apply_patch changes regular files only", name)
		case gitModule:
			return nil, malformed("%s: a submodule: apply_patch changes regular files only", name)
		}
	}
	if g.IsBinary && g.BinaryFragment == nil {
		return nil, malformed("%s: a binary change without its data (make the patch with git diff --binary)", name)
	}
	f := &File{Kind: Update, Path: g.OldName}
	switch {
	case g.IsNew:
		f.Kind, f.Path, f.Exclusive = Add, g.NewName, true
	case g.IsDelete:
		f.Kind = Delete
	case g.IsRename || g.IsCopy:
		f.MoveTo, f.Copy, f.Exclusive = g.NewName, g.IsCopy, true
	default:
		f.Path = name
	}
	if f.Path == "" || (f.Kind == Update && (g.IsRename || g.IsCopy) && f.MoveTo == "") {
		return nil, malformed("a file without a name")
	}
	if g.NewMode != 0 && f.Kind != Delete && (f.Kind == Add || g.OldMode == 0 || g.NewMode&0o111 != g.OldMode&0o111) {
		exec := g.NewMode&0o111 != 0
		f.Exec = &exec
	}
	if g.IsBinary {
		f.CheckOld, f.CheckNew = fullID(g.OldOIDPrefix), fullID(g.NewOIDPrefix)
	}
	f.apply = func(old []byte) ([]byte, error) {
		var out bytes.Buffer
		err := gitdiff.Apply(&out, bytes.NewReader(old), g, gitdiff.WithMaxBinaryFragmentBytes(maxBinary))
		if err != nil {
			return nil, gitApplyError(f.Path, err)
		}
		if f.Kind == Delete && out.Len() > 0 {
			return nil, &HunkError{Path: f.Path, Reason: fmt.Sprintf("the file holds %d bytes more than the patch deletes", out.Len())}
		}
		return out.Bytes(), nil
	}
	return f, nil
}

// gitApplyError is go-gitdiff's apply error as a HunkError naming the hunk
// (the fragment, in the order of their old positions, as it applies them).
func gitApplyError(path string, err error) error {
	var ae *gitdiff.ApplyError
	he := &HunkError{Path: path, Reason: err.Error()}
	if errors.As(err, &ae) {
		he.Hunk = ae.Fragment
		if ae.Line > 0 {
			he.Reason = fmt.Sprintf("at line %d: %v", ae.Line, ae.Unwrap())
		}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		he.Reason = "the file ends before the hunk's lines"
	}
	return he
}

// fullID is a git object id given in full (SHA-1), or "" for an
// abbreviated one or the zero id of a missing side.
func fullID(id string) string {
	if len(id) != 40 || strings.Trim(id, "0") == "" {
		return ""
	}
	return strings.ToLower(id)
}

// gitBlobID is the git (SHA-1) id of content b.
func gitBlobID(b []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(b))
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}
