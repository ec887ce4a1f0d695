package engine

// Reading a session's shell history without owning it, and deleting it
// with its session; the writer side is shell.go.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"unicode/utf8"

	"cairn/internal/vfs"
	"cairn/journal"
)

// ShellHistory is session's shell history, in start order: the newest
// ShellKeep settled commands (finished or interrupted) and every running
// one. It needs no ownership.
func (w *Workspace) ShellHistory(ctx context.Context, session string) ([]ShellEntry, error) {
	if !validSessionID(session) {
		return nil, fmt.Errorf("%w: %q is not a session id", ErrBadInput, session)
	}
	fsys := w.s.fsys
	if _, err := fsys.Stat(itemsName(w.dir, session)); err != nil {
		if vfs.IsNotExist(err) {
			return nil, fmt.Errorf("%w: %s in %s", ErrNotFound, session, w.path)
		}
		return nil, err
	}
	w.sweepKilled()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ents, _, err := readShell(fsys, shellName(w.dir, session))
	if err != nil {
		return nil, err
	}
	var (
		owner    int // the pid owning the session, once looked up
		openedAt Time
		looked   bool
	)
	running := func(e *ShellEntry) bool {
		if e.pid == os.Getpid() {
			if v, ok := w.s.shellLive.Load(shellName(w.dir, session)); ok {
				sh, open := v.(*shellLog)
				return open && sh.live(e.owner, e.Run)
			}
			// Not open in this store: another store of this process
			// may own it, and is asked as another process would be.
		}
		if !looked {
			owner, looked = w.ownerPID(session), true
			if r, err := readRecord(fsys, w.dir, session); err == nil {
				openedAt = r.OpenedAt
			}
		}
		// A start from before the owner opened the session is not its
		// own, even under the same pid (a pid reused after a crash).
		return e.pid > 0 && e.pid == owner && !openedAt.After(e.StartedAt.Time)
	}
	for _, e := range ents {
		if e.Status == "" {
			if running(e) {
				e.Status = ShellRunning
			} else {
				e.Status = ShellInterrupted
			}
		}
	}
	keep := keepShell(ents, func(e *ShellEntry) bool { return e.Status == ShellRunning })
	out := make([]ShellEntry, len(keep))
	for i, e := range keep {
		out[i] = *e
		out[i].raw = nil
	}
	return out, nil
}

// readShell folds a shell journal into entries in start order, with Status
// ShellFinished for those with an end line and "" for the others, and
// merges its taken lines into dropped (shell.go). A missing journal is
// empty; lines that make no sense (an end without a start) are skipped.
func readShell(fsys vfs.FS, name string) (ents []*ShellEntry, dropped map[string]int, err error) {
	byRun := map[string]*ShellEntry{}
	dropped = map[string]int{}
	n := -1
	_, err = journal.Read(fsys, name, func(line []byte) error {
		n++
		var l shellLine
		if json.Unmarshal(line, &l) != nil || l.V != 1 {
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
			e := &ShellEntry{Run: l.Run, Cmd: l.Cmd, CmdCut: l.CmdCut, StartedAt: l.At, pid: l.PID, owner: l.Owner,
				raw: []shellRaw{{n, append([]byte(nil), line...)}}, settled: n}
			if old := byRun[l.Run]; old != nil && old.Status == "" {
				old.Status = ShellInterrupted // an id reused: the older run never ended
			}
			byRun[l.Run] = e
			ents = append(ents, e)
		case "end":
			e := byRun[l.Run]
			if e == nil || e.Status != "" || l.Exit == nil {
				return nil
			}
			e.Status, e.EndedAt, e.Exit = ShellFinished, l.At, *l.Exit
			e.Stdout, e.Stderr, e.StdoutCut, e.StderrCut = l.Stdout, l.Stderr, l.StdoutCut, l.StderrCut
			e.raw = append(e.raw, shellRaw{n, append([]byte(nil), line...)})
			e.settled = n
		}
		return nil
	})
	if err != nil && !vfs.IsNotExist(err) {
		return nil, nil, fmt.Errorf("engine: read shell history: %w", err)
	}
	return ents, dropped, nil
}

// DeleteShellHistory removes session's shell history (with the session).
func (w *Workspace) DeleteShellHistory(ctx context.Context, session string) error {
	if !validSessionID(session) {
		return fmt.Errorf("%w: %q is not a session id", ErrBadInput, session)
	}
	name := shellName(w.dir, session)
	if err := w.s.fsys.Remove(name); err != nil {
		if vfs.IsNotExist(err) {
			return nil
		}
		return fmt.Errorf("engine: delete shell history: %w", err)
	}
	return w.s.fsys.SyncDir(path.Dir(name))
}

// tail keeps the last n bytes of b, starting on a UTF-8 sequence boundary,
// and says how many bytes it cut.
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

// head keeps the first n bytes of s, ending on a UTF-8 sequence boundary.
func head(s string, n int) (string, int64) {
	if len(s) <= n {
		return s, 0
	}
	end := n
	for i := 0; i < utf8.UTFMax-1 && end > 0 && !utf8.RuneStart(s[end]); i++ {
		end--
	}
	return s[:end], int64(len(s) - end)
}
