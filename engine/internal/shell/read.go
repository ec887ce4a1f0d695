package shell

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"cairn/internal/timefmt"
	"cairn/internal/vfs"
	"cairn/journal"
)

// Format constants of shell history.
const (
	// Keep is how many settled commands a reader shows and a rewrite keeps.
	Keep = 200
	// KeepBytes is the most bytes kept of each stream (and of a command).
	KeepBytes = 64 << 10
	// CompactAt is the number of settled commands that triggers a rewrite.
	CompactAt = 2 * Keep
)

// Run states, as Entry.Status.
const (
	Running     = "running"
	Finished    = "finished"
	Interrupted = "interrupted"
	// Cancelled is a command its owner stopped (a background line
	// cancelled, or its session closed while it ran); its exit is kept.
	Cancelled = "cancelled"
)

// line is a line of the journal.
type line struct {
	V         int          `json:"v"`
	Kind      string       `json:"kind"` // "start", "end" or "taken"
	Run       string       `json:"run"`
	At        timefmt.Time `json:"at"`
	Cmd       string       `json:"cmd,omitempty"`
	CmdCut    int64        `json:"cmd_cut,omitempty"`
	PID       int          `json:"pid,omitempty"`
	Owner     string       `json:"owner,omitempty"`
	Exit      *int         `json:"exit,omitempty"`
	Stdout    string       `json:"stdout,omitempty"`
	Stderr    string       `json:"stderr,omitempty"`
	StdoutCut int64        `json:"stdout_cut,omitempty"`
	StderrCut int64        `json:"stderr_cut,omitempty"`
	// Cancelled marks an end line of a command its owner stopped.
	Cancelled bool `json:"cancelled,omitempty"`
	// Runs: a taken line's highest dropped suffix per label.
	Runs map[string]int `json:"runs,omitempty"`
}

// Entry is one command of the journal as Read folds it.
type Entry struct {
	Run       string
	Cmd       string
	CmdCut    int64
	Status    string // Finished, or "" for a start without an end (Running or Interrupted: the reader decides)
	StartedAt timefmt.Time
	EndedAt   timefmt.Time // zero unless finished
	Exit      int          // meaningful when finished
	Stdout    string
	Stderr    string
	StdoutCut int64
	StderrCut int64
	// PID and Owner are the process and the owner token that started it.
	PID   int
	Owner string

	raw     []rawLine // the entry's journal lines, for a rewrite
	settled int       // index of the line that settled it: its end, or its start
}

// rawLine is a journal line and its index in the journal.
type rawLine struct {
	n    int
	line []byte
}

// Read folds journal name into entries in start order, with Status
// Finished for those with an end line and "" for the others, and merges
// its taken lines into dropped. A missing journal is empty; lines that make
// no sense (an end without a start) are skipped.
func Read(fsys vfs.FS, name string) (ents []*Entry, dropped map[string]int, err error) {
	byRun := map[string]*Entry{}
	dropped = map[string]int{}
	n := -1
	_, err = journal.Read(fsys, name, func(b []byte) error {
		n++
		var l line
		if json.Unmarshal(b, &l) != nil || l.V != 1 {
			return nil
		}
		if l.Kind == "taken" {
			for k, m := range l.Runs {
				dropped[k] = max(dropped[k], m)
			}
			return nil
		}
		if l.Run == "" {
			return nil
		}
		switch l.Kind {
		case "start":
			e := &Entry{Run: l.Run, Cmd: l.Cmd, CmdCut: l.CmdCut, StartedAt: l.At, PID: l.PID, Owner: l.Owner,
				raw: []rawLine{{n, append([]byte(nil), b...)}}, settled: n}
			if old := byRun[l.Run]; old != nil && old.Status == "" {
				old.Status = Interrupted // an id reused: the older run never ended
			}
			byRun[l.Run] = e
			ents = append(ents, e)
		case "end":
			e := byRun[l.Run]
			if e == nil || e.Status != "" || l.Exit == nil {
				return nil
			}
			e.Status, e.EndedAt, e.Exit = Finished, l.At, *l.Exit
			if l.Cancelled {
				e.Status = Cancelled
			}
			e.Stdout, e.Stderr, e.StdoutCut, e.StderrCut = l.Stdout, l.Stderr, l.StdoutCut, l.StderrCut
			e.raw = append(e.raw, rawLine{n, append([]byte(nil), b...)})
			e.settled = n
		}
		return nil
	})
	if err != nil && !vfs.IsNotExist(err) {
		return nil, nil, fmt.Errorf("shell: read shell history: %w", err)
	}
	return ents, dropped, nil
}

