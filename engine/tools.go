package engine

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"

	"cairn/internal/vfs"
)

// The file tools: write, edit and rm. Each changes one file through the
// workspace's os.Root, recorded line first (runTool): the pre-image is
// captured (inline in the change line when small, else a durable object),
// then the change line, naming the pre-image and the after state the tool
// is about to make, is appended and synced while the new content is staged
// in a temp file beside the name and fsynced; only when both are durable is
// the temp file swapped with the file (its old content removed in the
// background) or renamed over the name, or the file removed. The folder is
// synced in the background (fileSyncs): the next line of the changes
// journal and the end of the turn wait for it. A tool that fails after its
// line cancels the change with an abort line; a crash in between is settled
// by the next owner (Workspace.unmade). A tool that fails records nothing.
// A tool that would replace or remove a file whose pre-image cannot be
// recorded (the store or the changes journal cannot be written) is refused
// before it changes anything (noPreImage).

// maxEditBytes is the largest file the edit tool reads.
const maxEditBytes = 64 << 20

// toolEdit is what a file tool will do to its file: write content (with
// the executable bit or not), or remove it.
type toolEdit struct {
	content []byte
	exec    bool
	remove  bool
}

// A tool says what it will do to its file early, before the pre-image is
// captured, when it does not depend on it (write, rm), so its new content
// is staged meanwhile; or from the file as captured (edit), before its
// pre-image is stored: data and its F mode, or nil and "" when the capture
// did not read it (absent, too large, snapshots off), and the tool reads
// the file itself. An error refuses the tool before anything is written.
type (
	earlyPlan func(fsys vfs.FS, rel string) (*toolEdit, error)
	planFunc  func(fsys vfs.FS, rel, mode string, data []byte) (*toolEdit, error)
)

// ToolWrite is the write tool: path gets content, created with its folders
// when missing. An existing file keeps its permission bits; a new one gets
// 0666 less the umask, as a shell's redirection would make it.
func (s *Session) ToolWrite(ctx context.Context, path string, content []byte, opts ...ToolOptions) (*ToolAnswer, error) {
	return s.runTool(ctx, "write", path, opts, func(fsys vfs.FS, rel string) (*toolEdit, error) {
		exec := false
		if fi, err := fsys.Lstat(rel); err == nil {
			if fi.IsDir() {
				return nil, fmt.Errorf("%w: %s is a folder", ErrBadInput, rel)
			}
			exec = fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
		}
		return &toolEdit{content: content, exec: exec}, nil
	}, nil)
}

// ToolEdit is the edit tool: the one occurrence of old in path becomes new.
// No occurrence, or more than one, is ErrBadInput and leaves the file as
// it was. The edit is made to the content its pre-image captured.
func (s *Session) ToolEdit(ctx context.Context, path, old, new string, opts ...ToolOptions) (*ToolAnswer, error) {
	if old == "" {
		return nil, fmt.Errorf("%w: the text to replace is empty", ErrBadInput)
	}
	return s.runTool(ctx, "edit", path, opts, nil, func(fsys vfs.FS, rel, mode string, data []byte) (*toolEdit, error) {
		var b []byte
		var exec bool
		var err error
		if data != nil && mode != modeLink {
			b, err = checkEdit(data, rel, old)
			exec = mode == modeExec
		} else {
			b, exec, err = readForEdit(fsys, rel, old)
		}
		if err != nil {
			return nil, err
		}
		return &toolEdit{content: bytes.Replace(b, []byte(old), []byte(new), 1), exec: exec}, nil
	})
}

// ToolRm is the rm tool: it deletes a file or a symbolic link (never a
// folder).
func (s *Session) ToolRm(ctx context.Context, path string, opts ...ToolOptions) (*ToolAnswer, error) {
	return s.runTool(ctx, "rm", path, opts, func(fsys vfs.FS, rel string) (*toolEdit, error) {
		fi, err := fsys.Lstat(rel)
		switch {
		case vfs.IsNotExist(err):
			return nil, fmt.Errorf("%w: no file %s", ErrBadInput, rel)
		case err != nil:
			return nil, err
		case fi.IsDir():
			return nil, fmt.Errorf("%w: %s is a folder", ErrBadInput, rel)
		}
		return &toolEdit{remove: true}, nil
	}, nil)
}

// stageJob stages a tool's new content in the background: a temp file
// beside the name, written and fsynced (stageFile).
type stageJob struct {
	done  chan struct{}
	after *fileRef // the state the file will have; nil when removed
	st    *staged
	err   error
}

func startStage(fsys vfs.FS, rel string, ed *toolEdit) *stageJob {
	j := &stageJob{done: make(chan struct{})}
	if ed.remove {
		close(j.done)
		return j
	}
	perm := filePerm(fsys, rel, ed.exec)
	j.after = contentRef(ed.content, permMode(perm))
	j.after.Perm = permString(perm)
	go func() {
		defer close(j.done)
		j.st, j.err = stageFile(fsys, rel, perm, func(w io.Writer) error {
			_, err := w.Write(ed.content)
			return err
		})
	}()
	return j
}

