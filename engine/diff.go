package engine

import (
	"context"

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

// Changes reads what a call or turn of session id changed from its change
// records: item is a tool_call, a user prompt (its turn), or "" (the newest
// recorded call). Each side of each file is read up to limit bytes.
func (w *Workspace) Changes(ctx context.Context, id, item string, limit int64) (*Changes, error) {
	v, err := w.ReadLean(ctx, id)
	if err != nil {
		return nil, err
	}
	sel, err := v.st.SelectChanges(item)
	if err != nil {
		return nil, err
	}
	return w.changesOf(ctx, id, *sel, limit)
}

// changesOf reads what the calls sel selects changed, from the change
// records of session id, each side of each file up to limit bytes.
func (w *Workspace) changesOf(ctx context.Context, id string, sel ChangeSelection, limit int64) (*Changes, error) {
	tl, err := w.timeline(id)
	if err != nil {
		return nil, err
	}
	ch := &Changes{Session: id, Item: sel.Item, Turn: sel.Turn, Records: []string{}, Tools: []string{}, Files: []FileChange{}}
	var pick func(*changes.Step) bool
	if sel.Item == "" {
		newest := tl.NewestRecord()
		if newest == nil {
			return ch, nil
		}
		ch.Item = newest.Call
		pick = func(st *changes.Step) bool { return st == newest }
	} else {
		calls := make(map[string]bool, len(sel.Calls))
		for _, c := range sel.Calls {
			calls[c] = true
		}
		pick = func(st *changes.Step) bool { return st.Call != "" && calls[st.Call] }
	}
	if err := revert.ReadChanges(ctx, ch, tl, pick, w.files, w.objects(), w.absPath, limit); err != nil {
		return nil, err
	}
	return ch, nil
}
