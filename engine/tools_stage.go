package engine

import (
	"io"
	"io/fs"
	"sync"

	"cairn/engine/internal/fstate"
	"cairn/internal/vfs"
)

// Staging a file tool's new content in the background (tools_run.go runs
// the tool).

// stageJob stages a tool's new content in the background: a temp file
// beside the name, written and fsynced (fstate.Stage).
type stageJob struct {
	done  chan struct{}
	syncs chan struct{} // closed when the fsync may start (sync)
	once  sync.Once
	after *fstate.State // the state the file will have; nil when removed
	st    *fstate.Staged
	err   error
}

func startStage(fsys vfs.FS, rel string, ed *toolEdit) *stageJob {
	if ed.remove {
		j := &stageJob{done: make(chan struct{})}
		close(j.done)
		return j
	}
	// FilePermOf reads the umask for a file it is not given: only with the
	// file looked at already, else FilePerm looks.
	var perm fs.FileMode
	if ed.cur != nil {
		perm = fstate.FilePermOf(fsys, ed.cur, ed.exec)
	} else {
		perm = fstate.FilePerm(fsys, rel, ed.exec)
	}
	return stageContent(fsys, rel, ed.content, perm)
}

// stageContent stages content with permission bits perm beside rel in the
// background.
func stageContent(fsys vfs.FS, rel string, content []byte, perm fs.FileMode) *stageJob {
	j := &stageJob{done: make(chan struct{})}
	j.after = fstate.Content(content, fstate.PermMode(perm))
	j.after.Perm = fstate.PermString(perm)
	if len(content) <= fstate.MaxInline && len(content) > 0 {
		// In the change line too, so that a crash before the folder's
		// sync is made good from the line (changes.RedoPlan).
		j.after.Data = content
	}
	j.syncs = make(chan struct{})
	go func() {
		defer close(j.done)
		j.st, j.err = fstate.Stage(fsys, rel, perm, func(w io.Writer) error {
			_, err := w.Write(content)
			vfs.WriteBack(w) // its blocks placed now, the fsync has only to commit them
			<-j.syncs        // the fsync waits for the change line's (sync)
			return err
		})
	}()
	return j
}

// sync lets the staged file's fsync start: just before the change line's,
// so that the two are made durable by one commit of the filesystem's
// journal more often than one after the other.
func (j *stageJob) sync() {
	j.once.Do(func() {
		if j.syncs != nil {
			close(j.syncs)
		}
	})
}

// wait returns the staged file once it is durable.
func (j *stageJob) wait() (*fstate.Staged, error) {
	j.sync()
	<-j.done
	return j.st, j.err
}

// discard removes the staged file of a change that will not be made.
func (j *stageJob) discard(fsys vfs.FS) {
	if st, _ := j.wait(); st != nil {
		st.Discard(fsys)
	}
}
