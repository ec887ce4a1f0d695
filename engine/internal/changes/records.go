package changes

import (
	"fmt"
	"slices"

	"cairn/engine/internal/fstate"
	"cairn/internal/timefmt"
)

// Change records of calls other than the file tools (a shell line run by
// exec), in the same changes journal as the undo stack's lines. They are
// records for file revert, never undo snapshots: Stack.Fold skips them
// (seed 001: undo covers the file tools only). Part of the format:
//
//	{"v":1,"kind":"call","id":SNAP,"at":T,"tool":"exec","call":ITEM,"item":ITEM,"scope":"paths"|"workspace","paths":[P...]}
//	{"v":1,"kind":"record","id":SNAP,"seq":N,"at":T,"tool":"exec","call":ITEM,"item":ITEM,"scope":S,"files":[{"path","before":F|null,"after":F|null}]}
//	{"v":1,"kind":"unrecorded","id":SNAP,"at":T,"tool":"exec","call":ITEM,"item":ITEM,"why":REASON}
//	{"v":1,"kind":"start","at":T,"why":"first"|"enabled"|"moved"|"fork"|"trimmed"}
//	{"v":1,"kind":"off","at":T}
//	{"v":1,"kind":"drop","ids":[SNAP...],"at":T,"why":"store_budget"}
//
// A call line is written and synced before the call runs, once every
// pre-image its record may need is stored (paths: the named files; scope
// "workspace": every file the walk covers, as objects). After the call a
// record line keeps only the files that changed: "before" stored (an
// object, or inline for a named path) or {"skipped":"max_file_bytes",
// "size":N}, "after" by its hash at least. A call that changed nothing
// writes a record with "files":[], which is no record: it only closes the
// call line. A call line with neither a record nor an unrecorded line of its
// id after it is running (its owner is live) or was interrupted; the next
// owner closes it with an unrecorded line, why "interrupted".
//
// "item" is where each line lies among the conversation's items (format.go;
// an unrecorded line names its call line's), for file revert's boundary.
//
// An unrecorded line is a call that ran, or may have run, without a
// record; why is one of the Why* constants. A call refused by the store
// (a limit, a full store, recording off, a workspace holding the state
// folder) writes it before it runs, with no call line.
//
// start and off lines bound how far back the session's records reach: to
// the newest start line, written when recording comes back on after an off
// line (why "enabled"; other writers: "moved", "fork", "trimmed"); off is
// written when a call runs with recording off in a session that holds a
// record. A session with no start line reaches back to its first record.
//
// A drop with why "store_budget" names records dropped to keep the
// workspace's store within storage.snapshots.max_bytes_mb; records of
// another session are dropped in the workspace's drops.jsonl instead
// (engine: engine/internal/callrec/budget.go). The undo stack's drop lines name change
// lines only, so neither reading confuses the other.
const (
	KindCall       = "call"
	KindRecord     = "record"
	KindUnrecorded = "unrecorded"
	KindStart      = "start"
	KindOff        = "off"
)

// Why an unrecorded line was written. Part of the format.
const (
	WhyDisabled    = "disabled"     // recording off (--no-snapshots, storage.snapshots.enabled false)
	WhyMaxFiles    = "max_files"    // over storage.snapshots.max_files
	WhyMaxBytes    = "max_bytes"    // over storage.snapshots.max_bytes_mb
	WhyStateFolder = "state_folder" // the workspace contains the state folder
	WhyFull        = "full"         // the store is full (no space left)
	WhyInterrupted = "interrupted"  // its owner stopped while it ran
	WhyFailed      = "failed"       // the record could not be made after the call ran
	WhyStoreBudget = "store_budget" // a drop that keeps the workspace's store in budget
	SkipMaxFile    = "max_file_bytes"
)

// The record lines' shapes, for writing.
type (
	CallLine struct {
		V     int          `json:"v"`
		Kind  string       `json:"kind"`
		ID    string       `json:"id"`
		At    timefmt.Time `json:"at"`
		Tool  string       `json:"tool"`
		Call  string       `json:"call,omitempty"`
		Item  ItemRef      `json:"item,omitzero"`
		Scope string       `json:"scope"`
		Paths fstate.Names `json:"paths,omitempty"`
	}
	UnrecordedLine struct {
		V    int          `json:"v"`
		Kind string       `json:"kind"`
		ID   string       `json:"id"`
		At   timefmt.Time `json:"at"`
		Tool string       `json:"tool"`
		Call string       `json:"call,omitempty"`
		Item ItemRef      `json:"item,omitzero"`
		Why  string       `json:"why"`
	}
	MarkLine struct {
		V    int          `json:"v"`
		Kind string       `json:"kind"`
		At   timefmt.Time `json:"at"`
		Why  string       `json:"why,omitempty"`
	}
)

// RecordKind reports whether kind is one of the record kinds (which the
// undo stack skips).
func RecordKind(kind string) bool {
	switch kind {
	case KindCall, KindRecord, KindUnrecorded, KindStart, KindOff:
		return true
	}
	return false
}

