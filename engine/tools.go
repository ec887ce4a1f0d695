package engine

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"cairn/internal/vfs"
)

// The file tools: write, edit and rm. Each one captures its snapshot
// (BeginChange), changes the file atomically through the workspace's
// os.Root, and records the change (Commit). A tool that fails records
// nothing. Write and edit stage their new content in a temp file (written
// and fsynced) while the pre-image is stored, and rename it over the name
// only once both are durable; the change line follows the rename and the
// folder's sync.

// maxEditBytes is the largest file the edit tool reads.
const maxEditBytes = 64 << 20

// ToolWrite is the write tool: path gets content, created with its folders
// when missing. An existing file keeps its permission bits.
func (s *Session) ToolWrite(ctx context.Context, path string, content []byte) (*ToolAnswer, error) {
	var after *fileRef
	c, err := s.beginChange(ctx, "write", []string{path}, func(fsys vfs.FS, rels []string) (*staged, error) {
		rel := rels[0]
		exec := false
		if fi, err := fsys.Lstat(rel); err == nil {
			if fi.IsDir() {
				return nil, fmt.Errorf("%w: %s is a folder", ErrBadInput, rel)
			}
			exec = fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
		}
		st, ref, err := stageContent(fsys, rel, exec, content)
		if err != nil {
			return nil, fmt.Errorf("engine: write %s: %w", rel, err)
		}
		after = ref
		return st, nil
	})
	if err != nil {
		return nil, err
	}
	return c.replaceStaged(ctx, after)
}

// ToolEdit is the edit tool: the one occurrence of old in path becomes new.
// No occurrence, or more than one, is ErrBadInput and leaves the file as
// it was.
func (s *Session) ToolEdit(ctx context.Context, path, old, new string) (*ToolAnswer, error) {
	if old == "" {
		return nil, fmt.Errorf("%w: the text to replace is empty", ErrBadInput)
	}
	rel, err := s.ws.relPath(path)
	if err != nil {
		return nil, err
	}
	fsys, done, err := s.ws.files()
	if err != nil {
		return nil, err
	}
	_, _, err = readForEdit(fsys, rel, old) // refuse before any snapshot is taken
	done()
	if err != nil {
		return nil, err
	}
	var after *fileRef
	c, err := s.beginChange(ctx, "edit", []string{rel}, func(fsys vfs.FS, _ []string) (*staged, error) {
		b, exec, err := readForEdit(fsys, rel, old) // again: it may have changed
		if err != nil {
			return nil, err
		}
		out := bytes.Replace(b, []byte(old), []byte(new), 1)
		st, ref, err := stageContent(fsys, rel, exec, out)
		if err != nil {
			return nil, fmt.Errorf("engine: edit %s: %w", rel, err)
		}
		after = ref
		return st, nil
	})
	if err != nil {
		return nil, err
	}
	return c.replaceStaged(ctx, after)
}

// replaceStaged finishes a write or an edit once its pre-image and its
// staged file are both durable: the staged file is renamed over its name,
// the folder synced, and the change recorded with after as the file's
// after state.
func (c *Change) replaceStaged(ctx context.Context, after *fileRef) (*ToolAnswer, error) {
	st := c.staged
	c.staged = nil
	dirs := dirSet{}
	if err := st.replace(c.fsys, dirs); err != nil {
		c.Abort()
		return nil, fmt.Errorf("engine: %s %s: %w", c.tool, c.files[0].Path, err)
	}
	c.setAfter(0, after)
	return commitSynced(ctx, c, dirs.sync(c.fsys))
}

// readForEdit reads a regular file and checks old occurs in it once.
func readForEdit(fsys vfs.FS, rel, old string) ([]byte, bool, error) {
	fi, err := fsys.Lstat(rel)
	if vfs.IsNotExist(err) {
		return nil, false, fmt.Errorf("%w: no file %s", ErrBadInput, rel)
	}
	if err != nil {
		return nil, false, err
	}
	if !fi.Mode().IsRegular() {
		return nil, false, fmt.Errorf("%w: %s is not a regular file", ErrBadInput, rel)
	}
	f, err := fsys.OpenFile(rel, os.O_RDONLY, 0)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxEditBytes+1))
	if err != nil {
		return nil, false, err
	}
	if len(b) > maxEditBytes {
		return nil, false, fmt.Errorf("%w: %s is larger than %d bytes", ErrBadInput, rel, maxEditBytes)
	}
	switch n := strings.Count(string(b), old); n {
	case 1:
		return b, fi.Mode().Perm()&0o111 != 0, nil
	case 0:
		return nil, false, fmt.Errorf("%w: the text to replace is not in %s", ErrBadInput, rel)
	default:
		return nil, false, fmt.Errorf("%w: the text to replace occurs %d times in %s; give more context", ErrBadInput, n, rel)
	}
}

// ToolRm is the rm tool: it deletes a file or a symbolic link (never a
// folder).
func (s *Session) ToolRm(ctx context.Context, path string) (*ToolAnswer, error) {
	rel, err := s.ws.relPath(path)
	if err != nil {
		return nil, err
	}
	fsys, done, err := s.ws.files()
	if err != nil {
		return nil, err
	}
	fi, err := fsys.Lstat(rel)
	done()
	switch {
	case vfs.IsNotExist(err):
		return nil, fmt.Errorf("%w: no file %s", ErrBadInput, rel)
	case err != nil:
		return nil, err
	case fi.IsDir():
		return nil, fmt.Errorf("%w: %s is a folder", ErrBadInput, rel)
	}
	c, err := s.BeginChange(ctx, "rm", []string{rel})
	if err != nil {
		return nil, err
	}
	dirs := dirSet{}
	if err := removeFile(c.fsys, rel, dirs); err != nil {
		c.Abort()
		return nil, fmt.Errorf("engine: rm %s: %w", rel, err)
	}
	c.setAfter(0, nil)
	return commitSynced(ctx, c, dirs.sync(c.fsys))
}

// commitSynced records a change whose file was replaced; a failed folder
// sync after it is still an error, once the change is recorded.
func commitSynced(ctx context.Context, c *Change, syncErr error) (*ToolAnswer, error) {
	ans, err := c.Commit(ctx)
	if err == nil && syncErr != nil {
		err = fmt.Errorf("engine: %s: sync folder: %w", c.tool, syncErr)
	}
	if err != nil {
		return nil, err
	}
	return ans, nil
}

// stageContent stages content to replace rel (stageFile) and returns the
// after state it will give rel.
func stageContent(fsys vfs.FS, rel string, exec bool, content []byte) (*staged, *fileRef, error) {
	perm := filePerm(fsys, rel, exec)
	st, err := stageFile(fsys, rel, perm, func(w io.Writer) error {
		_, err := w.Write(content)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return st, contentRef(content, permMode(perm)), nil
}

// permMode is the F mode of a regular file with permission perm.
func permMode(perm fs.FileMode) string {
	if perm&0o111 != 0 {
		return modeExec
	}
	return modeFile
}
