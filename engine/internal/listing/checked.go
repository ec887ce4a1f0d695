package listing

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"cairn/engine/internal/layout"
	"cairn/index"
	"cairn/internal/vfs"
)

// Checked is the listing of workspace folder dir as its index x holds it,
// made to show what opens. A session whose record is missing (a crash
// before its first record) or does not parse gets its record back from
// its journal (rebuild, which says how many it rebuilt and puts why one
// failed in failed), as does one whose journal went on past its record
// (its owner died, or the journal was written by another program) and one
// dated after future. A session whose journal is gone, or cannot be read,
// is left out and named in problems, as is a record that cannot be
// rebuilt. Sessions dated after future come last.
func Checked(ctx context.Context, fsys vfs.FS, dir string, x *index.Index, future time.Time,
	rebuild func(ids []string, failed map[string]error) int) (ents []index.Entry, problems []index.Problem, err error) {
	if _, err := x.Refresh(ctx); err != nil && !errors.Is(err, index.ErrNotSaved) {
		return nil, nil, err
	}
	ids := slices.Clone(x.Unrecorded())
	for _, p := range x.Problems() {
		if id, ok := strings.CutSuffix(strings.TrimPrefix(p.Name, "sessions/"), ".json"); ok && layout.ValidSessionID(id) {
			ids = append(ids, id)
		}
	}
	ids = append(ids, FutureIDs(x.Entries(), future)...)
	journals := JournalSizes(fsys, dir, x.Entries())
	for _, e := range x.Entries() {
		if size, ok := journals[e.ID]; ok && e.Journal > 0 && size != e.Journal {
			ids = append(ids, e.ID)
		}
	}
	failed := map[string]error{}
	if rebuild(ids, failed) > 0 {
		if _, err := x.Refresh(ctx); err != nil && !errors.Is(err, index.ErrNotSaved) {
			return nil, nil, err
		}
		journals = JournalSizes(fsys, dir, x.Entries())
	}
	problems = x.Problems()
	all := x.Entries()
	ents = make([]index.Entry, 0, len(all))
	for _, e := range all {
		if _, ok := journals[e.ID]; !ok {
			problems = append(problems, index.Problem{Name: "sessions/" + e.ID + ".json",
				Err: "no conversation: the session's items journal is gone, so it cannot be opened (cairn storage fsck says more)"})
			continue
		}
		if err := failed[e.ID]; err != nil {
			problems = append(problems, index.Problem{Name: "sessions/" + e.ID + ".items.jsonl", Err: err.Error()})
			continue
		}
		ents = append(ents, e)
	}
	return FutureLast(ents, future), problems, nil
}

// JournalSizes stats the items journal of each of ents in workspace folder
// dir: their sizes by session, without those that are gone.
func JournalSizes(fsys vfs.FS, dir string, ents []index.Entry) map[string]int64 {
	names := make([]string, len(ents))
	for i, e := range ents {
		names[i] = e.ID + layout.ItemsSuffix
	}
	sizes := make([]int64, len(ents))
	err := vfs.LstatNames(fsys, path.Join(dir, layout.Sessions), names, func(i int, fi fs.FileInfo, err error) {
		sizes[i] = -1
		if err == nil {
			sizes[i] = fi.Size()
		}
	})
	out := make(map[string]int64, len(ents))
	for i, e := range ents {
		if err != nil || sizes[i] >= 0 {
			out[e.ID] = sizes[i] // a folder that cannot be read: shown as the records say
		}
	}
	return out
}
