package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"cairn/cli/display"
	"cairn/engine"
)

// UndoCmd is `cairn undo [--session S]`.
type UndoCmd struct {
	Session string `name:"session" placeholder:"S" help:"Session (default: the most recently written one)."`
}

// RedoCmd is `cairn redo [--session S]`.
type RedoCmd struct {
	Session string `name:"session" placeholder:"S" help:"Session (default: the most recently written one)."`
}

// SnapshotsCmd is `cairn snapshots [--session S]` and
// `cairn snapshots restore SNAP`.
type SnapshotsCmd struct {
	Session string              `name:"session" placeholder:"S" help:"Session (default: the most recently written one)."`
	List    SnapshotsListCmd    `cmd:"" default:"1" hidden:"" help:"List the session's snapshots."`
	Restore SnapshotsRestoreCmd `cmd:"" name:"restore" help:"Undo every snapshot down to and including SNAP."`
}

// SnapshotsListCmd lists; it reads without taking the session.
type SnapshotsListCmd struct{}

// SnapshotsRestoreCmd is `cairn snapshots restore SNAP`.
type SnapshotsRestoreCmd struct {
	Snap string `arg:"" name:"snap" help:"Snapshot: the # the list of snapshots shows, an id, or a unique prefix of one."`
}

func (c *UndoCmd) Run(g *Globals) error {
	return g.runRestore(c.Session, func(s restorer) (*engine.RestoreResult, error) { return s.Undo(g.Ctx) })
}

func (c *RedoCmd) Run(g *Globals) error {
	return g.runRestore(c.Session, func(s restorer) (*engine.RestoreResult, error) { return s.Redo(g.Ctx) })
}

func (c *SnapshotsRestoreCmd) Run(g *Globals, p *SnapshotsCmd) error {
	return g.runRestore(p.Session, func(s restorer) (*engine.RestoreResult, error) {
		l, err := s.Snapshots(g.Ctx)
		if err != nil {
			return nil, err
		}
		id, msg := snapshotRef(l, c.Snap, "cairn snapshots")
		if msg != "" {
			msg = strings.TrimSuffix(msg, ".")
			return nil, &exitError{Code: ExitRefused, Word: "refused", Err: errors.New(strings.ToLower(msg[:1]) + msg[1:])}
		}
		return s.RestoreTo(g.Ctx, id)
	})
}

func (c *SnapshotsListCmd) Run(g *Globals, p *SnapshotsCmd) error {
	ws, err := g.workspace()
	if err != nil {
		return err
	}
	id, err := resolve(g.Ctx, ws, p.Session)
	if err != nil {
		return err
	}
	bound, err := g.boundOf(ws, id)
	if err != nil {
		return err
	}
	var l *engine.SnapshotList
	var files filesRoot = ws
	if bound != nil {
		err = g.onHost(ws, id, bound, true, func(b *boundSession) (err error) {
			l, err = b.hs.Snapshots(g.Ctx)
			files = b.files()
			return err
		})
	} else {
		l, err = ws.Snapshots(g.Ctx, id)
	}
	if err != nil {
		return err
	}
	if g.JSON {
		return g.PrintJSON(l)
	}
	printSnapshots(g.Stdout, files, l, time.Now())
	return nil
}

// runRestore runs op, an undo, redo or restore, on session ref: here, or
// on its host session when it is bound to a remote workspace.
func (g *Globals) runRestore(ref string, op func(restorer) (*engine.RestoreResult, error)) error {
	ws, id, err := g.resolveSession(ref)
	if err != nil {
		return err
	}
	bound, err := g.sshBound(ws, id)
	if err != nil {
		return err
	}
	var r *engine.RestoreResult
	var files filesRoot = ws
	if bound == nil {
		err = g.restoreHere(ws, id, op, &r)
		bound = refusedBound(err)
	}
	if bound != nil {
		err = g.onHost(ws, id, bound, false, func(b *boundSession) (err error) {
			files = b.files()
			if r, err = op(b.hs); err != nil {
				return restoreRefusal(files, err, "cairn snapshots restore")
			}
			return nil
		})
	}
	if err != nil {
		return err
	}
	if g.JSON {
		return g.PrintJSON(r)
	}
	printRestore(g.Stdout, files, r)
	return nil
}

// restoreHere runs op on session id of ws, whose files are here, and
// closes it (durable) before *r is printed.
func (g *Globals) restoreHere(ws *engine.Workspace, id string, op func(restorer) (*engine.RestoreResult, error), r **engine.RestoreResult) error {
	s, err := ws.Open(g.Ctx, id, g.SessionOptions())
	if err != nil {
		return err
	}
	defer s.Close()
	if *r, err = op(s); err != nil {
		return restoreRefusal(ws, err, "cairn snapshots restore")
	}
	return s.Close()
}

