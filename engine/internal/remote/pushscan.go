package remote

import (
	"context"
	"errors"
	"path"
	"sort"
	"time"

	"cairn/engine/internal/layout"
	"cairn/internal/vfs"
)

// FullScanEvery is how long a push goes on the record of changed sessions
// (changed.go) before it lists every session once again, the safety net
// under the record.
const FullScanEvery = 24 * time.Hour

// scan is what a push looks at: the sessions that may have changed, and
// what to keep in the state once the push went well.
type scan struct {
	refs  []SessionRef
	full  bool              // every session was listed
	pos   ChangePos         // the record read up to here
	watch map[string]string // sessions a writer held when looked at
}

// scanChanged finds the sessions a push looks at. With the record of
// changed sessions followed from where the last push read, they are those
// its new lines name and those the last push left watched; otherwise (no
// position, a record lost or damaged, FullScanEvery passed) every session
// here, listed. A session whose lock a writer holds is watched: it may
// change after this push looks at it, with no new line in the record.
func (s *Syncer) scanChanged(ctx context.Context) (*scan, error) {
	fsys := s.Local.FS()
	sc := &scan{watch: map[string]string{}}
	seen, pos, err := readChanged(fsys, s.st.Changes)
	if err != nil && !errors.Is(err, errLostRecord) {
		return nil, err
	}
	if err != nil || s.now().Sub(s.st.Scanned) > FullScanEvery {
		// The position is taken before the listing: a line written while
		// the listing runs is read again next time.
		if sc.pos, err = changedEnd(fsys); err != nil {
			return nil, err
		}
		if sc.refs, err = s.Local.Sessions(ctx); err != nil {
			return nil, err
		}
		sc.full = true
		for _, r := range sc.refs {
			if r.Held {
				sc.watch[r.ID] = r.WS
			}
		}
		return sc, nil
	}
	for id, ws := range s.st.Watch {
		if _, ok := seen[id]; !ok {
			seen[id] = ws
		}
	}
	if sc.pos, err = rotateChanged(fsys, pos, seen); err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(seen))
	for id := range seen {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		ref, saved := statSession(fsys, seen[id], id)
		if ref.Held {
			sc.watch[id] = ref.WS
		}
		if saved {
			sc.refs = append(sc.refs, ref)
		}
	}
	return sc, nil
}

// statSession describes session id of workspace folder ws from a stat of
// each of its files, and says whether it is saved (its items journal
// exists). Its lock file holds the owner's pid while a writer holds it.
func statSession(fsys vfs.FS, ws, id string) (SessionRef, bool) {
	ref := SessionRef{ID: id, WS: ws, Sizes: map[string]int64{}}
	// A lock that cannot be looked at counts as held.
	if fi, err := fsys.Stat(layout.Lock(ws, id)); err == nil && fi.Size() > 0 || err != nil && !vfs.IsNotExist(err) {
		ref.Held = true
	}
	if _, err := fsys.Stat(path.Join(ws, "tasks", id)); err == nil {
		ref.Tasks = true
	}
	for _, f := range sessionFiles {
		fi, err := fsys.Stat(LocalName(ws, id, f))
		switch {
		case err == nil:
			ref.Sizes[f] = fi.Size()
		case !vfs.IsNotExist(err):
			ref.Sizes = nil // not known: the push opens its files
			return ref, fileExists(fsys, LocalName(ws, id, FileItems))
		}
	}
	_, saved := ref.Sizes[FileItems]
	return ref, saved
}
