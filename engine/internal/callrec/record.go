package callrec

import "io"

// Record says how a call was recorded.
type Record struct {
	// ID is the call's record id (the id of its call or unrecorded line);
	// "" when nothing was recorded (a read-only line).
	ID string
	// Scope is what the record covers (None, Paths or Workspace): the
	// call's, or Workspace when a path it names is a hard link.
	Scope string
	// Recorded: a record line names the files the call changed (Files,
	// possibly none).
	Recorded bool
	// Files is the workspace-relative files the call changed, when
	// recorded; Skipped those of them whose content before was not stored
	// (over max_file_bytes, unreadable).
	Files, Skipped []string
	// Unrecorded is why the call ran without a record
	// (changes.WhyDisabled, ...), "" otherwise.
	Unrecorded string
	// Dropped is the records dropped to keep the workspace's store within
	// storage.snapshots.max_bytes_mb once this one was made.
	Dropped []string
}

// ExecOptions change how a shell line is run and recorded (Session.Exec).
type ExecOptions struct {
	// Call is the item the call belongs to (as ToolOptions.Call).
	Call string
	// Own: the user's own line (the REPL's !LINE). It runs, and is kept
	// in the shell history and the outputs, but gets no record of its own
	// (seed "Recording": your own edits get no record), like an edit made
	// in another window.
	Own bool
	// Stdout and Stderr, when set, receive the command's output as it
	// runs.
	Stdout, Stderr io.Writer
}

// ExecAnswer is what a shell line run through Session.Exec did.
type ExecAnswer struct {
	Session string `json:"session"`
	// Snapshot is the id of the call's record; nil when no record names a
	// change (the line only reads, changed nothing, or ran unrecorded).
	Snapshot *string `json:"snapshot"`
	// Files is the files the call changed (absolute paths), as recorded;
	// Skipped those whose content before was not stored (over
	// storage.snapshots.max_file_bytes_mb): a file revert across the call
	// stops at them.
	Files   []string `json:"files"`
	Skipped []string `json:"skipped"`
	// ExitCode is the shell's exit status (128+N when killed by signal N);
	// it is the command's, never cairn's.
	ExitCode int `json:"exit_code"`
	// Output is the id of the tool output holding stdout and stderr.
	Output string `json:"output"`
	Run    string `json:"run"`   // the shell history's run id
	Scope  string `json:"scope"` // none, paths or workspace
	// Unrecorded is why the call ran without a record (disabled,
	// max_files, max_bytes, state_folder, full, failed); empty otherwise.
	Unrecorded string `json:"unrecorded,omitempty"`
	// Dropped is the records dropped to keep the workspace's store within
	// storage.snapshots.max_bytes_mb after this one.
	Dropped []string `json:"dropped,omitempty"`
}

// Answer is what a call's answer says of its record r: the record's id
// when it names a change (nil otherwise), and the files it changed and
// those whose content before was skipped, made absolute by abs.
func (r *Record) Answer(abs func(rel string) string) (snapshot *string, files, skipped []string) {
	files, skipped = []string{}, []string{}
	for _, f := range r.Files {
		files = append(files, abs(f))
	}
	for _, f := range r.Skipped {
		skipped = append(skipped, abs(f))
	}
	if r.Recorded && len(r.Files) > 0 {
		id := r.ID
		snapshot = &id
	}
	return snapshot, files, skipped
}
