package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strconv"
	"time"

	"cairn/objects"
)

// The changes journal, <id>.changes.jsonl beside the items journal, holds
// one "change" line per file-tool call that changed files, and the events
// of the undo stack. The cursor and every file's state are rebuilt from it
// alone (changes_fold.go). Part of the format:
//
//	{"v":1,"kind":"change","id":"m2x1-9f3a2c7e","seq":7,"at":T,"tool":"edit","call":"i-...",
//	 "scope":"paths","files":[{"path":"src/app.ts","before":F|null,"after":F|null}]}
//	{"v":1,"kind":"undo"|"restore","id":SNAP,"at":T,"files":[{"path":P,"kept":F|null}]}
//	{"v":1,"kind":"redo","id":SNAP,"at":T}
//	{"v":1,"kind":"discard","ids":[SNAP...],"at":T}              undone branch dropped by a new change
//	{"v":1,"kind":"drop","ids":[SNAP...],"at":T,"why":"max_per_session|max_bytes_per_session"}
//	{"v":1,"kind":"evidence","at":T,"tool":..,"signal":"permission","decision":"deny",
//	 "rule":"snapshots.required","files":[{"path":P,"reason":R}]}
//	{"v":1,"kind":"abort","id":SNAP,"at":T}                       the change's file was not changed
//	{"v":1,"kind":"close","at":T}                                 a run of the session ended cleanly
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
// and redo put them back. "after" is only compared with (a file still as the
// tool left it), so a change records it by its hash; lines written before
// that hold an "oid" there, which reads the same. "kept" is
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
// A change line ends the undone branch. The file tools (write, edit, rm)
// write their change line before they change the file, so one fsync makes
// an inline pre-image and its record durable together, and write the
// discard and drop lines that follow from it after. When the file is then
// not changed (the tool failed), an "abort" line cancels the change and
// puts back the undone branch it ended; after a crash in between, the
// owner that next opens the session finds the file still as "before" and
// writes the abort (Workspace.unmade). Each line waits for the file changes
// before it to be durable (fileSyncs), so only the newest change can be
// unmade. An undo, restore or redo writes its line (with what it keeps)
// before it puts files back; one stopped in between is finished by the
// next owner (finishRestore). A close line, written by a clean Close, says
// every file change before it was made: after it, nothing is settled.

// Change-line kinds. Part of the format.
const (
	kindChange   = "change"
	kindUndo     = "undo"
	kindRestore  = "restore"
	kindRedo     = "redo"
	kindDiscard  = "discard"
	kindDrop     = "drop"
	kindEvidence = "evidence"
	kindAbort    = "abort"
	kindClose    = "close"
)

// maxInline is the largest pre-image a file tool writes inline in its
// change line rather than as an object (the items journal's payload rule).
const maxInline = 16 << 10

// File modes of F. Part of the format; "perm" holds the permission bits.
const (
	modeFile = "file"
	modeExec = "exec"
	modeLink = "link"
)

// Reasons a file is recorded as skipped.
const (
	skipTooLarge   = "too large"
	skipUnreadable = "unreadable"
	skipStore      = "store failed"
	skipNotFile    = "not a file"
	skipMissing    = "object missing"
	skipDamaged    = "object damaged"
)

// fileRef is F: a file's content as an object (OID), its content's identity
// without an object (SHA256), or why it was not captured (Skipped).
type fileRef struct {
	Skipped string `json:"skipped,omitempty"`
	OID     string `json:"oid,omitempty"`
	SHA256  string `json:"sha256,omitempty"`
	Size    int64  `json:"size"`
	Mode    string `json:"mode,omitempty"`
	Perm    string `json:"perm,omitempty"` // a regular file's permission bits, "0640"
	Data    []byte `json:"data,omitempty"` // the content inline (with SHA256)
}

// permRE is the form of "perm": four octal digits, the permission bits only.
var permRE = regexp.MustCompile(`^0[0-7]{3}$`)

// permString is the "perm" of permission bits perm.
func permString(perm fs.FileMode) string { return fmt.Sprintf("%04o", perm&fs.ModePerm) }

