package errs

import (
	"fmt"
	"strings"
	"time"
)

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

// LoadLimitError says a session is too big to open at the current ceiling.
type LoadLimitError struct {
	ID        string
	Bytes     int64
	CeilingMB int
}

func (e *LoadLimitError) Error() string {
	return fmt.Sprintf("session %s holds %s of payloads, over the %d MB ceiling (storage.max_eager_load_mb) it can be opened with; "+
		"it can still be read and forked: cairn transcript %s lists its items, and cairn fork %s --at ITEM carries the useful part forward; "+
		"or raise the ceiling (CAIRN_MAX_EAGER_LOAD_MB=%d for one run, or storage.max_eager_load_mb in config.json)",
		e.ID, SizeMB(e.Bytes), e.CeilingMB, e.ID, e.ID, (e.Bytes>>20)+1)
}

// SizeMB says a payload size in MB with one decimal: "0.4 MB".
func SizeMB(b int64) string { return fmt.Sprintf("%.1f MB", float64(b)/(1<<20)) }

func (e *LoadLimitError) Unwrap() error { return ErrRefused }

// Why is the refusal's text, which says no "refused".
func (e *LoadLimitError) Why() string { return e.Error() }

// UnreadableError says a session's items journal is no session cairn can
// read: it holds lines and not one of them can be read (something other
// than cairn wrote over it), or it has no session line (an older build
// left it empty when its creation failed). Such a session is left as it
// is, out of the list, and never appended to.
type UnreadableError struct {
	ID   string
	File string // the items journal, an absolute path
	// NoSessionLine: the journal reads, but no line of it starts a session.
	NoSessionLine bool
}

func (e *UnreadableError) Error() string {
	what := "holds no line cairn can read"
	if e.NoSessionLine {
		what = "has no session line"
	}
	return fmt.Sprintf("session %s cannot be read: %s %s; it is left as it is (cairn storage fsck names what is wrong)", e.ID, e.File, what)
}

func (e *UnreadableError) Unwrap() error { return ErrRefused }

// Why is the refusal's text, which says no "refused".
func (e *UnreadableError) Why() string { return e.Error() }
