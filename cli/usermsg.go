package cli

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"sync"

	"cairn/internal/usermsg"
)

// userError and userText are what a person reads of an error
// (internal/usermsg): every error leaving the command goes through them.
func userError(err error) string { return heardMsg(usermsg.Error(err)) }

func userText(s string) string { return heardMsg(usermsg.Text(s)) }

// say prints a notice, msg, as the one line "cairn: MSG" on w, in the
// words userText makes of it.
func say(w io.Writer, msg string) {
	io.WriteString(w, "cairn: "+userText(msg)+"\n")
}

// heard, when set, hears every message the command prints for a person:
// each line on stderr, each "cairn:" line on stdout (the REPL prints its
// errors there), and each error worded for a --json answer, an MCP tool
// or a report. The tests set it and hold every message the suites make
// cairn print to usermsg.Leak's rule. It is nil in the command.
var heard struct {
	sync.Mutex
	f func(msg string)
}

func heardMsg(msg string) string {
	heard.Lock()
	defer heard.Unlock()
	if heard.f != nil {
		heard.f(msg)
	}
	return msg
}

// heardWriter is w, and, while heard is set, lines written to it are
// heard too: all of them, or only the "cairn:" lines.
func heardWriter(w io.Writer, all bool) io.Writer {
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

// plural is "1 item", "2 items", "0 items".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// itemWord is "item" for one and "items" for any other count.
func itemWord(n int) string {
	if n == 1 {
		return "item"
	}
	return "items"
}