// perm is the permission bits f records, and whether it records them.
func (f *fileRef) perm() (fs.FileMode, bool) {
	if f == nil || f.Perm == "" {
		return 0, false
	}
	n, err := strconv.ParseUint(f.Perm, 8, 32)
	if err != nil {
		return 0, false
	}
	return fs.FileMode(n) & fs.ModePerm, true
}

func (f *fileRef) skipped() bool { return f != nil && f.Skipped != "" }

// emptySum is the SHA-256 of no bytes.
const emptySum = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// inline reports whether f's content is in the line: its data, or none at
// all (an empty file, whose hash says it).
func (f *fileRef) inline() bool {
	return f != nil && f.OID == "" && (f.Data != nil || (f.SHA256 == emptySum && f.Size == 0))
}

// stored reports whether f's content can be put back: an object or inline.
func (f *fileRef) stored() bool { return f != nil && (f.OID != "" || f.inline()) }

// sum is the SHA-256 of the content, stored or not.
func (f *fileRef) sum() string {
	if f.OID != "" {
		return f.OID
	}
	return f.SHA256
}

// sizeLimit is the most bytes a capture compared with refs must read: at
// least floor, and the size of the largest of them.
func sizeLimit(floor int64, refs ...*fileRef) int64 {
	for _, r := range refs {
		if r != nil {
			floor = max(floor, r.Size)
		}
	}
	return floor
}

// contentRef is the identity of content b with mode.
func contentRef(b []byte, mode string) *fileRef {
	h := sha256.Sum256(b)
	return &fileRef{SHA256: hex.EncodeToString(h[:]), Size: int64(len(b)), Mode: mode}
}

// same reports whether two states of a file hold the same thing: the same
// content (by hash, stored or not), mode and, when both record them,
// permission bits.
func sameRef(a, b *fileRef) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if a.Perm != "" && b.Perm != "" && a.Perm != b.Perm {
		return false
	}
	return !a.skipped() && !b.skipped() && a.sum() == b.sum() && a.Mode == b.Mode
}

// Forms of F a field of a line may hold, for valid.
const (
	formStored = iota // an object ("before" of a line from Session.Change, "kept")
	formBefore        // an object or inline ("before")
	formAfter         // an object or a hash ("after")
)

// valid checks F as read from disk against the forms its field allows. An
// inline content must hash to its name.
func (f *fileRef) valid(form int) bool {
	if f == nil {
		return true
	}
	if f.Size < 0 {
		return false
	}
	if f.Skipped != "" {
		return f.OID == "" && f.SHA256 == "" && f.Data == nil && f.Perm == "" && len(f.Skipped) <= 64
	}
	if f.Perm != "" {
		perm, ok := f.perm()
		if !ok || !permRE.MatchString(f.Perm) || f.Mode == modeLink || (perm&0o111 != 0) != (f.Mode == modeExec) {
			return false
		}
	}
	sum := f.OID
	switch {
	case f.OID != "" && (f.SHA256 != "" || f.Data != nil):
		return false
	case f.Data != nil:
		if form != formBefore || f.SHA256 == "" || int64(len(f.Data)) != f.Size || len(f.Data) > maxInline {
			return false
		}
		if h := sha256.Sum256(f.Data); hex.EncodeToString(h[:]) != f.SHA256 {
			return false
		}
		sum = f.SHA256
	case f.SHA256 != "":
		// An empty pre-image has no "data" (omitted when empty): its hash
		// says all of it.
		if form != formAfter && !(form == formBefore && f.Size == 0 && f.SHA256 == emptySum) {
			return false
		}
		sum = f.SHA256
	}
	if _, err := objects.ParseID(sum); err != nil {
		return false
	}
	return f.Mode == modeFile || f.Mode == modeExec || f.Mode == modeLink
}

// changeFile is one file of a change line, an undo line or an evidence line.
type changeFile struct {
	Path   string   `json:"path"`
	Before *fileRef `json:"before"`
	After  *fileRef `json:"after"`
}

