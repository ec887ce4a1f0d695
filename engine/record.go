package engine

import (
	"path"

	"cairn/engine/internal/convlog"
	"cairn/internal/vfs"
)

// Record is a session's summary, <id>.json: what the picker shows and a
// resume needs, derived from the journals (convlog.Record draws it).
type Record = convlog.Record

// Counts are a record's sizes.
type Counts = convlog.Counts

func recordName(dir, id string) string { return path.Join(dir, "sessions", id+".json") }
func itemsName(dir, id string) string  { return path.Join(dir, "sessions", id+".items.jsonl") }
func auditName(dir, id string) string  { return path.Join(dir, "sessions", id+".audit.jsonl") }
func lockName(dir, id string) string   { return path.Join(dir, "sessions", id+".lock") }

// recordOf summarises the state.
func recordOf(st *state, journals map[string]int64) *Record {
	return convlog.RecordOf(st, journals, remoteOf(st))
}

// writeRecord replaces <id>.json atomically and durably.
func writeRecord(fsys vfs.FS, dir string, r *Record) error {
	return convlog.WriteRecord(fsys, recordName(dir, r.ID), r, true)
}

// replaceRecord replaces <id>.json atomically for readers, without syncing:
// a crash may leave the old record or an unreadable one, which the engine
// rebuilds from the journal (the record is derived).
func replaceRecord(fsys vfs.FS, dir string, r *Record) error {
	return convlog.WriteRecord(fsys, recordName(dir, r.ID), r, false)
}

// readRecord reads <id>.json (convlog.ReadRecord).
func readRecord(fsys vfs.FS, dir, id string) (*Record, error) {
	return convlog.ReadRecord(fsys, recordName(dir, id), id)
}
