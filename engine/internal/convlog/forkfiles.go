package convlog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"time"

	"cairn/engine/internal/changes"
	"cairn/internal/timefmt"
	"cairn/internal/vfs"
	"cairn/journal"
)

// The files a fork writes beside its child's items journal: the fork lock
// that numbers forks one at a time, and the shared change records.

// ForkLockName is the lock a fork holds while it numbers and makes its
// child; one per workspace folder dir, never removed.
func ForkLockName(dir string) string { return path.Join(dir, "sessions", "fork.lock") }

// LockForks waits for the fork lock of workspace folder dir, or for ctx to
// end.
func LockForks(ctx context.Context, fsys vfs.FS, dir string) (vfs.Lock, error) {
	wait := time.Millisecond
	for {
		l, err := fsys.Lock(ForkLockName(dir))
		if err == nil {
			return l, nil
		}
		if !errors.Is(err, vfs.ErrLocked) {
			return nil, fmt.Errorf("engine: fork: take the fork lock: %w", err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 50*time.Millisecond)
	}
}

// Listed is what NextForkN needs of a session of the listing.
type Listed struct {
	ForkOf string // the session it was forked from, "" for none
	Title  string
}

// NextForkN numbers the next fork of parent, titled title: one more than
// the forks of it the listing holds, and past any number whose title a
// session already has (a fork deleted from the middle). The caller holds
// the fork lock.
func NextForkN(listing []Listed, parent, title string) int {
	n := 0
	titles := map[string]bool{}
	for _, e := range listing {
		if e.ForkOf == parent {
			n++
		}
		titles[e.Title] = true
	}
	n++
	for titles[ForkTitle(title, n)] {
		n++
	}
	return n
}

// ForkTitle is the title of fork n of a session titled title.
func ForkTitle(title string, n int) string {
	return fmt.Sprintf("%s (fork #%d)", OrUntitled(title), n)
}

// OrUntitled is t, or "untitled" when t is empty.
func OrUntitled(t string) string {
	if t == "" {
		return "untitled"
	}
	return t
}

// ShareChanges gives the child the parent's change records (their
// changes journals, named by parentName and childName): the complete lines
// of the parent's journal, which name objects the workspace shares. No file
// data is copied.
func ShareChanges(fsys vfs.FS, parentName, childName string, now timefmt.Time) error {
	if _, err := fsys.Stat(parentName); vfs.IsNotExist(err) {
		return nil
	}
	var buf bytes.Buffer
	_, err := journal.Read(fsys, parentName, func(line []byte) error {
		buf.Write(line)
		buf.WriteByte('\n')
		return nil
	})
	if err != nil || buf.Len() == 0 {
		return err
	}
	// The child's records start where the parent's do, and its pending
	// revert state starts clean: a start line why "fork" ends the parent's
	// stack of file reverts in the child (changes.Timeline).
	mark, _ := json.Marshal(changes.MarkLine{V: 1, Kind: changes.KindStart, At: now, Why: "fork"})
	buf.Write(append(mark, '\n'))
	return vfs.WriteFileAtomic(fsys, childName, buf.Bytes())
}
