package engine

import (
	"errors"
	"fmt"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	"cairn/internal/vfs"
)

// Ownership: a process that has a session open for writing holds an
// exclusive flock on sessions/<id>.lock, which holds its pid. The lock file
// is never deleted. So that a listing can mark owned sessions without trying
// every lock, the owner also leaves a hint, owners/<id> (its pid, then the
// folders its file tools stage temp files in: temps.go), removed when it
// lets go; a listing checks each hint against the lock itself, so a hint
// left by a crash is never believed. Such a hint says the owner died with
// the session open: the next Open of a session of the workspace collects
// the temp files its writes left (temps.go), then removes it.

// BusyError says another process owns a session, or another machine
// holds its lease on the remote (Machine, and Age since its last renewal).
type BusyError struct {
	ID  string
	PID int
	// Brief says the owner holds it for one call and lets go (an agent's
	// hook, SessionOptions.Brief), so waiting for it is worth it; a
	// person's cairn (the REPL, cairn mcp) holds it until it ends.
	Brief bool
	// Machine, Host and Age name another machine holding the session's
	// lease on the remote, and how long ago it was renewed.
	Machine string
	Host    string
	Age     time.Duration
}

func (e *BusyError) Error() string {
	if e.Machine != "" {
		who := e.Machine
		if e.Host != "" && !strings.HasPrefix(e.Machine, e.Host) {
			who += " (" + e.Host + ")"
		}
		return fmt.Sprintf("session %s is open on machine %s (its lease was renewed %s ago)", e.ID, who, e.Age.Round(time.Second))
	}
	if e.PID > 0 {
		return fmt.Sprintf("session %s is open in another cairn process (pid %d)", e.ID, e.PID)
	}
	return fmt.Sprintf("session %s is open in another cairn process", e.ID)
}

func (e *BusyError) Unwrap() error { return ErrBusy }

func ownersName(dir, id string) string { return path.Join(dir, "owners", id) }

// probeWait is how long acquire waits out a lock held by no owner: a
// listing or a preview tests each lock by taking it for a moment (ownerPID),
// and settles a dead owner's record while it holds it.
const probeWait = 5 * time.Second

// acquire takes ownership of session id, or returns a *BusyError.
func (w *Workspace) acquire(id string) (vfs.Lock, error) { return w.acquireAs(id, false) }

// ownerBrief is the word after the pid in the lock file of an owner that
// holds it for one call (SessionOptions.Brief). Part of the format.
const ownerBrief = "brief"

// acquireAs takes ownership of session id as a brief owner or not (the
// lock file says which after the pid), or returns a *BusyError.
//
// A lock held without a live pid in it is not an owner: it is another
// process's (or this one's) listing testing it, or an owner in the moment
// between taking it and writing its pid, or letting it go. acquire tries
// again until the holder shows a pid or probeWait has passed, so that a
// session chosen in the picker is not refused because its preview, or a
// listing in another terminal, was reading it.
func (w *Workspace) acquireAs(id string, brief bool) (vfs.Lock, error) {
	fsys := w.s.fsys
	l, err := fsys.Lock(lockName(w.dir, id))
	for deadline := time.Now().Add(probeWait); errors.Is(err, vfs.ErrLocked); {
		// The pid and the word after it come from one read of the lock
		// file: read apart, a brief owner that lets go between the two
		// reads would be taken for one that holds the session until it
		// ends, and a hook would give up instead of waiting.
		pid, brief := ownerOf(fsys, lockName(w.dir, id))
		if pid > 0 && vfs.ProcessAlive(pid) || !time.Now().Before(deadline) {
			return nil, &BusyError{ID: id, PID: pid, Brief: brief}
		}
		l, err = fsys.Lock(lockName(w.dir, id))
	}
	if err != nil {
		return nil, fmt.Errorf("engine: session %s cannot be written (its lock): %w", id, err)
	}
	// The pid is written over whatever a dead owner left, then the file is
	// cut to it: a reader never sees it empty while we own it.
	pid := []byte(strconv.Itoa(os.Getpid()) + "\n")
	held := pid
	if brief {
		held = []byte(strconv.Itoa(os.Getpid()) + " " + ownerBrief + "\n")
	}
	f := l.File()
	if _, err := f.Seek(0, 0); err == nil {
		if _, err := f.Write(held); err == nil {
			f.Truncate(int64(len(held)))
		}
	}
	// The hint is best effort: a listing that misses it shows the session
	// as free, which a write would correct with exit 4.
	// It needs no sync: after a crash a lost hint only means a listing
	// shows the session as free, which is then true.
	if fsys.MkdirAll(path.Join(w.dir, "owners"), vfs.DirPerm) == nil {
		if h, err := fsys.OpenFile(ownersName(w.dir, id), os.O_CREATE|os.O_TRUNC|os.O_WRONLY, vfs.FilePerm); err == nil {
			h.Write(pid)
			h.Close()
		}
	}
	return l, nil
}