type keptFile struct {
	Path string   `json:"path"`
	Kept *fileRef `json:"kept"`
}

type deniedFile struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// The line shapes, for writing. Reading goes through rawChangeLine.
type (
	changeRecord struct {
		V     int          `json:"v"`
		Kind  string       `json:"kind"`
		ID    string       `json:"id"`
		Seq   int          `json:"seq"`
		At    Time         `json:"at"`
		Tool  string       `json:"tool"`
		Call  string       `json:"call,omitempty"`
		Scope string       `json:"scope"`
		Files []changeFile `json:"files"`
	}
	undoRecord struct {
		V     int        `json:"v"`
		Kind  string     `json:"kind"`
		ID    string     `json:"id"`
		At    Time       `json:"at"`
		Files []keptFile `json:"files"`
	}
	redoRecord struct { // also an abort line
		V    int    `json:"v"`
		Kind string `json:"kind"`
		ID   string `json:"id"`
		At   Time   `json:"at"`
	}
	listRecord struct {
		V    int      `json:"v"`
		Kind string   `json:"kind"`
		IDs  []string `json:"ids"`
		At   Time     `json:"at"`
		Why  string   `json:"why,omitempty"`
	}
	closeRecord struct {
		V    int    `json:"v"`
		Kind string `json:"kind"`
		At   Time   `json:"at"`
	}
	evidenceRecord struct {
		V        int          `json:"v"`
		Kind     string       `json:"kind"`
		At       Time         `json:"at"`
		Tool     string       `json:"tool"`
		Signal   string       `json:"signal"`
		Decision string       `json:"decision"`
		Rule     string       `json:"rule"`
		Files    []deniedFile `json:"files"`
	}
)

// rawChangeLine is any line of the journal as read.
type rawChangeLine struct {
	V     int             `json:"v"`
	Kind  string          `json:"kind"`
	ID    string          `json:"id"`
	Seq   int             `json:"seq"`
	At    Time            `json:"at"`
	Tool  string          `json:"tool"`
	Call  string          `json:"call"`
	Scope string          `json:"scope"`
	IDs   []string        `json:"ids"`
	Files []rawChangeFile `json:"files"`
}

type rawChangeFile struct {
	Path   string   `json:"path"`
	Before *fileRef `json:"before"`
	After  *fileRef `json:"after"`
	Kept   *fileRef `json:"kept"`
}

func changesName(dir, id string) string { return path.Join(dir, "sessions", id+".changes.jsonl") }

var snapIDRE = regexp.MustCompile(`^[0-9a-z]{1,13}-[0-9a-f]{8}$`)

// newSnapID is a snapshot id: the time in base 36 milliseconds and eight
// random hex digits ("m2x1q0a3-9f3a2c7e").
func newSnapID(now time.Time) string {
	return strconv.FormatInt(now.UnixMilli(), 36) + "-" + randHex(4)
}

func validSnapID(s string) bool { return snapIDRE.MatchString(s) }

// checkChange validates a change line read from disk: an id, a tool name,
// at least one file, every path a clean workspace-relative name named once,
// every F well formed (only "after" may be hash-only, only "before" inline).
func checkChange(l *rawChangeLine) error {
	if !validSnapID(l.ID) {
		return fmt.Errorf("bad snapshot id %q", l.ID)
	}
	if !labelRE.MatchString(l.Tool) {
		return fmt.Errorf("bad tool %q", l.Tool)
	}
	if l.Call != "" && !labelRE.MatchString(l.Call) {
		return fmt.Errorf("bad call %q", l.Call)
	}
	if len(l.Files) == 0 {
		return fmt.Errorf("no files")
	}
	seen := map[string]bool{}
	for _, f := range l.Files {
		if !validRel(f.Path) || seen[f.Path] {
			return fmt.Errorf("bad path %q", f.Path)
		}
		seen[f.Path] = true
		if !f.Before.valid(formBefore) || !f.After.valid(formAfter) {
			return fmt.Errorf("bad file state of %q", f.Path)
		}
	}
	return nil
}
