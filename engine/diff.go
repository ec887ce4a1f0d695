package engine

import (
	"context"
	"fmt"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/revert"
)

// What a call or a turn changed, read from the change records (before and
// after each file) for cairn diff: the contents on both sides, which the
// command line turns into a unified diff. Nothing is written.

// What a file holds on each side of a change (package revert says each
// field).
type (
	// Content is a file's content on one side of a change.
	Content = revert.Content
	// FileChange is one file a call, a turn or a file revert changes.
	FileChange = revert.FileChange
	// Changes is what the records of a call or a turn say it changed.
	Changes = revert.Changes
)

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
		turn := v.st.InTurn(item)
		pick = func(s *changes.Step) bool { return s.Call != "" && turn(s.Call) }
	default:
		return nil, fmt.Errorf("%w: item %s is a %s: give a tool call, or a user prompt for its whole turn", ErrBadInput, item, it.Type)
	}
	if err := revert.ReadChanges(ctx, ch, tl, pick, w.files, w.objects(), w.absPath, limit); err != nil {
		return nil, err
	}
	return ch, nil
}
