package trash

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"cairn/engine/internal/changes"
	"cairn/engine/internal/durable"
	"cairn/engine/internal/layout"
	"cairn/internal/timefmt"
	"cairn/internal/vfs"
	"cairn/journal"
)

// Trim drops what only file revert, undo and tool_output need of session
// id of workspace folder ws, at now: its change records (the changes
// journal becomes one start line, "why":"trimmed"), the output tails of
// its shell history (an end line keeps its exit status and gains
// "trimmed":true), and its retained tool outputs (TrimFolders). Each step
// is idempotent. The engine then writes the tier line and rebuilds the
// record. The caller holds the session's lock.
func Trim(ctx context.Context, fsys vfs.FS, ws, id string, now timefmt.Time) error {
	if err := trimChanges(fsys, ws, id, now); err != nil {
		return err
	}
	if err := trimShell(fsys, ws, id); err != nil {
		return err
	}
	for _, dir := range TrimFolders() {
		if err := durable.RemoveFolder(ctx, fsys, layout.SessionFolder(ws, dir, id)); err != nil {
			return fmt.Errorf("engine: trim %s: %w", id, err)
		}
	}
	return nil
}

// trimChanges replaces session id's changes journal by a start line, unless
// it holds nothing else already.
func trimChanges(fsys vfs.FS, ws, id string, now timefmt.Time) error {
	if !hasRecords(fsys, ws, id) {
		return nil
	}
	line, _ := json.Marshal(changes.MarkLine{V: 1, Kind: changes.KindStart, At: now, Why: "trimmed"})
	if err := vfs.WriteFileAtomic(fsys, layout.Changes(ws, id), append(line, '\n')); err != nil {
		return fmt.Errorf("engine: trim change records of %s: %w", id, err)
	}
	return nil
}

// hasRecords reports whether session id's changes journal holds anything
// but start lines (a missing journal holds nothing; one that cannot be
// read is taken to hold something).
func hasRecords(fsys vfs.FS, ws, id string) bool {
	only := true
	_, err := journal.Read(fsys, layout.Changes(ws, id), func(b []byte) error {
		var l struct {
			Kind string `json:"kind"`
		}
		if json.Unmarshal(b, &l) != nil || l.Kind != changes.KindStart {
			only = false
		}
		return nil
	})
	return !vfs.IsNotExist(err) && (err != nil || !only)
}

// HasArtifacts reports whether a transcript session holds what a trim
// drops again: change records or tool outputs written since its trim by
// work that added no item (a plumbing file tool).
func HasArtifacts(fsys vfs.FS, ws, id string) bool {
	for _, folder := range TrimFolders() {
		if ents, err := fsys.ReadDir(layout.SessionFolder(ws, folder, id)); err == nil && len(ents) > 0 {
			return true
		}
	}
	return hasRecords(fsys, ws, id)
}

// trimShell drops the output tails of session id's shell history.
func trimShell(fsys vfs.FS, ws, id string) error {
	name := layout.Shell(ws, id)
	var out bytes.Buffer
	changed := false
	_, err := journal.Read(fsys, name, func(b []byte) error {
		var m map[string]json.RawMessage
		if json.Unmarshal(b, &m) == nil && string(m["kind"]) == `"end"` && (m["stdout"] != nil || m["stderr"] != nil) {
			for _, k := range []string{"stdout", "stderr", "stdout_cut", "stderr_cut"} {
				delete(m, k)
			}
			m["trimmed"] = json.RawMessage("true")
			b, _ = json.Marshal(m)
			changed = true
		}
		out.Write(b)
		out.WriteByte('\n')
		return nil
	})
	if vfs.IsNotExist(err) || (err == nil && !changed) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("engine: trim shell history of %s: %w", id, err)
	}
	if err := vfs.WriteFileAtomic(fsys, name, out.Bytes()); err != nil {
		return fmt.Errorf("engine: trim shell history of %s: %w", id, err)
	}
	return nil
}
