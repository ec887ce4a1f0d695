package engine

import (
	"path"

	"cairn/engine/internal/changes"
	"cairn/internal/ctxsync"
	"cairn/internal/vfs"
	"cairn/objects"
)

// changesLog is a session's changes log: everything that reads and writes
// its changes journal (<id>.changes.jsonl) and puts its files back. The
// mechanisms are package changes'; this part holds them for the session:
//
//   - snaps, the undo stack: the fold of the journal (changes.Stack for
//     file tools' lines, changes.Records for recorded calls' lines,
//     changes.FoldJournal) and the journal's one writer (changes.Writer:
//     one write with a named durability mode, owed aborts and owed
//     cancellations, the close line);
//   - files, the owed folder syncs of file tools' changes
//     (changes.Syncs), which the writer waits for;
//   - apply, the Applier (changes.Applier), the one way files are put
//     back: undo, redo, restore-to, file revert, unrevert, recovery
//     (changes_recover.go, patch_recover.go) and a patch stopped half way;
//   - noted, the folders the owner's hint names, where file tools stage
//     temp files (temps.go).
//
// Locks (engine/doc_map.go, "Locks, in full", gives their order):
//
//   - snapStack.mu guards the fold (the embedded changes.Stack, recs,
//     unread, reverts, objs), apply and noted: every file tool, change,
//     recorded call, undo, redo, restore-to, revert and the fold on Open
//     holds it while it reads or changes them, so a session's file changes
//     take turns. apply runs under it.
//   - the writer's own mutex (snapStack.wr) guards the open journal, the
//     owed lines and the close state. It is a leaf, held only while lines
//     are appended and synced, so Close takes it without snapStack.mu.
//   - the folder syncs' own mutex (changes.Syncs), a leaf too.
type changesLog struct {
	snaps snapStack       // the undo stack and the writer
	apply changes.Applier // puts files back for undo, redo, restore-to and recovery
	files changes.Syncs   // the file tools' background folder syncs
	noted map[string]bool // guarded by snaps.mu
}

// snapStack is a session's undo stack: the fold of its changes journal
// (changes.Stack) with its lock and the journal's writer.
type snapStack struct {
	changes.Stack
	// mu is held by a Change while Session.Change runs its function, and by
	// undo, redo and restore, so the file tools of one session take turns.
	// A call waits for it with its context (enterCall): a background job
	// cancelled while a call of its session runs stops waiting.
	mu   ctxsync.Mutex
	objs *objects.Store
	// unread is the lines of the journal the fold skipped, which the
	// stack's answers name.
	unread []UnreadRecord
	// recs is the fold of the journal's record lines (calls other than
	// the file tools: callrec.go), which the undo stack skips.
	recs changes.Records
	// wr writes the journal; its own mutex guards it (a leaf).
	wr changes.Writer
	// reverts: the journal foldChanges read may hold a file revert's or
	// unrevert's lines; without them there is none to settle.
	reverts bool
}

// durability is how a write to the changes journal waits and syncs
// (changes.Durability says each mode).
type durability = changes.Durability

const (
	synced       = changes.Synced
	ahead        = changes.Ahead
	lazy         = changes.Lazy
	closedSynced = changes.ClosedSynced
	closedLazy   = changes.ClosedLazy
)

func changesName(dir, id string) string { return path.Join(dir, "sessions", id+".changes.jsonl") }

// journal is where the session's writer writes.
func (s *Session) changesJournal() changes.Journal {
	return changes.Journal{FS: s.ws.s.fsys, Name: changesName(s.ws.dir, s.st.ID), Now: s.ws.s.now, Session: s.st.ID, Syncs: &s.files}
}

// writeChanges appends lines to the changes journal in mode.
func (s *Session) writeChanges(mode durability, lines ...any) error {
	return s.writeChangesIf(mode, nil, lines...)
}

// writeChangesIf is writeChanges when ok, asked under the writer's lock,
// still says so (nil is yes); when it says no, nothing is written.
func (s *Session) writeChangesIf(mode durability, ok func() bool, lines ...any) error {
	return s.snaps.wr.Write(s.changesJournal(), mode, ok, lines...)
}

// cancel writes lines, the cancellations of undo or redo steps that
// changed no file, after those still owed (changes.Writer.Cancel). The
// caller holds snaps.mu.
func (s *Session) cancel(lines ...any) error {
	return s.snaps.wr.Cancel(s.changesJournal(), &s.snaps.Stack, func() { s.snaps.refold(s) }, lines...)
}

// payCancels writes the owed cancellations (changes.Writer.PayCancels).
// The caller holds snaps.mu.
func (s *Session) payCancels() error {
	return s.snaps.wr.PayCancels(s.changesJournal(), &s.snaps.Stack, func() { s.snaps.refold(s) })
}

// close closes the changes journal (Session.Close calls it).
func (st *snapStack) close(now Time, unsure bool) error { return st.wr.Close(now, unsure) }

// snapObjects is the workspace's object store, one per session so its
// folder checks are made once.
func (s *Session) snapObjects() *objects.Store {
	if s.snaps.objs == nil {
		s.snaps.objs = s.ws.objects()
	}
	return s.snaps.objs
}

// foldChanges reads a changes journal into a stack
// (changes.FoldJournal).
func foldChanges(fsys vfs.FS, name string, st *snapStack) error {
	f, err := changes.FoldJournal(fsys, name, &st.Stack, &st.recs)
	st.reverts = f.Reverts
	st.unread = nil
	for _, u := range f.Unread {
		st.unread = append(st.unread, UnreadRecord(u))
	}
	return err
}

// unreadNote is what an answer that found nothing to do adds about the
// lines the stack skipped: "" when none.
func unreadNote(unread []UnreadRecord) string {
	if len(unread) == 0 {
		return ""
	}
	return " (" + UnreadSummary(unread) + ")"
}

// UnreadSummary says in one line which change records the undo stack could
// not read: how many, the first three with why, and where to look.
func UnreadSummary(unread []UnreadRecord) string {
	us := make([]changes.Unread, len(unread))
	for i, u := range unread {
		us[i] = changes.Unread(u)
	}
	return changes.UnreadSummary(us)
}
