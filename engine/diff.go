package engine

import (
	"context"
	"fmt"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/fstate"
	"cairn/internal/vfs"
	"cairn/objects"
)

// What a call or a turn changed, read from the change records (before and
// after each file) for cairn diff: the contents on both sides, which the
// command line turns into a unified diff. Nothing is written.

// Content is a file's content on one side of a change.
type Content struct {
	Exists bool   `json:"exists"`
	Mode   string `json:"mode,omitempty"` // file, exec, link
	Size   int64  `json:"size"`
	// Data is the content, a link's target for a link; nil with Missing
	// when it cannot be shown.
	Data []byte `json:"-"`
	// Missing says why Data is not there: "too large" (over the limit
	// asked for), "not kept" (recorded by its hash only, and no longer
	// anywhere), or why the record skipped the file.
	Missing string `json:"missing,omitempty"`
}

// FileChange is one file a call, a turn or a file revert changes.
type FileChange struct {
	Path   string  `json:"path"` // absolute
	Before Content `json:"before"`
	After  Content `json:"after"`
}

// Changes is what the records of a call or a turn say it changed.
type Changes struct {
	Session string `json:"session"`
	// Item is the tool call or user prompt asked about, or the item the
	// newest record names ("" when it names none).
	Item string `json:"item"`
	// Turn: Item is a user prompt, and the records are those of its turn
	// (its own tool lines and every tool call under it).
	Turn bool `json:"turn"`
	// Records are the ids of the records read, oldest first, and Tools
	// the tools that made them.
	Records []string     `json:"records"`
	Tools   []string     `json:"tools"`
	Files   []FileChange `json:"files"`
}

// Changes reads what a call or a turn of session id changed, from its
// change records: item a tool_call item (that call), a user prompt (its
// whole turn), or "" (the newest recorded call). Each side of each file
// is read up to limit bytes. A file's content after the change is recorded
// by its hash; it is read from the store when a later record kept the same
// content, else from the workspace when the file still holds it.
func (w *Workspace) Changes(ctx context.Context, id, item string, limit int64) (*Changes, error) {
	v, err := w.ReadLean(ctx, id)
	if err != nil {
		return nil, err
	}
	tl, err := w.timeline(id)
	if err != nil {
		return nil, err
	}
	ch := &Changes{Session: id, Item: item, Records: []string{}, Tools: []string{}, Files: []FileChange{}}
	var pick func(*changes.Step) bool
	switch it := v.st.Items[item]; {
	case item == "":
		newest := tl.NewestRecord()
		if newest == nil {
			return ch, nil
		}
		ch.Item = newest.Call
		pick = func(s *changes.Step) bool { return s == newest }
	case it == nil:
		return nil, noItem(item, id)
	case it.Type == ToolCall:
		pick = func(s *changes.Step) bool { return s.Call == item }
	case it.Type == User:
		ch.Turn = true
		turn := turnOf(v.st, item)
		pick = func(s *changes.Step) bool { return s.Call != "" && turn(s.Call) }
	default:
		return nil, fmt.Errorf("%w: item %s is a %s: give a tool call, or a user prompt for its whole turn", ErrBadInput, item, it.Type)
	}
	for _, s := range tl.Steps {
		if s.Record && pick(s) {
			ch.Records, ch.Tools = append(ch.Records, s.ID), append(ch.Tools, s.Tool)
		}
	}
	moves := tl.Net(pick)
	if len(moves) == 0 {
		return ch, nil
	}
	fsys, done, err := w.files()
	if err != nil {
		return nil, err
	}
	defer done()
	objs := w.objects()
	for _, m := range moves {
		fc := FileChange{Path: w.absPath(m.Path)}
		if fc.Before, err = readContent(ctx, objs, nil, m.Path, m.From, limit); err != nil {
			return nil, err
		}
		if fc.After, err = readContent(ctx, objs, fsys, m.Path, m.To, limit); err != nil {
			return nil, err
		}
		ch.Files = append(ch.Files, fc)
	}
	return ch, nil
}

// turnOf reports, for an item id, whether it lies in the turn of prompt:
// the prompt itself, or an item whose nearest user prompt up its parents
// is it.
func turnOf(st *state, prompt string) func(string) bool {
	memo := map[string]bool{}
	var in func(id string, depth int) bool
	in = func(id string, depth int) bool {
		if id == prompt {
			return true
		}
		if v, ok := memo[id]; ok {
			return v
		}
		it := st.Items[id]
		r := false
		if it != nil && it.Type != User && depth < len(st.Order) {
			r = in(it.Parent, depth+1)
		}
		memo[id] = r
		return r
	}
	return func(id string) bool { return in(id, 0) }
}

// readContent is what state f of workspace file rel holds, up to limit
// bytes. A state recorded by its hash only is read from the store, else
// (fsys not nil) from the file when it still holds that content.
func readContent(ctx context.Context, objs *objects.Store, fsys vfs.FS, rel string, f *fstate.State, limit int64) (Content, error) {
	if f == nil {
		return Content{}, nil
	}
	c := Content{Exists: true, Mode: f.Mode, Size: f.Size}
	data, why, err := fstate.Read(ctx, objs, f, limit)
	if err != nil {
		return c, err
	}
	if why == fstate.ReadNotKept && fsys != nil {
		if now, _ := fstate.Capture(ctx, fsys, keepSink, rel, limit); now != nil && !now.IsSkipped() && now.Sum() == f.Sum() {
			data, why = now.Data, ""
		}
	}
	c.Missing = why
	if why == "" {
		c.Data = append([]byte{}, data...)
	}
	return c, nil
}

// diskContent is what workspace file rel holds now, up to limit bytes.
func diskContent(ctx context.Context, fsys vfs.FS, rel string, limit int64) Content {
	now, _ := fstate.Capture(ctx, fsys, keepSink, rel, limit)
	switch {
	case now == nil:
		return Content{}
	case now.IsSkipped():
		return Content{Exists: true, Size: now.Size, Missing: now.Skipped}
	}
	return Content{Exists: true, Mode: now.Mode, Size: now.Size, Data: append([]byte{}, now.Data...)}
}

// keepSink keeps a captured file's content in its state, whatever its
// size: a capture only read to be shown.
func keepSink(b []byte, mode string) (*fstate.State, error) {
	f, _ := fstate.HashSink(b, mode)
	f.Data = b
	return f, nil
}
