package tools

import (
	"io"
	"io/fs"
	"sync"

	"cairn/engine/internal/fstate"
	"cairn/internal/vfs"
)

// Staging a file tool's new content in the background (the engine's
// tools_run.go runs the tool).

// Job stages a tool's new content in the background: a temp file
// beside the name, written and fsynced (fstate.Stage).
type Job struct {
	done  chan struct{}
	syncs chan struct{} // closed when the fsync may start (Sync)
	once  sync.Once
	// After is the state the file will have; nil when removed.
	After *fstate.State
	st    *fstate.Staged
	err   error
}

// Start stages ed's new content beside rel (nothing for a removal).
func Start(fsys vfs.FS, rel string, ed *Edit) *Job {
	if ed.Remove {
		j := &Job{done: make(chan struct{})}
		close(j.done)
		return j
	}
	// FilePermOf reads the umask for a file it is not given: only with the
	// file looked at already, else FilePerm looks.
	var perm fs.FileMode
	if ed.Cur != nil {
		perm = fstate.FilePermOf(fsys, ed.Cur, ed.Exec)
	} else {
		perm = fstate.FilePerm(fsys, rel, ed.Exec)
	}
	return StageContent(fsys, rel, ed.Content, perm)
}

// StageContent stages content with permission bits perm beside rel in the
// background.
func StageContent(fsys vfs.FS, rel string, content []byte, perm fs.FileMode) *Job {
	j := &Job{done: make(chan struct{})}
	j.After = fstate.Content(content, fstate.PermMode(perm))
	j.After.Perm = fstate.PermString(perm)
	if len(content) <= fstate.MaxInline && len(content) > 0 {
		// In the change line too, so that a crash before the folder's
		// sync is made good from the line (changes.RedoPlan).
		j.After.Data = content
	}
	j.syncs = make(chan struct{})
	go func() {
		defer close(j.done)
		j.st, j.err = fstate.Stage(fsys, rel, perm, func(w io.Writer) error {
			_, err := w.Write(content)
			vfs.WriteBack(w) // its blocks placed now, the fsync has only to commit them
			<-j.syncs        // the fsync waits for the change line's (Sync)
			return err
		})
	}()
	return j
}

// Sync lets the staged file's fsync start: just before the change line's,
// so that the two are made durable by one commit of the filesystem's
// journal more often than one after the other.
func (j *Job) Sync() {
	j.once.Do(func() {
		if j.syncs != nil {
			close(j.syncs)
		}
	})
}

// Wait returns the staged file once it is durable.
func (j *Job) Wait() (*fstate.Staged, error) {
	j.Sync()
	<-j.done
	return j.st, j.err
}

// Discard removes the staged file of a change that will not be made.
func (j *Job) Discard(fsys vfs.FS) {
	if st, _ := j.Wait(); st != nil {
		st.Discard(fsys)
	}
}