// wait returns the staged file once it is durable.
func (j *stageJob) wait() (*staged, error) {
	<-j.done
	return j.st, j.err
}

// discard removes the staged file of a change that will not be made.
func (j *stageJob) discard(fsys vfs.FS) {
	if st, _ := j.wait(); st != nil {
		st.discard(fsys)
	}
}

// runTool runs a file tool on path, line first (see the top of this file).
// Exactly one of early and plan is given.
func (s *Session) runTool(ctx context.Context, tool, path string, opts []ToolOptions, early earlyPlan, plan planFunc) (*ToolAnswer, error) {
	s.busy.RLock()
	defer s.busy.RUnlock()
	if s.isClosed() {
		return nil, fmt.Errorf("engine: session %s is closed", s.ID())
	}
	opt, err := toolOptions(opts)
	if err != nil {
		return nil, err
	}
	rel, err := s.ws.relPath(path)
	if err != nil {
		return nil, err
	}
	call, err := s.callFor(opt.Call)
	if err != nil {
		return nil, err
	}
	cfg, err := s.config()
	if err != nil {
		return nil, err
	}
	sc := cfg.Snapshots
	fsys, done, err := s.ws.files()
	if err != nil {
		return nil, err
	}
	defer done()
	if fencedOff(fsys, rel) {
		return nil, fmt.Errorf("%w: %s is inside cairn's state folder", ErrBadInput, path)
	}
	st := &s.snaps
	st.mu.Lock()
	defer st.mu.Unlock()

	var job *stageJob
	var edEarly *toolEdit
	if early != nil {
		if edEarly, err = early(fsys, rel); err != nil {
			return nil, err
		}
	}
	// The session is owned (its hint made) before the first temp file is:
	// the hint names the folder first (temps.go).
	pre := s.newPreImages(ctx, sc, true)
	s.noteStaging(rel)
	if edEarly != nil {
		job = startStage(fsys, rel, edEarly)
	}
	bail := func(err error) (*ToolAnswer, error) {
		if job != nil {
			job.discard(fsys)
		}
		return nil, err
	}
	var ed *toolEdit // from plan, on the content as captured
	if plan != nil {
		pre.check = func(data []byte, mode string) (err error) {
			ed, err = plan(fsys, rel, mode, data)
			return err
		}
	}
	f := pre.capture(ctx, fsys, rel)
	if err := ctx.Err(); err != nil {
		return bail(err)
	}
	if pre.checkErr != nil {
		return nil, pre.checkErr
	}
	if plan != nil && ed == nil { // the capture did not read the file
		if ed, err = plan(fsys, rel, "", nil); err != nil {
			return nil, err
		}
	}
	// Bad input is said first: it would change nothing. Then a required
	// pre-image that was not captured refuses the tool.
	if err := pre.refuse(ctx, tool); err != nil {
		return bail(err)
	}
	if f.Before != nil && f.Before.Skipped == skipStore {
		return bail(noPreImage(tool, rel, pre.putErr))
	}
	if plan != nil {
		job = startStage(fsys, rel, ed)
	}
	f.After = job.after

	// The change line is made durable while the new content is staged.
	record := pre.on && pre.objs != nil
	if pre.on && !record {
		s.notice("no snapshot was taken: the snapshot store cannot be written")
		if f.Before == nil { // made, not replaced: say undo cannot remove it
			pre.skipped = append(pre.skipped, rel)
		}
	}
	var rec changeRecord
	var lineErr error
	if record {
		rec = st.newRecord(mkTime(s.ws.s.Now()), tool, call, []changeFile{f})
		if lineErr = s.appendChanges(rec); lineErr != nil {
			// Not durable, maybe not written: cancelled, and the edit goes
			// on without a snapshot, unless one is required.
			s.abortChange(rec.ID)
		}
	}
	stg, stageErr := job.wait()
	fail := func(err error) (*ToolAnswer, error) {
		if stg != nil {
			stg.discard(fsys)
		}
		if record && lineErr == nil {
			s.abortChange(rec.ID)
		}
		return nil, err
	}
	if lineErr != nil && s.ws.required(sc, rel) {
		pre.denied = append(pre.denied, RequiredFile{rel, skipStore + ": " + lineErr.Error()})
		return fail(pre.refuse(ctx, tool))
	}
	if lineErr != nil && f.Before != nil && !f.Before.skipped() {
		return fail(noPreImage(tool, rel, lineErr))
	}
	if stageErr != nil {
		return fail(fmt.Errorf("engine: %s %s: %w", tool, rel, stageErr))
	}
	dirs := dirSet{}
	var replaced string
	if stg == nil {
		err = removeFile(fsys, rel, dirs)
	} else {
		replaced, err = stg.exchange(fsys, dirs)
		stg = nil
	}
	if err != nil {
		return fail(fmt.Errorf("engine: %s %s: %w", tool, rel, err))
	}
	ans := &ToolAnswer{Session: s.ID(), Files: []string{s.ws.absPath(rel)}, Skipped: []string{}}
	for _, p := range pre.skipped {
		ans.Skipped = append(ans.Skipped, s.ws.absPath(p))
	}
	if record && lineErr == nil {
		// The change is made: the lines that follow from it (the undone
		// branch discarded, the oldest snapshots dropped) ride with the
		// next sync of the journal. Lost in a crash, they cost nothing: the
		// change line itself ends the branch, and the next change drops
		// what the limits still exceed.
		lines, live := st.afterChange(rec, sc)
		if ids := st.undone(); len(ids) > 0 {
			lines = append([]any{listRecord{V: 1, Kind: kindDiscard, IDs: ids, At: rec.At}}, lines...)
		}
		if err := s.appendChangesLazy(lines...); err != nil {
			// The stack is what the journal folds to: without these
			// lines, the next change ends the branch and drops again.
			s.notice(fmt.Sprintf("the undo stack's limits could not be recorded: %v", err))
			st.refold(s)
		} else {
			st.list, st.seq, st.pending, st.held = live, rec.Seq, nil, nil
		}
		ans.Snapshot = &rec.ID
	} else if record {
		s.notice(fmt.Sprintf("no snapshot was taken of %s: %v", rel, lineErr))
		ans.Skipped = append(ans.Skipped, s.ws.absPath(rel))
	}
	s.files.later(s.ws, dirs, replaced)
	return ans, nil
}