// Newest is the Keep entries settled last and every running one, in
// start order.
func Newest(ents []*Entry, running func(*Entry) bool) []*Entry {
	var at []int
	for _, e := range ents {
		if !running(e) {
			at = append(at, e.settled)
		}
	}
	cutoff := -1 // entries settled at or before it go
	if len(at) > Keep {
		slices.Sort(at)
		cutoff = at[len(at)-Keep-1]
	}
	var out []*Entry
	for _, e := range ents {
		if !running(e) && e.settled <= cutoff {
			continue
		}
		out = append(out, e)
	}
	return out
}

// splitRun splits a run id into its label and its suffix ("shell-ls-3":
// "shell-ls", 3; "shell-ls": "shell-ls", 1). No shell label ends in
// "-<digits>" (ids.ShellLabel's table), so the split is exact.
func splitRun(id string) (string, int) {
	i := strings.LastIndexByte(id, '-')
	if i < 0 {
		return id, 1
	}
	n, err := strconv.Atoi(id[i+1:])
	if err != nil || n < 2 || id[i+1] == '0' {
		return id, 1
	}
	return id[:i], n
}

// tail keeps the last n bytes of b, starting on a UTF-8 sequence
// boundary, and says how many bytes it cut.
func tail(b []byte, n int) (string, int64) {
	if len(b) <= n {
		return string(b), 0
	}
	start := len(b) - n
	for i := 0; i < utf8.UTFMax-1 && start < len(b) && !utf8.RuneStart(b[start]); i++ {
		start++
	}
	return string(b[start:]), int64(start)
}

// Head keeps the first n bytes of s, ending on a UTF-8 sequence boundary,
// and says how many bytes it cut.
func Head(s string, n int) (string, int64) {
	if len(s) <= n {
		return s, 0
	}
	end := n
	for i := 0; i < utf8.UTFMax-1 && end > 0 && !utf8.RuneStart(s[end]); i++ {
		end--
	}
	return s[:end], int64(len(s) - end)
}

// Shown is one command of a session's shell history as a reader sees it.
type Shown struct {
	Run       string       `json:"run"`
	Cmd       string       `json:"cmd"`
	CmdCut    int64        `json:"cmd_cut,omitempty"`
	Status    string       `json:"status"` // Running, Finished, Cancelled or Interrupted
	StartedAt timefmt.Time `json:"started_at"`
	EndedAt   timefmt.Time `json:"ended_at"` // zero unless finished or cancelled
	Exit      int          `json:"exit"`     // meaningful when finished or cancelled
	Stdout    string       `json:"stdout,omitempty"`
	Stderr    string       `json:"stderr,omitempty"`
	StdoutCut int64        `json:"stdout_cut,omitempty"`
	StderrCut int64        `json:"stderr_cut,omitempty"`
}

// History is the history a reader sees of the entries Read folded: each
// start without an end read as Running when running says its command
// still runs, else Interrupted; then the Keep settled last and every
// running one (Newest), in start order.
func History(ents []*Entry, running func(*Entry) bool) []Shown {
	for _, e := range ents {
		if e.Status == "" {
			e.Status = Interrupted
			if running(e) {
				e.Status = Running
			}
		}
	}
	keep := Newest(ents, func(e *Entry) bool { return e.Status == Running })
	out := make([]Shown, len(keep))
	for i, e := range keep {
		out[i] = Shown{Run: e.Run, Cmd: e.Cmd, CmdCut: e.CmdCut, Status: e.Status, StartedAt: e.StartedAt,
			EndedAt: e.EndedAt, Exit: e.Exit, Stdout: e.Stdout, Stderr: e.Stderr, StdoutCut: e.StdoutCut, StderrCut: e.StderrCut}
	}
	return out
}