// release gives ownership up.
func (w *Workspace) release(id string, l vfs.Lock) error {
	w.s.fsys.Remove(ownersName(w.dir, id))
	return w.releaseKeepingHint(id, l)
}

// releaseKeepingHint lets go of session id's lock but leaves its owner hint,
// so that the next listing takes the session for one whose owner died and
// settles its record from the journal (ownerPID), and the next open sweeps
// by the hint. A session whose record could not be written closes so.
func (w *Workspace) releaseKeepingHint(id string, l vfs.Lock) error {
	if f := l.File(); f != nil {
		f.Truncate(0)
	}
	return l.Release()
}

// owners maps the ids of sessions another process owns to its pid.
func (w *Workspace) owners() map[string]int {
	fsys := w.s.fsys
	ents, err := fsys.ReadDir(path.Join(w.dir, "owners"))
	if err != nil {
		return nil
	}
	out := map[string]int{}
	for _, e := range ents {
		id := e.Name()
		if !validSessionID(id) {
			continue
		}
		if pid := w.ownerPID(id); pid != 0 {
			out[id] = pid
		}
	}
	return out
}

// ownerPID is the pid of the process that holds session id's lock (possibly
// this one), or 0 when none does. A session whose last owner died holding
// it (its hint or its pid is still there) may have a record older than its
// journal: while the lock is held here, that record is rebuilt.
func (w *Workspace) ownerPID(id string) int {
	fsys := w.s.fsys
	fi, err := fsys.Stat(lockName(w.dir, id))
	if err != nil {
		return 0
	}
	l, err := fsys.Lock(lockName(w.dir, id))
	if err == nil {
		// A dead owner (its hint or its pid still there) may have left
		// the record behind its journal: rebuilt while the lock is held
		// here. The hint stays for the next Open to sweep the dead
		// owner's temp files (temps.go).
		_, hinted := fsys.Stat(ownersName(w.dir, id))
		if hinted == nil || fi.Size() > 0 {
			w.settleRecord(id)
			if f := l.File(); f != nil {
				f.Truncate(0)
			}
		}
		l.Release()
		return 0
	}
	if errors.Is(err, vfs.ErrLocked) {
		if pid, _ := ownerOf(fsys, lockName(w.dir, id)); pid > 0 {
			return pid
		}
		return -1
	}
	return 0
}

// readOwner reads a lock file or hint: the pid, and whether the owner
// said it is brief (the word after the pid on the first line).
func readOwner(fsys vfs.FS, name string) (int, bool) {
	b, err := vfs.ReadFile(fsys, name)
	if err != nil {
		return 0, false
	}
	first, _, _ := strings.Cut(string(b), "\n")
	fs := strings.Fields(first)
	if len(fs) == 0 {
		return 0, false
	}
	pid, _ := strconv.Atoi(fs[0])
	return pid, len(fs) > 1 && fs[1] == ownerBrief
}

// ownerOf reads the pid of the process holding the lock file name, and
// whether it said it is brief, both from one read. A new owner writes its
// pid just after taking the lock, so a reader that finds none yet, or the
// pid of a process that is gone (left by a crashed owner), looks again for
// a moment before saying it does not know.
func ownerOf(fsys vfs.FS, name string) (int, bool) {
	for range 50 {
		if pid, brief := readOwner(fsys, name); pid > 0 && vfs.ProcessAlive(pid) {
			return pid, brief
		}
		time.Sleep(2 * time.Millisecond)
	}
	return readOwner(fsys, name)
}
