package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"cairn/engine/ids"
	"cairn/engine/internal/bgwork"
	"cairn/engine/internal/tasks"
	"cairn/internal/vfs"
	"cairn/journal"
)

// fsckTasks checks the task folders of workspace folder dir (task.go): each
// belongs to a session; its records journal and transcripts read, their
// lines of known kinds; every agent task's record has its transcript and
// every transcript its record; every "task" call item of a session names a
// record. named collects the objects the transcripts name (payloads,
// attachments), which the caller verifies with the rest.
func (s *Store) fsckTasks(ctx context.Context, r *FsckReport, dir string, bad, note reporter, named map[string][]string) {
	calls := s.taskCalls(dir)
	ents, _ := s.fsys.ReadDir(tasksDir(dir))
	have := map[string]bool{}
	for _, e := range ents {
		if ctx.Err() != nil {
			return
		}
		name := path.Join(tasksDir(dir), e.Name())
		if msg, ok := dotNote(e.Name()); ok {
			note(name, "%s", msg)
			continue
		}
		session := e.Name()
		if !e.IsDir() || !validSessionID(session) {
			bad(name, "unexpected file in the tasks folder")
			continue
		}
		have[session] = true
		if _, err := s.fsys.Stat(itemsName(dir, session)); err != nil {
			note(name, "task records of no session (%s holds no items journal): left by a delete or fork that did not finish; an open removes them once a week old", session)
			continue
		}
		s.fsckTaskFolder(r, dir, session, calls[session], bad, note, named)
	}
	for session, tasks := range calls {
		if !have[session] && len(tasks) > 0 {
			for task, at := range tasks {
				bad(at, "a task call names task %s, which has no record (%s is missing)", task, taskRecordsName(dir, session))
			}
		}
	}
}

// fsckTaskFolder checks the records and transcripts of one session.
func (s *Store) fsckTaskFolder(r *FsckReport, dir, session string, calls map[string]string, bad, note reporter, named map[string][]string) {
	folder := taskDir(dir, session)
	recName := taskRecordsName(dir, session)
	recs := map[string]string{} // task id -> type
	if _, err := s.fsys.Stat(recName); err == nil {
		s.fsckJournal(r, recName, bad, note, nil)
		readLines(s.fsys, recName, bad, func(b []byte, why func(string, ...any)) {
			var l tasks.Line
			switch {
			case json.Unmarshal(b, &l) != nil || l.V != 1:
				why("not a task record line, skipped by a read")
			case !ids.Valid(l.Task):
				why("task id %q is not one cairn makes", l.Task)
			case l.Kind == "start":
				if _, dup := recs[l.Task]; dup {
					why("task %s started again: a read keeps the first", l.Task)
				}
				recs[l.Task] = l.Type
			case l.Kind == "continue" || l.Kind == "end":
				if _, ok := recs[l.Task]; !ok {
					why("a %s line of task %s, which no earlier line started", l.Kind, l.Task)
				}
			default:
				why("a line of unknown kind %q, skipped by a read", l.Kind)
			}
		})
	}
	for task, at := range calls {
		if _, ok := recs[task]; !ok {
			bad(at, "a task call names task %s, which has no record", task)
		}
	}
	ents, _ := s.fsys.ReadDir(folder)
	transcripts := map[string]bool{}
	for _, e := range ents {
		name := path.Join(folder, e.Name())
		if msg, ok := dotNote(e.Name()); ok {
			note(name, "%s", msg)
			continue
		}
		switch e.Name() {
		case tasks.RecordsFile, inboxFile:
			// The inbox is appended to without a lock: a torn line a
			// crash left there is read past by design (engine/internal/inbox).
			continue
		case workLedgerFile:
			s.fsckJournal(r, name, bad, note, nil)
			if st, err := bgwork.Read(s.fsys, name); err == nil && st.Skipped > 0 {
				bad(name, "%d lines make no sense where they stand (a read skips them)", st.Skipped)
			}
			continue
		}
		task, ok := strings.CutSuffix(e.Name(), tasks.TranscriptSuffix)
		if !ok || !ids.Valid(task) {
			bad(name, "unexpected file in a task folder")
			continue
		}
		transcripts[task] = true
		s.fsckJournal(r, name, bad, note, named)
		if typ, ok := recs[task]; !ok || typ == TaskTypeShell {
			bad(name, "a transcript no task record names")
		}
		s.fsckTranscript(name, bad)
	}
	for task, typ := range recs {
		if typ != TaskTypeShell && !transcripts[task] {
			bad(recName, "task %s has no transcript (%s is missing)", task, taskItemsName(dir, session, task))
		}
	}
}

// fsckTranscript names the lines of a transcript a read passes over: of
// another version or an unknown kind, an item whose parent no earlier line
// holds, an item that breaks the tree.
func (s *Store) fsckTranscript(name string, bad reporter) {
	st := newState("", "")
	readLines(s.fsys, name, bad, func(b []byte, why func(string, ...any)) {
		var l itemLine
		switch {
		case json.Unmarshal(b, &l) != nil || l.V != 1:
			why("not a transcript line, skipped by a read")
			return
		case l.Kind == kindItem:
			if l.Parent != nil && *l.Parent != "" && st.items[*l.Parent] == nil {
				why("item %s names parent %s, which no earlier line holds", l.ID, *l.Parent)
			}
		case l.Kind == tasks.KindHeader, l.Kind == kindHead, l.Kind == journal.KindRepair:
		default:
			why("a line of unknown kind %q, skipped by a read", l.Kind)
			return
		}
		if err := st.apply(&l); err != nil {
			why("skipped by a read: %v", err)
		}
	})
}

// readLines calls fn with each complete line of journal name that reads;
// what fn says is wrong is reported at the line's number in the file. A
// journal that cannot be read is fsckJournal's to report.
func readLines(fsys vfs.FS, name string, bad reporter, fn func(b []byte, why func(format string, a ...any))) {
	type problem struct {
		good int
		msg  string
	}
	var probs []problem
	good := 0
	jst, err := journal.Read(fsys, name, func(b []byte) error {
		good++
		fn(b, func(format string, a ...any) { probs = append(probs, problem{good, fmt.Sprintf(format, a...)}) })
		return nil
	})
	if err != nil {
		return
	}
	for _, p := range probs {
		bad(fmt.Sprintf("%s:%d", name, fileLine(p.good, jst.Bad)), "%s", p.msg)
	}
}

// taskCalls finds, in every items journal of workspace folder dir, the
// item lines that name a task: session -> task -> "path:line".
func (s *Store) taskCalls(dir string) map[string]map[string]string {
	out := map[string]map[string]string{}
	ents, _ := s.fsys.ReadDir(path.Join(dir, "sessions"))
	for _, e := range ents {
		session, ok := strings.CutSuffix(e.Name(), ".items.jsonl")
		if !ok || !validSessionID(session) {
			continue
		}
		name := itemsName(dir, session)
		good := map[string]int{}
		n := 0
		jst, err := journal.Read(s.fsys, name, func(b []byte) error {
			n++
			if !bytes.Contains(b, []byte(`"task":`)) {
				return nil
			}
			var l itemLine
			if json.Unmarshal(b, &l) == nil && l.Kind == kindItem && l.Task != "" {
				good[l.Task] = n
			}
			return nil
		})
		if err != nil || len(good) == 0 {
			continue
		}
		out[session] = map[string]string{}
		for task, g := range good {
			out[session][task] = fmt.Sprintf("%s:%d", name, fileLine(g, jst.Bad))
		}
	}
	return out
}
