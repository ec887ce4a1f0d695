package changes

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"time"

	"cairn/engine/internal/fstate"
	"cairn/internal/lazyre"
	"cairn/internal/timefmt"
)

// The changes journal, <id>.changes.jsonl beside the items journal, holds
// one "change" line per file-tool call that changed files, and the events
// of the undo stack. The cursor and every file's state are rebuilt from it
// alone (stack.go). Part of the format:
//
//	{"v":1,"kind":"change","id":"m2x1-9f3a2c7e","seq":7,"at":T,"tool":"edit","call":"i-...","item":ITEM,
//	 "scope":"paths","files":[{"path":"src/app.ts","before":F|null,"after":F|null}]}
//	{"v":1,"kind":"undo"|"restore","id":SNAP,"at":T,"item":ITEM,"files":[{"path":P,"kept":F|null}]}
//	{"v":1,"kind":"redo","id":SNAP,"at":T,"item":ITEM}
//	{"v":1,"kind":"discard","ids":[SNAP...],"at":T}              undone branch dropped by a new change
//	{"v":1,"kind":"drop","ids":[SNAP...],"at":T,"why":"max_per_session|max_bytes_per_session"}
//	{"v":1,"kind":"evidence","at":T,"tool":..,"signal":"permission","decision":"deny",
//	 "rule":"snapshots.required","files":[{"path":P,"reason":R}]}
//	{"v":1,"kind":"abort","id":SNAP,"at":T}                       the change's file was not changed
//	{"v":1,"kind":"close","at":T}                                 every file change before it was made
//	{"v":1,"kind":"revert","id":RID,"at":T,"part":K,"parts":N,"to":ITEM,"item":ITEM,
//	 "files":[{"path":P,"kept":F|null,"put":F|null}]}             a file revert, before its files
//	{"v":1,"kind":"reverted","id":RID,"at":T,"left":[P...]}       its files are durable
//	{"v":1,"kind":"unrevert","id":UID,"ids":[RID...],"at":T,"item":ITEM} an unrevert, before its files
//	{"v":1,"kind":"unreverted","id":UID,"at":T,"left":[P...]}     its files are durable
//	{"v":1,"kind":"overlap","id":UID,"at":T,"item":ITEM,"members":[{"id":SNAP,"call":ITEM,"item":ITEM}],
//	 "files":[{"path":P,"before":F|null,"after":F|null}]}         calls that ran at the same time (overlap.go)
//
// and the lines recording writes for calls that are not file tools
// ("call", "record", "unrecorded", "start", "off"; a "drop" whose "why" is
// "store_budget"), which file revert reads. File revert's lines and how it
// reads them are drawn in timeline.go (the Timeline fold).
//
// Every path P (a file's "path", the lists "paths" and "left") is an
// fstate.Name: a JSON string when the name is valid UTF-8, else
// {"base64":B64} holding its bytes (names_json.go).
//
// "item" (itemref.go: ItemRef) is where a line lies among the items of the
// conversation, for a file revert's boundary: the newest item when the
// line was written ("" when there was none yet). Every line that changes
// files or may carries it: change, undo, restore, redo, revert, unrevert,
// and the record lines (call, record, unrecorded; records.go), so that a
// line and an item written in the same millisecond are never ordered by
// comparing their times. A line that cancels an undo or redo (a redo or
// undo line written because the step changed no file, perhaps owed and
// written much later) names the item the step's line named, so the two
// lie on one side of every boundary; the lines of one restore-to all name
// the newest item when it began; an unrecorded line names its call line's
// (where the call began). The lines an agent's tool call writes at its
// post-tool hook (its change line; its call, record or unrecorded line)
// name the newest item when its pre-tool hook ran, where the call began:
// the item of the agent's call they name comes in later, from the
// transcript, and a prompt written while the call ran does not move it.
// Lines written before "item" was recorded on their kind have none, and
// are placed by their time.
//
// F is {"oid":SHA256,"size":N,"mode":"file|exec|link","perm":"0640"}, the
// content stored as an object (a link's object is its target), or
// {"sha256":SHA256,"size":N,"mode":...,"data":BASE64}, the content itself,
// inline (a pre-image of at most 16 KiB), or
// {"sha256":SHA256,"size":N,"mode":...}, the content's identity only, with no
// object, or {"skipped":REASON,"size":N}; null means absent. "perm" is a
// regular file's permission bits, four octal digits (0000 to 0777; a link
// has none): undo and redo put them back as they were, so a private file
// never comes back readable by others. It agrees with "mode" ("exec" when
// any executable bit is set). Lines written before it was recorded have no
// "perm": a file put back from such an F keeps the bits of the file it
// replaces, else gets 0666 less the umask, with the executable bits as
// "mode" says. "oid" always
// names a stored object. "before" and "kept" are stored (or skipped): undo
// and redo put them back. "after" is compared with (a file still as the
// tool left it), so a change records it by its hash; lines written before
// that hold an "oid" there, which reads the same. A file tool writes its
// new content inline there too when it is at most 16 KiB: a crash may lose
// such a change's rename while later lines are durable (its folder is
// synced at the end of the turn), and the next owner makes it again from
// the line (redo.go). "kept" is
// the content an undo found and kept for redo; a skipped "kept" means the
// undo left that file as it was (and redo leaves it too). "restore" is an
// undo step taken by a restore-to.
//
// "call" names the item a change belongs to: the tool_call item that ran
// the tool, or the user prompt that began the turn (a tool run outside a
// tool_call, such as a REPL tool line); it is omitted when the
// conversation had no prompt yet. Lines written before it was recorded
// have none, and read as they did.
//
// A change line ends the undone branch. The file tools (write, edit, rm,
// apply_patch) write their change line before they change the file, so one
// fsync makes an inline pre-image and its record durable together, and
// write the discard and drop lines that follow from it after. apply_patch
// ("tool":"apply_patch") names every file a patch touches in its one line:
// a created file with "before" null, a deleted one with "after" null, a
// rename as both (the old name deleted, the new one created); then it
// changes the files one after the other. When the file is then
// not changed (the tool failed), an "abort" line cancels the change and
// puts back the undone branch it ended; after a crash in between, the
// owner that next opens the session finds the file still as "before" and
// writes the abort (engine: Workspace.unmade). A change of several files
// found with some still as "before" and the others as "after" (a patch
// stopped between its files) is made in part: that owner gives the files as
// "after" their "before" back, then writes the abort (PartlyMade; engine:
// Session.undoPartlyMade), so a patch is made whole or not at all. A file
// tool's change line may be written while the file change of the tool
// before it is not durable yet (engine: fileSyncs), but the tool changes
// its file only once that one is; every other line waits for the file
// changes before it to be durable. So only the two newest change lines
// can name changes not made, the older only when the newer is not made
// either: after an abort of the newest, the change before it is pending
// again (Stack.Prev, Stack.PopPending) and may be aborted in turn, and a
// file as the older's "before" is as before the newer too (Stack.Unmade).
// A change whose new content is in its line is not waited for at all: the
// next owner makes again, from their lines, the changes after the last
// line that waited (Stack.Unsettled, RedoPlan), all but the newest, which
// it judges as above. An undo, restore or redo writes its line (with what
// it keeps) before it puts files back; one stopped in between is finished
// by the next owner (engine: finishRestore). A close line says every file
// change before it was made: after it, nothing is settled. A clean Close
// writes one, and so does the end of a turn once the folders its file
// tools left to it are synced (without a sync of its own: it rides with
// the journal's next one), and the next owner once it made again what a
// crash lost.