// printRestore is the readable form of a restore: a line per snapshot.
func printRestore(w io.Writer, ws filesRoot, r *engine.RestoreResult) {
	verb := map[string]string{"undo": "Undid", "redo": "Redid", "restore": "Undid"}[r.Action]
	for _, st := range r.Steps {
		var parts []string
		if len(st.Restored) > 0 {
			parts = append(parts, "restored "+strings.Join(relPaths(ws, st.Restored), ", "))
		}
		if len(st.Removed) > 0 {
			parts = append(parts, "removed "+strings.Join(relPaths(ws, st.Removed), ", "))
		}
		if len(st.Unchanged) > 0 {
			as := "already as before it"
			if r.Action == "redo" {
				as = "already as the undo found them"
			}
			parts = append(parts, "left "+strings.Join(relPaths(ws, st.Unchanged), ", ")+" ("+as+")")
		}
		if len(st.Skipped) > 0 {
			parts = append(parts, "not restored "+fileReasons(ws, st.Skipped, st.NotRestored))
		}
		fmt.Fprintf(w, "%s %s (%s): %s.\n", verb, st.ID, display.Line(st.Tool), strings.Join(parts, "; "))
	}
	// What is left to undo, in words that cannot be read as a count of
	// what this restore did ("0 snapshots applied" read as "nothing done").
	if r.Cursor == 0 {
		fmt.Fprintln(w, "Nothing more to undo.")
	} else {
		fmt.Fprintf(w, "%s can be undone.\n", plural(r.Cursor, "more snapshot", "more snapshots"))
	}
	if len(r.Unread) > 0 {
		fmt.Fprintf(w, "Note: %s.\n", engine.UnreadSummary(r.Unread))
	}
}

// fileReasons is files, workspace-relative, each with why when reasons
// says: "a.txt (its pre-image was not captured (too large)), b.txt".
func fileReasons(ws filesRoot, files []string, reasons []engine.FileReason) string {
	why := map[string]string{}
	for _, r := range reasons {
		why[r.Path] = r.Reason
	}
	out := relPaths(ws, files)
	for i, f := range files {
		if w := why[f]; w != "" {
			out[i] += " (" + w + ")"
		}
	}
	return strings.Join(out, ", ")
}

// restoreRefusal is refusedLine for undo, redo and restore: a snapshot
// none of whose files could be put back is named with each file and why,
// and, for an undo with an older snapshot, how to go past it (restore,
// the command that restores to a snapshot).
func restoreRefusal(ws filesRoot, err error, restore string) error {
	var re *engine.RestoreError
	if !errors.As(err, &re) {
		return refusedLine(err)
	}
	verb := re.Action
	if verb == "restore" {
		verb = "undo"
	}
	paths := make([]string, len(re.Files))
	for i, f := range re.Files {
		paths[i] = f.Path
	}
	msg := fmt.Sprintf("cannot %s %s (%s): no file could be put back: %s; nothing was changed",
		verb, re.Snapshot, re.Tool, fileReasons(ws, paths, re.Files))
	if re.Below != "" {
		msg += fmt.Sprintf(". To undo past it, leaving its files as they are: %s %s", restore, re.Below)
	}
	return &exitError{Code: ExitRefused, Word: "refused", Err: errors.New(msg)}
}

// printSnapshots is the /snapshots table: number, id, applied or undone,
// age, tool, files.
func printSnapshots(w io.Writer, ws filesRoot, l *engine.SnapshotList, now time.Time) {
	if len(l.Unread) > 0 {
		defer fmt.Fprintf(w, "Note: %s.\n", engine.UnreadSummary(l.Unread))
	}
	defer printRecords(w, ws, l.Records, now)
	if len(l.Snapshots) == 0 {
		fmt.Fprintln(w, "No snapshots in this session.")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tid\tstate\tage\ttool\tfiles")
	for i, s := range l.Snapshots {
		state := "undone"
		if s.Applied {
			state = "applied"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", i+1, s.ID, state, age(now, s.At.Time), display.Line(s.Tool), snapshotFileList(ws, s.Files))
	}
	tw.Flush()
}

// printRecords lists the change records of shell commands and other
// recorded calls, after the snapshots: file revert reads them, undo
// does not.
func printRecords(w io.Writer, ws filesRoot, recs []engine.RecordInfo, now time.Time) {
	if len(recs) == 0 {
		return
	}
	fmt.Fprintln(w, "Records of shell commands and other calls (for revert --files; undo skips them):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "id\tage\ttool\tfiles")
	for _, r := range recs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.ID, age(now, r.At.Time), display.Line(r.Tool), snapshotFileList(ws, r.Files))
	}
	tw.Flush()
}

// snapshotFileList is a record's files, relative, each marked new or
// skipped when it was.
func snapshotFileList(ws filesRoot, fs []engine.SnapshotFile) string {
	var files []string
	for _, f := range fs {
		name := relPaths(ws, []string{f.Path})[0]
		switch {
		case f.Skipped != "":
			name += " (skipped: " + display.Line(f.Skipped) + ")"
		case !f.Existed:
			name += " (new)"
		}
		files = append(files, name)
	}
	return strings.Join(files, ", ")
}
