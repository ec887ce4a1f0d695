package owner

import (
	"errors"
	"fmt"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	"cairn/engine/internal/layout"
	"cairn/internal/vfs"
)

// BriefWord is the word after the pid in the lock file of an owner that
// holds it for one call. Part of the format.
const BriefWord = "brief"

// ProbeWait is how long Acquire waits out a lock held by no owner: a
// listing or a preview tests each lock by taking it for a moment (PID),
// and settles a dead owner's record while it holds it.
const ProbeWait = 5 * time.Second

// Busy says another process owns the session: its pid (0 when it cannot
// be read), and whether it said it holds it for one call only.
type Busy struct {
	PID   int
	Brief bool
}

func (b *Busy) Error() string { return fmt.Sprintf("owned by pid %d", b.PID) }

// Hint is session id's owner hint in workspace folder ws.
func Hint(ws, id string) string { return layout.Owner(ws, id) }

// Acquire takes ownership of session id of workspace folder ws, as a
// brief owner or not (the lock file says which after the pid), or returns
// a *Busy.
//
// A lock held without a live pid in it is not an owner: it is another
// process's (or this one's) listing testing it, or an owner in the moment
// between taking it and writing its pid, or letting it go. Acquire tries
// again until the holder shows a pid or ProbeWait has passed, so that a
// session chosen in the picker is not refused because its preview, or a
// listing in another terminal, was reading it.
func Acquire(fsys vfs.FS, ws, id string, brief bool) (vfs.Lock, error) {
	name := layout.Lock(ws, id)
	l, err := fsys.Lock(name)
	for deadline := time.Now().Add(ProbeWait); errors.Is(err, vfs.ErrLocked); {
		// The pid and the word after it come from one read of the lock
		// file: read apart, a brief owner that lets go between the two
		// reads would be taken for one that holds the session until it
		// ends, and a hook would give up instead of waiting.
		pid, brief := Of(fsys, name)
		if pid > 0 && vfs.ProcessAlive(pid) || !time.Now().Before(deadline) {
			return nil, &Busy{PID: pid, Brief: brief}
		}
		l, err = fsys.Lock(name)
	}
	if err != nil {
		return nil, err
	}
	// The pid is written over whatever a dead owner left, then the file is
	// cut to it: a reader never sees it empty while we own it.
	pid := []byte(strconv.Itoa(os.Getpid()) + "\n")
	held := pid
	if brief {
		held = []byte(strconv.Itoa(os.Getpid()) + " " + BriefWord + "\n")
	}
	f := l.File()
	if _, err := f.Seek(0, 0); err == nil {
		if _, err := f.Write(held); err == nil {
			f.Truncate(int64(len(held)))
		}
	}
	// The hint is best effort: a listing that misses it shows the session
	// as free, which a write would correct with exit 4. It needs no sync:
	// after a crash a lost hint only means a listing shows the session as
	// free, which is then true.
	if fsys.MkdirAll(path.Join(ws, layout.Owners), vfs.DirPerm) == nil {
		if h, err := fsys.OpenFile(Hint(ws, id), os.O_CREATE|os.O_TRUNC|os.O_WRONLY, vfs.FilePerm); err == nil {
			h.Write(pid)
			h.Close()
		}
	}
	return l, nil
}

// Release gives ownership of session id up: its hint goes, then the lock.
func Release(fsys vfs.FS, ws, id string, l vfs.Lock) error {
	fsys.Remove(Hint(ws, id))
	return ReleaseKeepingHint(l)
}

// ReleaseKeepingHint lets go of a session's lock but leaves its owner
// hint, so that the next listing takes the session for one whose owner
// died and settles its record from the journal (PID), and the next open
// sweeps by the hint.
func ReleaseKeepingHint(l vfs.Lock) error {
	if f := l.File(); f != nil {
		f.Truncate(0)
	}
	return l.Release()
}

// Owners maps the ids of the sessions of ws that a process owns (this
// one included) to its pid (PID; settle as there).
func Owners(fsys vfs.FS, ws string, settle func(id string)) map[string]int {
	ents, err := fsys.ReadDir(path.Join(ws, layout.Owners))
	if err != nil {
		return nil
	}
	out := map[string]int{}
	for _, e := range ents {
		id := e.Name()
		if !layout.ValidSessionID(id) {
			continue
		}
		if pid := PID(fsys, ws, id, settle); pid != 0 {
			out[id] = pid
		}
	}
	return out
}

// PID is the pid of the process that holds session id's lock (possibly
// this one), -1 when one holds it without a pid, or 0 when none does. A
// session whose last owner died holding it (its hint or its pid is still
// there) may have a record older than its journal: settle(id) rebuilds it
// while the lock is held here, and the hint stays for the next open to
// sweep the dead owner's temp files.
func PID(fsys vfs.FS, ws, id string, settle func(id string)) int {
	name := layout.Lock(ws, id)
	fi, err := fsys.Stat(name)
	if err != nil {
		return 0
	}
	l, err := fsys.Lock(name)
	if err == nil {
		_, hinted := fsys.Stat(Hint(ws, id))
		if hinted == nil || fi.Size() > 0 {
			settle(id)
			if f := l.File(); f != nil {
				f.Truncate(0)
			}
		}
		l.Release()
		return 0
	}
	if errors.Is(err, vfs.ErrLocked) {
		if pid, _ := Of(fsys, name); pid > 0 {
			return pid
		}
		return -1
	}
	return 0
}

// Read reads a lock file or hint: the pid, and whether the owner said it
// is brief (the word after the pid on the first line).
func Read(fsys vfs.FS, name string) (int, bool) {
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
	return pid, len(fs) > 1 && fs[1] == BriefWord
}

// Of reads the pid of the process holding the lock file name, and whether
// it said it is brief, both from one read. A new owner writes its pid just
// after taking the lock, so a reader that finds none yet, or the pid of a
// process that is gone (left by a crashed owner), looks again for a moment
// before saying it does not know.
func Of(fsys vfs.FS, name string) (int, bool) {
	for range 50 {
		if pid, brief := Read(fsys, name); pid > 0 && vfs.ProcessAlive(pid) {
			return pid, brief
		}
		time.Sleep(2 * time.Millisecond)
	}
	return Read(fsys, name)
}
