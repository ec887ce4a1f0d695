package history

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"cairn/internal/timefmt"
	"cairn/internal/vfs"
	"cairn/journal"
)

// Name is the history file, at the top of the state folder.
const Name = "history.jsonl"

type line struct {
	V    int          `json:"v"`
	Kind string       `json:"kind"`
	At   timefmt.Time `json:"at"`
	Text string       `json:"text"`
	Path string       `json:"path,omitempty"`
}

// Log is one process's handle on the history file: what Add needs of the
// file, the count of entries and the newest, and the file's size when it
// was read, so a prompt does not read the whole file again (a file of
// another size, appended or rewritten by another process, is read again).
// The zero Log is ready.
type Log struct {
	mu    sync.Mutex
	size  int64 // 0: not read yet; -1: unknown
	count int
	last  string
}

// All is every entry the file in fsys holds, before the cap; nil when it
// cannot be read.
func All(fsys vfs.FS) []string {
	var out []string
	_, err := journal.Read(fsys, Name, func(b []byte) error {
		var l line
		if json.Unmarshal(b, &l) != nil || l.V != 1 {
			return nil
		}
		switch l.Kind {
		case "prompt":
			if len(out) == 0 || out[len(out)-1] != l.Text {
				out = append(out, l.Text)
			}
		case "cancel":
			if len(out) > 0 && out[len(out)-1] == l.Text {
				out = out[:len(out)-1]
			}
		}
		return nil
	})
	if err != nil {
		return nil
	}
	return out
}

// Last is the newest n entries, oldest first.
func Last(fsys vfs.FS, n int) []string {
	out := All(fsys)
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out
}

// tail returns the count and newest entry of the history file, read again
// only when its size is not the one last seen. The caller holds l.mu.
func (l *Log) tail(fsys vfs.FS) (count int, last string) {
	fi, err := fsys.Stat(Name)
	size := int64(0)
	if err == nil {
		size = fi.Size()
	}
	if l.size == size && size > 0 {
		return l.count, l.last
	}
	h := All(fsys)
	l.size, l.count, l.last = size, len(h), ""
	if len(h) > 0 {
		l.last = h[len(h)-1]
	}
	return l.count, l.last
}

// Add records a submitted prompt typed in dir (now is the clock), and rewrites the
// file to its newest limit entries once it holds a tenth more. An empty
// prompt, or one equal to the newest entry, adds nothing.
func (l *Log) Add(fsys vfs.FS, now func() time.Time, limit int, text, dir string) error {
	if strings.TrimSpace(text) == "" {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	count, last := l.tail(fsys)
	if count > 0 && last == text {
		return nil
	}
	l.size = -1 // unknown until the append is done
	size, err := appendLine(fsys, now, line{V: 1, Kind: "prompt", At: timefmt.Mk(now()), Text: text, Path: dir})
	if err != nil {
		return err
	}
	if count+1 > limit+limit/10 {
		h := All(fsys)
		return rewrite(fsys, now, h[max(len(h)-limit, 0):])
	}
	l.size, l.count, l.last = size, count+1, text
	return nil
}

// Cancel takes a cancelled prompt back (when it is the newest of the
// newest n entries).
func (l *Log) Cancel(fsys vfs.FS, now func() time.Time, n int, text string) error {
	h := Last(fsys, n)
	if len(h) == 0 || h[len(h)-1] != text {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.size = -1
	_, err := appendLine(fsys, now, line{V: 1, Kind: "cancel", At: timefmt.Mk(now()), Text: text})
	return err
}

// Clear empties the history.
func (l *Log) Clear(fsys vfs.FS, now func() time.Time) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.size = -1
	return rewrite(fsys, now, nil)
}

// appendLine appends one line, synced, and returns the file's size after
// it; now dates a repair line.
func appendLine(fsys vfs.FS, now func() time.Time, l line) (int64, error) {
	w, _, err := journal.OpenWriter(fsys, Name, journal.Options{Sync: journal.SyncEvery, Now: now})
	if err != nil {
		return 0, fmt.Errorf("engine: history: %w", err)
	}
	defer w.Close()
	if err := w.Append(l); err != nil {
		return 0, err
	}
	return w.Size(), nil
}

// rewrite replaces the file with texts, as prompt lines dated now.
func rewrite(fsys vfs.FS, now func() time.Time, texts []string) error {
	var b strings.Builder
	at := timefmt.Mk(now())
	for _, t := range texts {
		l, _ := json.Marshal(line{V: 1, Kind: "prompt", At: at, Text: t})
		b.Write(l)
		b.WriteByte('\n')
	}
	return vfs.WriteFileAtomic(fsys, Name, []byte(b.String()))
}
