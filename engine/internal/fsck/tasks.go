package fsck

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"cairn/engine/ids"
	"cairn/engine/internal/bgwork"
	"cairn/engine/internal/layout"
	"cairn/engine/internal/tasks"
	"cairn/journal"
)

// tasks checks the task folders of workspace folder dir: each belongs to
// a session; its records journal and transcripts read, their lines of
// known kinds; every agent task's record has its transcript and every
// transcript its record; every "task" call item of a session names a
// record. named collects the objects the transcripts name (payloads,
// attachments), which the caller verifies with the rest.
func (c *Checker) tasks(ctx context.Context, dir string, named map[string][]string) {
	calls := c.taskCalls(dir)
	root := path.Join(dir, layout.Tasks)
	ents, _ := c.FS.ReadDir(root)
	have := map[string]bool{}
	for _, e := range ents {
		if ctx.Err() != nil {
			return
		}
		name := path.Join(root, e.Name())
		if msg, ok := DotNote(e.Name()); ok {
			c.Note(name, "%s", msg)
			continue
		}
		session := e.Name()
		if !e.IsDir() || !layout.ValidSessionID(session) {
			c.Bad(name, "unexpected file in the tasks folder")
			continue
		}
		have[session] = true
		if _, err := c.FS.Stat(layout.Items(dir, session)); err != nil {
			c.Note(name, "task records of no session (%s holds no items journal): left by a delete or fork that did not finish; an open removes them once a week old", session)
			continue
		}
		c.taskFolder(dir, session, calls[session], named)
	}
	for session, ts := range calls {
		if !have[session] && len(ts) > 0 {
			for task, at := range ts {
				c.Bad(at, "a task call names task %s, which has no record (%s is missing)", task, tasks.RecordsName(dir, session))
			}
		}
	}
}

// taskFolder checks the records and transcripts of one session.
func (c *Checker) taskFolder(dir, session string, calls map[string]string, named map[string][]string) {
	folder := tasks.Dir(dir, session)
	recName := tasks.RecordsName(dir, session)
	recs := map[string]string{} // task id -> type
	if _, err := c.FS.Stat(recName); err == nil {
		c.Journal(recName, nil)
		c.lines(recName, func(b []byte, why func(string, ...any)) {
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
			c.Bad(at, "a task call names task %s, which has no record", task)
		}
	}
	ents, _ := c.FS.ReadDir(folder)
	transcripts := map[string]bool{}
	for _, e := range ents {
		name := path.Join(folder, e.Name())
		if msg, ok := DotNote(e.Name()); ok {
			c.Note(name, "%s", msg)
			continue
		}
		switch e.Name() {
		case tasks.RecordsFile, c.Inbox:
			// The inbox is appended to without a lock: a torn line a
			// crash left there is read past by design (engine/internal/inbox).
			continue
		case c.WorkLedger:
			c.Journal(name, nil)
			if st, err := bgwork.Read(c.FS, name); err == nil && st.Skipped > 0 {
				c.Bad(name, "%d lines make no sense where they stand (a read skips them)", st.Skipped)
			}
			continue
		}
		task, ok := strings.CutSuffix(e.Name(), tasks.TranscriptSuffix)
		if !ok || !ids.Valid(task) {
			c.Bad(name, "unexpected file in a task folder")
			continue
		}
		transcripts[task] = true
		c.Journal(name, named)
		if typ, ok := recs[task]; !ok || typ == tasks.TypeShell {
			c.Bad(name, "a transcript no task record names")
		}
		c.transcript(name)
	}
	for task, typ := range recs {
		if typ != tasks.TypeShell && !transcripts[task] {
			c.Bad(recName, "task %s has no transcript (%s is missing)", task, tasks.TranscriptName(dir, session, task))
		}
	}
}

// transcript names the lines of a transcript a read passes over: of
// another version or an unknown kind, an item whose parent no earlier line
// holds, an item that breaks the tree.
func (c *Checker) transcript(name string) {
	st := TranscriptTree()
	c.lines(name, func(b []byte, why func(string, ...any)) {
		l, err := st.Decode(b)
		switch {
		case err != nil || l.V != 1:
			why("not a transcript line, skipped by a read")
			return
		case l.Role == Item:
			if l.Parent != "" && !st.Has(l.Parent) {
				why("item %s names parent %s, which no earlier line holds", l.ID, l.Parent)
			}
		case l.Role == Known:
		default:
			why("a line of unknown kind %q, skipped by a read", l.Kind)
			return
		}
		if err := st.Apply(); err != nil {
			why("skipped by a read: %v", err)
		}
	})
}

// taskCalls finds, in every items journal of workspace folder dir, the
// item lines that name a task: session -> task -> "path:line".
func (c *Checker) taskCalls(dir string) map[string]map[string]string {
	out := map[string]map[string]string{}
	ents, _ := c.FS.ReadDir(layout.SessionsDir(dir))
	for _, e := range ents {
		session, ok := strings.CutSuffix(e.Name(), layout.ItemsSuffix)
		if !ok || !layout.ValidSessionID(session) {
			continue
		}
		name := layout.Items(dir, session)
		st := ItemsTree(session)
		good := map[string]int{}
		n := 0
		jst, err := journal.Read(c.FS, name, func(b []byte) error {
			n++
			if !bytes.Contains(b, []byte(`"task":`)) {
				return nil
			}
			if l, err := st.Decode(b); err == nil && l.Role == Item && l.Task != "" {
				good[l.Task] = n
			}
			return nil
		})
		if err != nil || len(good) == 0 {
			continue
		}
		out[session] = map[string]string{}
		for task, g := range good {
			out[session][task] = fmt.Sprintf("%s:%d", name, FileLine(g, jst.Bad))
		}
	}
	return out
}
