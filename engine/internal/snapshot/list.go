package snapshot

import "cairn/engine/internal/changes"

// List is the SnapshotList of session id: the undo stack st (its
// snapshots, oldest first, and its cursor), the live change records recs
// less those another session's store budget dropped, and the journal
// lines the fold could not read. abs makes a workspace-relative name
// absolute, as answers show it.
func List(id string, st *changes.Stack, recs []changes.RecordSize, dropped map[string]bool, unread []UnreadRecord, abs func(rel string) string) *SnapshotList {
	l := &SnapshotList{OK: true, Session: id, Cursor: st.Cursor(), Snapshots: []SnapshotInfo{}, Records: []RecordInfo{}, Unread: unread}
	for _, e := range st.Entries() {
		l.Snapshots = append(l.Snapshots, SnapshotInfo{ID: e.Rec.ID, At: e.Rec.At, Tool: e.Rec.Tool, Applied: e.Applied, Files: files(e.Rec.Files, abs)})
	}
	for _, r := range recs {
		if !dropped[r.ID] {
			l.Records = append(l.Records, RecordInfo{ID: r.ID, At: r.At, Tool: r.Tool, Files: files(r.Files, abs)})
		}
	}
	return l
}

// files is the snapshot files of a change's files, as they were before it.
func files(fs []changes.FileChange, abs func(rel string) string) []SnapshotFile {
	out := []SnapshotFile{}
	for _, f := range fs {
		sf := SnapshotFile{Path: abs(f.Path), Existed: f.Before != nil}
		if f.Before != nil {
			sf.Size, sf.Skipped = f.Before.Size, f.Before.Skipped
		}
		out = append(out, sf)
	}
	return out
}
