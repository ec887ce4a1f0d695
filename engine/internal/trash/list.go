package trash

import (
	"slices"
	"time"

	"cairn/engine/internal/layout"
	"cairn/internal/vfs"
)

// List reads the notes of the forgotten sessions the trash holds, newest
// first: an entry whose plan is pending (a forget or restore at work, or
// one the next open settles), whose note cannot be read, or that holds no
// items journal is left out.
func List(fsys vfs.FS) ([]*Note, error) {
	ents, err := fsys.ReadDir(layout.Trash)
	if vfs.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []*Note
	planned := Pending(fsys)
	for _, e := range ents {
		if !layout.ValidSessionID(e.Name()) || planned[e.Name()] {
			continue
		}
		in, err := ReadNote(fsys, e.Name())
		if err != nil {
			continue
		}
		if _, err := fsys.Lstat(Items(in.Session)); err != nil {
			continue
		}
		out = append(out, in)
	}
	slices.SortFunc(out, func(a, b *Note) int { return b.At.Time.Compare(a.At.Time) })
	return out, nil
}

// ByWorkspace maps workspace keys to the trash entries of their sessions
// (every entry whose note can be read).
func ByWorkspace(fsys vfs.FS) (map[string][]string, error) {
	ents, err := fsys.ReadDir(layout.Trash)
	if vfs.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, e := range ents {
		if in, err := ReadNote(fsys, e.Name()); err == nil {
			out[in.Workspace] = append(out[in.Workspace], Entry(e.Name()))
		}
	}
	return out, nil
}

// Stored is one session as `cairn storage sessions` lists it: its
// tier, pin, owner and what its files take.
type Stored struct {
	Session   string    `json:"session"`
	Directory string    `json:"directory"`
	Title     string    `json:"title"`
	Tier      string    `json:"tier"`
	Pinned    bool      `json:"pinned"`
	Open      bool      `json:"open"`
	Activity  time.Time `json:"-"`
	// Bytes is the conversation's files (items journal, trail, record);
	// Artifacts what a trim drops (change records, outputs, shell history).
	Bytes     int64 `json:"bytes"`
	Artifacts int64 `json:"artifact_bytes"`
}