// noPreImage refuses a file tool that would replace or remove the content
// of rel while no snapshot of it can be recorded: the snapshot store or the
// changes journal cannot be written (a full disk, an I/O error). Such a
// fault passes, so the tool is refused rather than the content lost; a
// file too large to snapshot, which stays so, is changed without one.
func noPreImage(tool, rel string, why error) error {
	return fmt.Errorf("%w: the %s tool may not change %s: no snapshot of it can be taken (%w); nothing was changed",
		ErrRefused, tool, rel, why)
}

// abortChange cancels change id, whose line may be written but whose file
// was not changed, and refolds the stack from the journal: the truth,
// whether the line, its abort, both or neither reached it.
func (s *Session) abortChange(id string) {
	st := &s.snaps
	err := s.appendChanges(redoRecord{V: 1, Kind: kindAbort, ID: id, At: mkTime(s.ws.s.Now())})
	st.refold(s)
	if err == nil {
		return
	}
	// The abort is owed: it goes before the next line, and meanwhile the
	// stack is what that line will make of it (and what a reader, or the
	// next owner, settles it to).
	s.notice(fmt.Sprintf("the cancelled change %s could not be recorded yet: %v", id, err))
	st.wmu.Lock()
	st.owed = id
	st.wmu.Unlock()
	if n := len(st.list); n > 0 && st.pending == st.list[n-1] && st.pending.rec.ID == id {
		st.list = append(st.list[:n-1], st.held...)
		st.pending, st.held = nil, nil
	}
}

// refold rebuilds the stack from the journal, after a write to it failed.
func (st *snapStack) refold(s *Session) {
	var fresh snapStack
	if err := foldChanges(s.ws.s.fsys, changesName(s.ws.dir, s.st.id), &fresh); err != nil {
		s.notice(fmt.Sprintf("the undo stack could not be read back: %v", err))
		return
	}
	st.list, st.seq, st.pending, st.held, st.unread = fresh.list, fresh.seq, fresh.pending, fresh.held, fresh.unread
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
	b, err = checkEdit(b, rel, old)
	return b, fi.Mode().Perm()&0o111 != 0, err
}

// checkEdit checks content b of rel may be edited: it is not too large and
// old occurs in it once.
func checkEdit(b []byte, rel, old string) ([]byte, error) {
	if len(b) > maxEditBytes {
		return nil, fmt.Errorf("%w: %s is larger than %d bytes", ErrBadInput, rel, maxEditBytes)
	}
	switch n := bytes.Count(b, []byte(old)); n {
	case 1:
		return b, nil
	case 0:
		return nil, fmt.Errorf("%w: the text to replace is not in %s", ErrBadInput, rel)
	default:
		return nil, fmt.Errorf("%w: the text to replace occurs %d times in %s; give more context", ErrBadInput, n, rel)
	}
}

// permMode is the F mode of a regular file with permission perm.
func permMode(perm fs.FileMode) string {
	if perm&0o111 != 0 {
		return modeExec
	}
	return modeFile
}