// How change lines and the records of other calls meet on disk: one
// journal holds both. The undo stack folds the lines above (Stack.Fold)
// and skips the record kinds of records.go (call, record, unrecorded,
// start, off): an exec is not an undo snapshot (seed 001). File revert
// reads both: a change line is the record of a file-tool call, a record
// line that of any other call, in one order, the journal's; their ids
// share one form and their seq numbers one count. A drop line names either
// kind: why "max_per_session" or "max_bytes_per_session" drops change
// lines (the undo stack's limits), why "store_budget" drops record lines
// (the workspace store's budget, storage.snapshots.max_bytes_mb).

// Change-line kinds. Part of the format.
const (
	KindChange   = "change"
	KindUndo     = "undo"
	KindRestore  = "restore"
	KindRedo     = "redo"
	KindDiscard  = "discard"
	KindDrop     = "drop"
	KindEvidence = "evidence"
	KindAbort    = "abort"
	KindClose    = "close"
)

// FileChange is one file of a change line, an undo line or an evidence line.
type FileChange struct {
	Path   string        `json:"path"`
	Before *fstate.State `json:"before"`
	After  *fstate.State `json:"after"`
}

type KeptFile struct {
	Path string        `json:"path"`
	Kept *fstate.State `json:"kept"`
}

type DeniedFile struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// The line shapes, for writing. Reading goes through Line (Decode).
type (
	ChangeLine struct {
		V     int          `json:"v"`
		Kind  string       `json:"kind"`
		ID    string       `json:"id"`
		Seq   int          `json:"seq"`
		At    timefmt.Time `json:"at"`
		Tool  string       `json:"tool"`
		Call  string       `json:"call,omitempty"`
		Item  ItemRef      `json:"item,omitzero"`
		Scope string       `json:"scope"`
		Files []FileChange `json:"files"`
	}
	UndoLine struct {
		V     int          `json:"v"`
		Kind  string       `json:"kind"`
		ID    string       `json:"id"`
		At    timefmt.Time `json:"at"`
		Item  ItemRef      `json:"item,omitzero"`
		Files []KeptFile   `json:"files"`
	}
	EventLine struct { // also an abort line
		V    int          `json:"v"`
		Kind string       `json:"kind"`
		ID   string       `json:"id"`
		At   timefmt.Time `json:"at"`
		Item ItemRef      `json:"item,omitzero"`
	}
	ListLine struct {
		V    int          `json:"v"`
		Kind string       `json:"kind"`
		IDs  []string     `json:"ids"`
		At   timefmt.Time `json:"at"`
		Why  string       `json:"why,omitempty"`
	}
	CloseLine struct {
		V    int          `json:"v"`
		Kind string       `json:"kind"`
		At   timefmt.Time `json:"at"`
	}
	EvidenceLine struct {
		V        int          `json:"v"`
		Kind     string       `json:"kind"`
		At       timefmt.Time `json:"at"`
		Tool     string       `json:"tool"`
		Signal   string       `json:"signal"`
		Decision string       `json:"decision"`
		Rule     string       `json:"rule"`
		Files    []DeniedFile `json:"files"`
	}
)

