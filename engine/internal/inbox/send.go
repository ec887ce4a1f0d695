package inbox

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path"
	"strings"
	"time"
	"unicode/utf8"

	"cairn/internal/timefmt"
	"cairn/internal/vfs"
)

// appendLine writes b, one whole line, to the end of name with one write
// and syncs it; the file (and its folder) is made durably when missing.
func appendLine(fsys vfs.FS, name string, b []byte) error {
	f, err := fsys.OpenFile(name, os.O_WRONLY|os.O_APPEND, 0)
	if vfs.IsNotExist(err) {
		if err = vfs.MkdirAllDurable(fsys, path.Dir(name), vfs.DirPerm); err != nil {
			return fmt.Errorf("inbox: make %s: %w", path.Dir(name), err)
		}
		f, err = fsys.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE, vfs.FilePerm)
		if err == nil {
			if err = fsys.SyncDir(path.Dir(name)); err != nil {
				f.Close()
			}
		}
	}
	if err != nil {
		return fmt.Errorf("inbox: open %s: %w", name, err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		return fmt.Errorf("inbox: write %s: %w", name, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("inbox: sync %s: %w", name, err)
	}
	return nil
}

// Live reports whether a process holds the lock file lockName: whether the
// session is open anywhere. It takes the lock for a moment to see; a
// missing lock file is no owner (and is not made).
func Live(fsys vfs.FS, lockName string) (bool, error) {
	if _, err := fsys.Stat(lockName); err != nil {
		if vfs.IsNotExist(err) {
			return false, nil
		}
		return false, err
	}
	l, err := fsys.Lock(lockName)
	if errors.Is(err, vfs.ErrLocked) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("inbox: test %s: %w", lockName, err)
	}
	return false, l.Release()
}

// SendOptions tune Send.
type SendOptions struct {
	// Queue keeps a message to a session that is not live, to be
	// delivered when it is next opened, instead of refusing it.
	Queue bool
	// Now is the clock of the line; nil means time.Now.
	Now func() time.Time
}

// Sent says what became of a message.
type Sent struct {
	ID string `json:"id"`
	// Queued: the session was not live; the message waits for it to be
	// opened again.
	Queued bool `json:"queued"`
}

// CheckText refuses a message text that is blank, not UTF-8 or over
// MaxText bytes.
func CheckText(text string) error {
	switch {
	case strings.TrimSpace(text) == "":
		return fmt.Errorf("%w: a message needs text", ErrInvalid)
	case !utf8.ValidString(text):
		return fmt.Errorf("%w: a message is UTF-8 text", ErrInvalid)
	case len(text) > MaxText:
		return fmt.Errorf("%w: a message is at most %d bytes (this one has %d)", ErrInvalid, MaxText, len(text))
	}
	return nil
}

// Send appends a message from from ("" for a script) to the inbox name of
// the session whose lock file is lockName. A session that is not live
// refuses it with ErrNotLive, unless opt.Queue. The line is synced before
// Send returns.
func Send(fsys vfs.FS, name, lockName, from, text string, opt SendOptions) (Sent, error) {
	if err := CheckText(text); err != nil {
		return Sent{}, err
	}
	live, err := Live(fsys, lockName)
	if err != nil {
		return Sent{}, err
	}
	if !live && !opt.Queue {
		return Sent{}, ErrNotLive
	}
	now := time.Now
	if opt.Now != nil {
		now = opt.Now
	}
	b := make([]byte, 8)
	rand.Read(b)
	id := "m-" + hex.EncodeToString(b)
	ln, err := encode(&line{Kind: KindMsg, ID: id, From: from, Text: text, At: timefmt.Mk(now())})
	if err != nil {
		return Sent{}, err
	}
	if err := appendLine(fsys, name, ln); err != nil {
		return Sent{}, err
	}
	return Sent{ID: id, Queued: !live}, nil
}

// MessageOptions change how a message is sent (engine Workspace.SendMessage).
type MessageOptions struct {
	// From is the sending session's id; "" for a script.
	From string
	// Queue keeps a message to a session that is not open anywhere, to
	// be delivered when it is next opened, instead of refusing it.
	Queue bool
}
