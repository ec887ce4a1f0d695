package revert

import (
	"context"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/fstate"
	"cairn/internal/vfs"
	"cairn/objects"
)

// What a file holds on each side of a change, for cairn diff and a
// previewed revert (the engine's diff.go and revert_files.go).

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

// ReadContent is what state f of workspace file rel holds, up to limit
// bytes. A state recorded by its hash only is read from the store, else
// (fsys not nil) from the file when it still holds that content.
func ReadContent(ctx context.Context, objs *objects.Store, fsys vfs.FS, rel string, f *fstate.State, limit int64) (Content, error) {
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

// DiskContent is what workspace file rel holds now, up to limit bytes.
func DiskContent(ctx context.Context, fsys vfs.FS, rel string, limit int64) Content {
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

// ReadChanges fills ch with what the records of tl that pick chooses
// changed: their ids and tools, and each file's content on both sides, up
// to limit bytes each. A file's content after the change is recorded by
// its hash: it is read from objs when a later record kept the same
// content, else from the workspace's files (opened by open) when the file
// still holds it. abs names a file as answers do.
func ReadChanges(ctx context.Context, ch *Changes, tl *changes.Timeline, pick func(*changes.Step) bool,
	open func() (vfs.FS, func(), error), objs *objects.Store, abs func(string) string, limit int64) error {
	for _, s := range tl.Steps {
		if s.Record && pick(s) {
			ch.Records, ch.Tools = append(ch.Records, s.ID), append(ch.Tools, s.Tool)
		}
	}
	moves := tl.Net(pick)
	if len(moves) == 0 {
		return nil
	}
	fsys, done, err := open()
	if err != nil {
		return err
	}
	defer done()
	for _, m := range moves {
		fc := FileChange{Path: abs(m.Path)}
		if fc.Before, err = ReadContent(ctx, objs, nil, m.Path, m.From, limit); err != nil {
			return err
		}
		if fc.After, err = ReadContent(ctx, objs, fsys, m.Path, m.To, limit); err != nil {
			return err
		}
		ch.Files = append(ch.Files, fc)
	}
	return nil
}
