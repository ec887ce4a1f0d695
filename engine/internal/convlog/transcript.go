package convlog

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"cairn/engine/internal/errs"
	"cairn/internal/vfs"
	"cairn/journal"
	"cairn/objects"
)

// A sub-agent task's transcript is an items journal folded as a shape: a
// State without texts, which are read back on demand.

// TranscriptLine checks item it against the transcript of task folded into
// st, gives it id, time at and its stored attachments (store), and makes
// its line: a text over PayloadInline goes to objs as a payload object,
// and a quarantined item's content is never written.
func (st *State) TranscriptLine(ctx context.Context, it *Item, task, id string, at Time, store func([]Attachment) ([]Attachment, error), objs *objects.Store) (*Line, error) {
	switch {
	case !it.Type.Valid():
		return nil, fmt.Errorf("%w: item type %q", errs.ErrBadInput, it.Type)
	case it.Task != "":
		return nil, fmt.Errorf("%w: a task's transcript does not start tasks of its own", errs.ErrBadInput)
	}
	if it.Parent == "" {
		it.Parent = st.Head
	} else if st.Item(it.Parent) == nil {
		return nil, errs.NotFoundf("no item %q in task %s", it.Parent, task)
	}
	if err := st.CheckLinks(it); err != nil {
		return nil, err
	}
	if it.Quarantined {
		it.Text, it.Attachments = "", nil
	}
	atts, err := store(it.Attachments)
	if err != nil {
		return nil, err
	}
	it.ID, it.At, it.Attachments = id, at, atts
	l := &Line{V: 1, Kind: KindItem, ID: it.ID, Type: it.Type, At: &it.At, Tool: it.Tool, Call: it.Call,
		Status: it.Status, Quarantined: it.Quarantined, Slot: it.Slot, Replaces: it.Replaces, Outputs: it.Outputs,
		Attachments: OnDisk(atts)}
	if it.Parent != "" {
		l.Parent = &it.Parent
	}
	switch {
	case it.Quarantined:
	case len(it.Text) > PayloadInline:
		p, err := WritePayload(ctx, objs, it.Text)
		if err != nil {
			return nil, err
		}
		l.Payload = p
	default:
		l.Text = &it.Text
	}
	return l, nil
}

// FoldShape folds transcript line l into st without its text, and says
// how many bytes st grew by; text is the item's text, counted when it is
// inline.
func (st *State) FoldShape(l *Line, text string) int64 {
	before := st.Bytes
	t := l.Text
	l.Text = nil
	st.Fold(l)
	l.Text = t
	if l.Payload == nil {
		st.Bytes += int64(len(text))
	}
	return st.Bytes - before
}

// ReadShape folds transcript name of task id without its texts (the shape
// a writer needs: ids, parents, the head, the payload bytes) and counts
// its item lines.
func ReadShape(ctx context.Context, fsys vfs.FS, name, id string) (*State, int, error) {
	st := NewState(id, "")
	n := 0
	_, err := journal.Read(fsys, name, func(b []byte) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		var l Line
		if json.Unmarshal(b, &l) != nil || l.V != 1 || l.Kind != KindItem {
			return nil
		}
		n++
		st.Fold(&l)
		if it := st.Item(l.ID); it != nil {
			it.Text = ""
		}
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("engine: read task %s: %w", id, err)
	}
	st.NotAfter = time.Time{}
	return st, n, nil
}
