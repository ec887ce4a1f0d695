package fstate

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"strconv"

	"cairn/internal/lazyre"
	"cairn/objects"
)

// MaxInline is the largest pre-image a file tool writes inline in its
// change line rather than as an object (the items journal's payload rule),
// and the largest new content it writes there too, for redo after a crash.
const MaxInline = 16 << 10

// File modes of F. Part of the format; "perm" holds the permission bits.
const (
	ModeFile = "file"
	ModeExec = "exec"
	ModeLink = "link"
)

// Reasons a file is recorded as skipped.
const (
	SkipTooLarge   = "too large"
	SkipUnreadable = "unreadable"
	SkipStore      = "store failed"
	SkipNotFile    = "not a file"
	SkipMissing    = "object missing"
	SkipDamaged    = "object damaged"
)

// State is F: a file's content as an object (OID), its content's identity
// without an object (SHA256), or why it was not captured (Skipped).
type State struct {
	Skipped string `json:"skipped,omitempty"`
	OID     string `json:"oid,omitempty"`
	SHA256  string `json:"sha256,omitempty"`
	Size    int64  `json:"size"`
	Mode    string `json:"mode,omitempty"`
	Perm    string `json:"perm,omitempty"` // a regular file's permission bits, "0640"
	Data    []byte `json:"data,omitempty"` // the content inline (with SHA256)
}

// permRE is the form of "perm": four octal digits, the permission bits only.
var permRE = lazyre.New(`^0[0-7]{3}$`)

// PermString is the "perm" of permission bits perm.
func PermString(perm fs.FileMode) string { return fmt.Sprintf("%04o", perm&fs.ModePerm) }

// PermBits is the permission bits f records, and whether it records them.
func (f *State) PermBits() (fs.FileMode, bool) {
	if f == nil || f.Perm == "" {
		return 0, false
	}
	n, err := strconv.ParseUint(f.Perm, 8, 32)
	if err != nil {
		return 0, false
	}
	return fs.FileMode(n) & fs.ModePerm, true
}

// IsSkipped reports whether f records why the file was not captured.
func (f *State) IsSkipped() bool { return f != nil && f.Skipped != "" }

// EmptySum is the SHA-256 of no bytes.
const EmptySum = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// Inline reports whether f's content is in the line: its data, or none at
// all (an empty file, whose hash says it).
func (f *State) Inline() bool {
	return f != nil && f.OID == "" && (f.Data != nil || (f.SHA256 == EmptySum && f.Size == 0))
}

// Stored reports whether f's content can be put back: an object or inline.
func (f *State) Stored() bool { return f != nil && (f.OID != "" || f.Inline()) }

// Sum is the SHA-256 of the content, stored or not.
func (f *State) Sum() string {
	if f.OID != "" {
		return f.OID
	}
	return f.SHA256
}

// SizeLimit is the most bytes a capture compared with refs must read: at
// least floor, and the size of the largest of them.
func SizeLimit(floor int64, refs ...*State) int64 {
	for _, r := range refs {
		if r != nil {
			floor = max(floor, r.Size)
		}
	}
	return floor
}

// Content is the identity of content b with mode.
func Content(b []byte, mode string) *State {
	h := sha256.Sum256(b)
	return &State{SHA256: hex.EncodeToString(h[:]), Size: int64(len(b)), Mode: mode}
}

// Same reports whether two states of a file hold the same thing: the same
// content (by hash, stored or not), mode and, when both record them,
// permission bits. Two absent files (nil) are the same.
func Same(a, b *State) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if a.Perm != "" && b.Perm != "" && a.Perm != b.Perm {
		return false
	}
	return !a.IsSkipped() && !b.IsSkipped() && a.Sum() == b.Sum() && a.Mode == b.Mode
}

// Forms of F a field of a line may hold, for Valid.
const (
	FormStored = iota // an object ("before" of a line from Session.Change, "kept")
	FormBefore        // an object or inline ("before")
	FormAfter         // an object, a hash or inline ("after")
)

// Valid checks F as read from disk against the forms its field allows. An
// inline content must hash to its name.
func (f *State) Valid(form int) bool {
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
		perm, ok := f.PermBits()
		if !ok || !permRE.MatchString(f.Perm) || f.Mode == ModeLink || (perm&0o111 != 0) != (f.Mode == ModeExec) {
			return false
		}
	}
	sum := f.OID
	switch {
	case f.OID != "" && (f.SHA256 != "" || f.Data != nil):
		return false
	case f.Data != nil:
		if form == FormStored || f.SHA256 == "" || int64(len(f.Data)) != f.Size || len(f.Data) > MaxInline {
			return false
		}
		if h := sha256.Sum256(f.Data); hex.EncodeToString(h[:]) != f.SHA256 {
			return false
		}
		sum = f.SHA256
	case f.SHA256 != "":
		// An empty pre-image has no "data" (omitted when empty): its hash
		// says all of it.
		if form != FormAfter && !(form == FormBefore && f.Size == 0 && f.SHA256 == EmptySum) {
			return false
		}
		sum = f.SHA256
	}
	if _, err := objects.ParseID(sum); err != nil {
		return false
	}
	return f.Mode == ModeFile || f.Mode == ModeExec || f.Mode == ModeLink
}

// PermMode is the F mode of a regular file with permission perm.
func PermMode(perm fs.FileMode) string {
	if perm&0o111 != 0 {
		return ModeExec
	}
	return ModeFile
}
