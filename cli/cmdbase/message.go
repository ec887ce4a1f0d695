package cmdbase

import (
	"bytes"
	"io"
	"runtime/debug"
	"strings"
	"sync"

	"cairn/internal/usermsg"
)

// UserError and UserText are what a person reads of an error
// (internal/usermsg): every error leaving a command goes through them.
func UserError(err error) string { return heardMsg(usermsg.Error(err)) }

// UserText is UserError for a message that is no error value.
func UserText(s string) string { return heardMsg(usermsg.Text(s)) }

// Say prints a notice, msg, as the one line "cairn: MSG" on w, in the
// words UserText makes of it.
func Say(w io.Writer, msg string) {
	io.WriteString(w, "cairn: "+UserText(msg)+"\n")
}

// heard, when set, hears every message a command prints for a person:
// each line on stderr, each "cairn:" line on stdout (the REPL prints its
// errors there), and each error worded for a --json answer, an MCP tool
// or a report. The tests set it (Hear) and hold every message the suites
// make cairn print to usermsg.Leak's rule. It is nil in the command.
var heard struct {
	sync.Mutex
	f func(msg string)
}

// Hear sets the function that hears every message (nil: none). For
// tests only.
func Hear(f func(msg string)) {
	heard.Lock()
	heard.f = f
	heard.Unlock()
}

func heardMsg(msg string) string {
	heard.Lock()
	defer heard.Unlock()
	if heard.f != nil {
		heard.f(msg)
	}
	return msg
}

// HeardWriter is w, and, while a test hears messages (Hear), lines
// written to it are heard too: all of them, or only the "cairn:" lines.
func HeardWriter(w io.Writer, all bool) io.Writer {
	heard.Lock()
	defer heard.Unlock()
	if heard.f == nil {
		return w
	}
	return &lineTap{w: w, all: all}
}

type lineTap struct {
	w    io.Writer
	all  bool
	line []byte
}

func (t *lineTap) Write(p []byte) (int, error) {
	t.line = append(t.line, p...)
	for {
		i := bytes.IndexByte(t.line, '\n')
		if i < 0 {
			break
		}
		line := string(t.line[:i])
		t.line = t.line[i+1:]
		if j := strings.Index(line, "cairn: "); t.all || j >= 0 {
			heardMsg(line)
		}
	}
	return t.w.Write(p)
}

// BurstGC turns the collector off for a short burst of allocation whose
// memory is all live until it ends (reading the index and writing the
// listing, a hook's one event), with a memory limit as the backstop, and
// returns the function that puts it back. A listing of 10,000 sessions
// otherwise spends a fifth of its time collecting nothing.
func BurstGC() func() {
	pct := debug.SetGCPercent(-1)
	limit := debug.SetMemoryLimit(1 << 30)
	return func() {
		debug.SetGCPercent(pct)
		debug.SetMemoryLimit(limit)
	}
}

// ShellQuote quotes s for a POSIX shell and fish alike.
func ShellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
