package usermsg

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"testing"

	"cairn/internal/vfs"
)

// The errors the system and cairn's packages make, as they reach a
// printer: wrapped with %w, perhaps more than once, perhaps two at a time.
var (
	tempRecord = "/h/workspaces/k/sessions/.d0909406-61f8-4a4f-98c5-99cc611f7dd6.json.30578-1c990438e9fc296a.cairn-tmp"
	errRecord  = fmt.Errorf("engine: write record: %w", &fs.PathError{Op: "write", Path: tempRecord, Err: syscall.ENOSPC})
	errTooBig  = fmt.Errorf("engine: write f.txt: %w", &fs.PathError{Op: "write", Path: "/ws/.f.txt.7923-62d6ef0bf88f2f75.cairn-tmp", Err: syscall.EFBIG})
	errEscapes = fmt.Errorf("engine: revert: read sub/g.txt: %w", &fs.PathError{Op: "statat", Path: "sub/g.txt", Err: errors.New("path escapes from parent")})
	errFIFO    = &fs.PathError{Op: "open", Path: "usage.jsonl", Err: vfs.ErrNotRegular}
	errRename  = fmt.Errorf("engine: forget: %w", &os.LinkError{Op: "renameat", Old: "workspaces/k/sessions/a.json", New: "trash/a/a.json", Err: syscall.EXDEV})
	errTmpMove = fmt.Errorf("index: index.json not saved: %w", &os.LinkError{Op: "renameat", Old: ".index.json.12-0123456789abcdef.cairn-tmp", New: "index.json", Err: syscall.EROFS})
	errSys     = fmt.Errorf("engine: lock session: %w", &fs.PathError{Op: "flock", Path: "workspaces/k/x.lock", Err: os.NewSyscallError("flock", syscall.ENOLCK)})
	errTwo     = fmt.Errorf("%w: attachment %s: %w", errors.New("engine: bad input"), "a.png", &fs.PathError{Op: "openat", Path: "a.png", Err: syscall.EISDIR})
	errNotice  = fmt.Errorf("engine: the session's record could not be written (%w); its journal holds everything", errRecord)
)

func TestError(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{errRecord, "write record: cannot write /h/workspaces/k/sessions/d0909406-61f8-4a4f-98c5-99cc611f7dd6.json: disk full"},
		{errTooBig, "write f.txt: file too large"},
		{errEscapes, "revert: read sub/g.txt: a symbolic link on its way leads out"},
		{errFIFO, "cannot open usage.jsonl: not a regular file"},
		{errRename, "forget: cannot move workspaces/k/sessions/a.json to trash/a/a.json: invalid cross-device link"},
		{errTmpMove, "index.json not saved: read-only file system"},
		{errSys, "lock session: cannot lock workspaces/k/x.lock: no locks available"},
		{errTwo, "bad input: attachment a.png: is a directory"},
		{errNotice, "the session's record could not be written (write record: cannot write /h/workspaces/k/sessions/d0909406-61f8-4a4f-98c5-99cc611f7dd6.json: disk full); its journal holds everything"},
		{fmt.Errorf("engine: sync session: %w", errors.Join(&fs.PathError{Op: "sync", Path: "s/a.items.jsonl", Err: syscall.EIO}, &fs.PathError{Op: "fsync", Path: "s/a.audit.jsonl", Err: syscall.ENOSPC})),
			"sync session: cannot write s/a.items.jsonl: input/output error; cannot write s/a.audit.jsonl: disk full"},
		{fmt.Errorf("engine: fork a: %w", errors.New("fstate: no free temp name next to b")), "fork a: no free temp name next to b"},
		{errors.New("a plain message: engine-like words stay"), "a plain message: engine-like words stay"},
	} {
		got := Error(c.err)
		if got != c.want {
			t.Errorf("Error(%q)\n = %q\nwant %q", c.err, got, c.want)
		}
		if l := Leak(got); l != "" {
			t.Errorf("Error(%q) = %q leaks %q", c.err, got, l)
		}
		if again := Text(got); again != got {
			t.Errorf("Text(Error) = %q, not the same as %q", again, got)
		}
	}
	if Error(nil) != "" || Error(errors.New("engine: refused: nothing to undo")) != "refused: nothing to undo" {
		t.Error("Error")
	}
}

// TestText: a message that reaches the printer as text reads as the same
// error would, by its shapes: the temp file named as its target (a session
// id that starts with a letter and digits stays whole), the system call
// worded, the file still named, no package prefix even in parentheses.
func TestText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"engine: no such session: \"x\" in /w", "no such session: \"x\" in /w"},
		{"engine: exec: scope: the workspace passes max_files (at /w)", "exec: the workspace passes max_files (at /w)"},
		{"this session cannot be recorded for now (engine: write record: write " + tempRecord + ": no space left on device); it goes on",
			"this session cannot be recorded for now (write record: cannot write /h/workspaces/k/sessions/d0909406-61f8-4a4f-98c5-99cc611f7dd6.json: disk full); it goes on"},
		{"cairn: revert: read sub/g.txt: statat sub/g.txt: path escapes from parent",
			"cairn: revert: read sub/g.txt: cannot read sub/g.txt: a symbolic link on its way leads out"},
		{"fsck: open workspaces/k/workspace.json: vfs: not a regular file", "fsck: open workspaces/k/workspace.json: not a regular file"},
		{"journal: write: openat .items.jsonl.77-0123456789abcdef.cairn-tmp: no space left on device", "write: cannot open items.jsonl: disk full"},
		{"renameat a b: file exists", "cannot move a to b: file exists"},
		{"the change store is full (create shard: mkdir objects/73: no space left on device)", "the change store is full (create shard: cannot create the folder objects/73: disk full)"},
		{"ran mkdir x; chmod 600 it", "ran mkdir x; chmod 600 it"},
		{"skipped sessions/x.json: index: malformed record", "skipped sessions/x.json: malformed record"},
		{"a plain message: engine-like words stay", "a plain message: engine-like words stay"},
		{"write record: the words stay", "write record: the words stay"},
	} {
		got := Text(c.in)
		if got != c.want {
			t.Errorf("Text(%q)\n = %q\nwant %q", c.in, got, c.want)
		}
		if Text(got) != got {
			t.Errorf("Text is not the same twice: %q then %q", got, Text(got))
		}
		if l := Leak(got); l != "" {
			t.Errorf("Text(%q) = %q leaks %q", c.in, got, l)
		}
	}
}

// TestLeak: each kind of inside is found, in any place of a message.
func TestLeak(t *testing.T) {
	for _, c := range []struct{ msg, leak string }{
		{"write record: engine: x", ": engine: "},
		{"cannot be recorded (engine: write", "(engine: "},
		{"open trail: vfs: not a regular file", ": vfs: "},
		{"statat sub/g.txt: escapes", "statat"},
		{"x: unlinkat a: busy", "unlinkat"},
		{"create shard: mkdir objects/73: full", "mkdir objects/73: "},
		{"the line mkdir x ran; chmod 600 it", ""},
		{"cannot write .x.json.24129-95f95d192cba9a38.cairn-tmp: full", ".x.json.24129-95f95d192cba9a38"},
		{"write /a/b/c: full", "write /a/b/c: "},
		{"nothing here: write record: cannot write /a/b: disk full", ""},
		{"the engine: a word", ""},
	} {
		if got := Leak(c.msg); got != c.leak {
			t.Errorf("Leak(%q) = %q, want %q", c.msg, got, c.leak)
		}
	}
}
