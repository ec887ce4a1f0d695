package engine

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"cairn/internal/vfs"
)

// The file tools: write, edit and rm. Each one captures its snapshot
// (BeginChange), changes the file atomically through the workspace's
// os.Root, and records the change (Commit). A tool that fails records
// nothing.

// maxEditBytes is the largest file the edit tool reads.
const maxEditBytes = 64 << 20

// ToolWrite is the write tool: path gets content, created with its folders
// when missing. An existing file keeps its permission bits.
func (s *Session) ToolWrite(ctx context.Context, path string, content []byte) (*ToolAnswer, error) {
	c, err := s.BeginChange(ctx, "write", []string{path})
	if err != nil {
		return nil, err
	}
	rel := c.files[0].Path
	exec := false
	if fi, err := c.fsys.Lstat(rel); err == nil {
		if fi.IsDir() {
			c.Abort()
			return nil, fmt.Errorf("%w: %s is a folder", ErrBadInput, rel)
		}
		exec = fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
	}
	wait := c.prestore(ctx, content)
	dirs, err := writeContent(c.fsys, rel, exec, content)
	wait()
	if err != nil {
		c.Abort()
		return nil, fmt.Errorf("engine: write %s: %w", rel, err)
	}
	return commitSynced(ctx, c, dirs.sync(c.fsys))
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
	c, err := s.BeginChange(ctx, "edit", []string{rel})
	if err != nil {
		return nil, err
	}
	b, exec, err := readForEdit(c.fsys, rel, old) // again: it may have changed
	if err != nil {
		c.Abort()
		return nil, err
	}
	out := bytes.Replace(b, []byte(old), []byte(new), 1)
	wait := c.prestore(ctx, out)
	dirs, err := writeContent(c.fsys, rel, exec, out)
	wait()
	if err != nil {
		c.Abort()
		return nil, fmt.Errorf("engine: edit %s: %w", rel, err)
	}
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

// writeContent atomically replaces rel with content; the caller syncs the
// folder it returns.
func writeContent(fsys vfs.FS, rel string, exec bool, content []byte) (dirSet, error) {
	dirs := dirSet{}
	err := replaceFile(fsys, rel, filePerm(fsys, rel, exec), dirs, func(w io.Writer) error {
		_, err := w.Write(content)
		return err
	})
	return dirs, err
}

// prestore stores the content a tool is about to write as an object while
// the tool writes it, so the after-image Commit takes finds it stored: the
// two fsyncs overlap instead of following each other. Call the returned
// func before Commit.
func (c *Change) prestore(ctx context.Context, content []byte) (wait func()) {
	if !c.on || c.objs == nil || int64(len(content)) > c.max {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.objs.PutBytes(ctx, content) // an error here is met again, and recorded, by Commit
	}()
	return func() { <-done }
}