var snapIDRE = lazyre.New(`^[0-9a-z]{1,13}-[0-9a-f]{8}$`)

// NewSnapID is a snapshot id: the time in base 36 milliseconds and eight
// random hex digits ("m2x1q0a3-9f3a2c7e").
func NewSnapID(now time.Time) string {
	return strconv.FormatInt(now.UnixMilli(), 36) + "-" + randHex(4)
}

func ValidSnapID(s string) bool { return snapIDRE.MatchString(s) }

// CheckChange validates a change line read from disk: an id, a tool name,
// at least one file, every path a clean workspace-relative name named once,
// every F well formed (only "after" may be hash-only, only "before" inline).
func CheckChange(l *Line) error {
	if !ValidSnapID(l.ID) {
		return fmt.Errorf("bad snapshot id %q", l.ID)
	}
	if !toolRE.MatchString(l.Tool) {
		return fmt.Errorf("bad tool %q", l.Tool)
	}
	if l.Call != "" && !toolRE.MatchString(l.Call) {
		return fmt.Errorf("bad call %q", l.Call)
	}
	if len(l.Files) == 0 {
		return fmt.Errorf("no files")
	}
	seen := map[string]bool{}
	for _, f := range l.Files {
		if p := string(f.Path); !fstate.ValidRel(p) || seen[p] {
			return fmt.Errorf("bad path %q", p)
		}
		seen[string(f.Path)] = true
		if !f.Before.Valid(fstate.FormBefore) || !f.After.Valid(fstate.FormAfter) {
			return fmt.Errorf("bad file state of %q", f.Path)
		}
	}
	return nil
}

// toolRE is the form of a tool name: the label form of the audit trail.
// Part of the format.
var toolRE = lazyre.New(`^[A-Za-z0-9_.:/@+-]{1,64}$`)

// randHex is n random bytes in hex.
func randHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
