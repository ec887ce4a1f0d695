package snapshot

import "cairn/internal/timefmt"

// The undo stack's answers (seed 001's JSON shapes). The CLI and the HTTP
// API print these as they are; the engine names them (snapshot_list.go).

// SnapshotList is the answer of `cairn snapshots` and
// GET /api/sessions/{id}/snapshots.
type SnapshotList struct {
	OK        bool           `json:"ok"`
	Session   string         `json:"session"`
	Cursor    int            `json:"cursor"` // how many snapshots are applied
	Snapshots []SnapshotInfo `json:"snapshots"`
	// Records is the session's live change records of other calls (shell
	// lines, an agent's shell commands under hooks, recorded tools),
	// oldest first: file revert reads them, undo never does (seed 001).
	Records []RecordInfo   `json:"records"`
	Unread  []UnreadRecord `json:"unread,omitempty"` // lines of the changes journal the stack skipped
}

// RecordInfo is one change record of a call other than the file tools:
// the files it changed, as they were before it.
type RecordInfo struct {
	ID    string         `json:"id"`
	At    timefmt.Time   `json:"at"`
	Tool  string         `json:"tool"`
	Files []SnapshotFile `json:"files"`
}

// UnreadRecord is a line of the changes journal the undo stack could not
// read (damaged, or not fitting the stack), as cairn storage fsck names it.
// The stack goes on without it.
type UnreadRecord struct {
	Where string `json:"where"` // "<journal>:<line>", the line numbered from 1
	Error string `json:"error"`
}

// SnapshotInfo is one snapshot: a change record seen from the undo stack.
type SnapshotInfo struct {
	ID      string         `json:"id"`
	At      timefmt.Time   `json:"at"`
	Tool    string         `json:"tool"`
	Applied bool           `json:"applied"`
	Files   []SnapshotFile `json:"files"`
}

// SnapshotFile is one file of a snapshot: whether it existed before the tool
// ran, and its size then.
type SnapshotFile struct {
	Path    string `json:"path"`
	Existed bool   `json:"existed"`
	Size    int64  `json:"size"`
	Skipped string `json:"skipped,omitempty"`
}

// RestoreResult is the answer of undo, redo and restore-to.
type RestoreResult struct {
	OK     bool           `json:"ok"`
	Action string         `json:"action"` // undo | redo | restore
	Cursor int            `json:"cursor"`
	Steps  []RestoreStep  `json:"steps"`
	Unread []UnreadRecord `json:"unread,omitempty"` // see SnapshotList
}

// RestoreStep is what one snapshot's undo or redo did to the files.
type RestoreStep struct {
	ID       string       `json:"id"`
	At       timefmt.Time `json:"at"`
	Tool     string       `json:"tool"`
	Restored []string     `json:"restored"`
	Removed  []string     `json:"removed"`
	Skipped  []string     `json:"skipped"`
	// Unchanged are the files that already held what the step gives them
	// (a file revert or another change put them there first): nothing was
	// written to them, and they are named apart so no answer says a file
	// was restored or removed when it was not.
	Unchanged []string `json:"unchanged,omitempty"`
	// NotRestored says why each file of Skipped was left as it was.
	NotRestored []FileReason `json:"not_restored,omitempty"`
}

// FileReason is a file and why it was not put back.
type FileReason struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// ToolAnswer is the answer of a file tool (`cairn tool ...`).
type ToolAnswer struct {
	Session  string   `json:"session"`
	Snapshot *string  `json:"snapshot"` // nil when no snapshot was taken
	Files    []string `json:"files"`
	Skipped  []string `json:"skipped"`
}
