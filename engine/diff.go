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

// Changes reads what a call or turn of session id changed from its change
// records: item is a tool_call, a user prompt (its turn), or "" (the newest
// recorded call). Each side of each file is read up to limit bytes.
func (w *Workspace) Changes(ctx context.Context, id, item string, limit int64) (*Changes, error) {
	v, err := w.ReadLean(ctx, id)
	if err != nil {
		return nil, err
	}
	sel, err := selectChanges(v.st, item)
	if err != nil {
		return nil, err
	}
	return w.changesOf(ctx, id, *sel, limit)
}

// selectChanges is the selection of item of the conversation st: the
// calls whose change lines count for it (a tool call: itself; a user
// prompt: every item of its turn; "": the newest recorded call).
func selectChanges(st *state, item string) (*ChangeSelection, error) {
	if item == "" {
		return &ChangeSelection{}, nil
	}
	it := st.Items[item]
	switch {
	case it == nil:
		return nil, noItem(item, st.ID)
	case it.Type == ToolCall:
		return &ChangeSelection{Item: item, Calls: []string{item}}, nil
	case it.Type == User:
		turn := st.InTurn(item)
		sel := &ChangeSelection{Item: item, Turn: true}
		for _, id := range st.Order {
			if turn(id) {
				sel.Calls = append(sel.Calls, id)
			}
		}
		return sel, nil
	}
	return nil, fmt.Errorf("%w: item %s is a %s: give a tool call, or a user prompt for its whole turn", ErrBadInput, item, it.Type)
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