// Records is the fold of a changes journal's record lines: what the
// session's owner needs to write more of them.
type Records struct {
	// Open is the call lines with no record or unrecorded line yet, in
	// journal order.
	Open []CallLine
	// Mark is the newest start or off line's kind ("" when none).
	Mark string
	// Live is the records not dropped, oldest first, with the bytes of
	// the pre-images they store.
	Live []RecordSize
	Seq  int // the highest seq of a record line
}

// RecordSize is one live record and the bytes its stored pre-images hold;
// Tool and Files are its line's, for listings.
type RecordSize struct {
	ID    string
	At    timefmt.Time
	Bytes int64
	Tool  string
	Files []FileChange
}

// Fold folds one decoded line; lines of other kinds than the record
// kinds and drop are skipped. A record line that does not check is an
// error (fsck names it).
func (r *Records) Fold(l *Line) error {
	switch l.Kind {
	case KindCall:
		if err := checkCall(l); err != nil {
			return err
		}
		r.Open = append(r.Open, CallLine{V: 1, Kind: KindCall, ID: l.ID, At: l.At, Tool: l.Tool, Call: l.Call, Item: l.Item, Scope: l.Scope, Paths: l.Paths})
	case KindRecord:
		if err := checkRecord(l); err != nil {
			return err
		}
		r.Closed(l.ID)
		r.Seq = max(r.Seq, l.Seq)
		if len(l.Files) > 0 {
			files := make([]FileChange, len(l.Files))
			for i, f := range l.Files {
				files[i] = FileChange{Path: string(f.Path), Before: f.Before, After: f.After}
			}
			r.Live = append(r.Live, RecordSize{ID: l.ID, At: l.At, Bytes: rawBytes(l.Files), Tool: l.Tool, Files: files})
		}
	case KindUnrecorded:
		if !ValidSnapID(l.ID) || l.Why == "" {
			return fmt.Errorf("bad unrecorded line %q", l.ID)
		}
		r.Closed(l.ID)
	case KindStart, KindOff:
		r.Mark = l.Kind
	case KindDrop:
		r.Drop(l.IDs)
	}
	return nil
}

// Drop removes records ids from the live ones.
func (r *Records) Drop(ids []string) {
	r.Live = slices.DeleteFunc(r.Live, func(x RecordSize) bool { return slices.Contains(ids, x.ID) })
}

// Made folds record line rl, just written by the owner.
func (r *Records) Made(rl ChangeLine) {
	r.Closed(rl.ID)
	r.Seq = max(r.Seq, rl.Seq)
	if len(rl.Files) > 0 {
		r.Live = append(r.Live, RecordSize{ID: rl.ID, At: rl.At, Bytes: recordBytes(rl.Files), Tool: rl.Tool, Files: rl.Files})
	}
}

// Closed folds the end of call id (its record or unrecorded line).
func (r *Records) Closed(id string) {
	r.Open = slices.DeleteFunc(r.Open, func(c CallLine) bool { return c.ID == id })
}

// recordBytes is the bytes of the stored pre-images of files (a record's
// share of the workspace's store).
func recordBytes(files []FileChange) int64 {
	var n int64
	for _, f := range files {
		if f.Before.Stored() {
			n += f.Before.Size
		}
	}
	return n
}

// rawBytes is recordBytes of a record line as read.
func rawBytes(files []RawFile) int64 {
	var n int64
	for _, f := range files {
		if f.Before.Stored() {
			n += f.Before.Size
		}
	}
	return n
}

func checkCall(l *Line) error {
	if !ValidSnapID(l.ID) || !toolRE.MatchString(l.Tool) || (l.Call != "" && !toolRE.MatchString(l.Call)) {
		return fmt.Errorf("bad call line %q", l.ID)
	}
	if l.Scope != "paths" && l.Scope != "workspace" {
		return fmt.Errorf("bad scope %q of call %s", l.Scope, l.ID)
	}
	for _, p := range l.Paths {
		if !fstate.ValidRel(p) {
			return fmt.Errorf("bad path %q of call %s", p, l.ID)
		}
	}
	return nil
}

// checkRecord validates a record line: like a change line, but it may
// name no file (a call that changed nothing).
func checkRecord(l *Line) error {
	if !ValidSnapID(l.ID) || !toolRE.MatchString(l.Tool) || (l.Call != "" && !toolRE.MatchString(l.Call)) {
		return fmt.Errorf("bad record line %q", l.ID)
	}
	seen := map[string]bool{}
	for _, f := range l.Files {
		if p := string(f.Path); !fstate.ValidRel(p) || seen[p] {
			return fmt.Errorf("bad path %q of record %s", p, l.ID)
		}
		seen[string(f.Path)] = true
		if !f.Before.Valid(fstate.FormBefore) || !f.After.Valid(fstate.FormAfter) {
			return fmt.Errorf("bad file state of %q in record %s", f.Path, l.ID)
		}
	}
	return nil
}

// NewRecordLine is the record line of call c, which changed files, written
// when item was the newest item; seq follows both the undo stack's and the
// records' highest.
func NewRecordLine(c CallLine, now timefmt.Time, seq int, item ItemRef, files []FileChange) ChangeLine {
	if files == nil {
		files = []FileChange{}
	}
	return ChangeLine{V: 1, Kind: KindRecord, ID: c.ID, Seq: seq, At: now, Tool: c.Tool, Call: c.Call, Item: item, Scope: c.Scope, Files: files}
}
