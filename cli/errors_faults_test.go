package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"cairn/engine"
	"cairn/internal/usermsg"
	"cairn/internal/vfs"
)

// TestErrorWordsUnderFaults runs the plumbing commands while the state
// folder and the workspace fail, one kind of fault at a time (a full disk
// on each kind of write, I/O errors on reads, syncs, renames, listings,
// locks), on the real disk through the fault-injecting filesystem. Every
// line a command prints, and every --json error, names the user's files
// and says what failed, and shows nothing of cairn's insides: no package
// name, no system call, no temp file. Each fault makes some command fail,
// so each is seen at the printer; the notices of the commands that pass
// are heard by the package's check (messages_test.go).
func TestErrorWordsUnderFaults(t *testing.T) {
	faults := []struct {
		name  string
		op    vfs.Op
		err   error
		files bool // the workspace only
	}{
		{"full disk on write", vfs.OpWrite, syscall.ENOSPC, false},
		{"full disk on create", vfs.OpCreate, syscall.ENOSPC, false},
		{"I/O error on sync", vfs.OpSync, syscall.EIO, false},
		{"I/O error on rename", vfs.OpRename, syscall.EIO, false},
		{"I/O error on read", vfs.OpRead, syscall.EIO, false},
		{"no permission to open", vfs.OpOpen, syscall.EACCES, false},
		{"I/O error on listing", vfs.OpReadDir, syscall.EIO, false},
		{"I/O error on stat", vfs.OpStat, syscall.EIO, false},
		{"I/O error on remove", vfs.OpRemove, syscall.EIO, false},
		{"no lock", vfs.OpLock, syscall.ENOLCK, false},
		{"file too large", vfs.OpWrite, syscall.EFBIG, true},
	}
	commands := []struct {
		stdin string
		args  []string
	}{
		{"", []string{"prompt", "--session", "S", "more"}},
		{"", []string{"prompt", "--new", "another"}},
		{"", []string{"append", "--session", "S", "--type", "assistant", "an answer"}},
		{"", []string{"turn", "--session", "S", "--model", "m", "--input-tokens", "1", "--output-tokens", "1"}},
		{"v3\n", []string{"tool", "--session", "S", "write", "a.txt"}},
		{"new\n", []string{"tool", "--session", "S", "write", "new.txt"}},
		{"", []string{"tool", "--session", "S", "edit", "a.txt", "v", "w"}},
		{"", []string{"tool", "--session", "S", "rm", "b.txt"}},
		{"", []string{"tool", "--session", "S", "exec", "--", "echo x > c.txt"}},
		{"", []string{"undo", "--session", "S"}},
		{"", []string{"redo", "--session", "S"}},
		{"", []string{"snapshots", "--session", "S"}},
		{"", []string{"revert", "S", "--to", "1", "--files"}},
		{"", []string{"revert", "S", "--to", "1", "--files", "--apply"}},
		{"", []string{"unrevert", "S"}},
		{"", []string{"fork", "S"}},
		{"", []string{"rename", "S", "renamed"}},
		{"", []string{"compact", "S"}},
		{"", []string{"sessions"}},
		{"", []string{"sessions", "--all"}},
		{"", []string{"show", "S"}},
		{"", []string{"transcript", "S"}},
		{"", []string{"trail", "S"}},
		{"", []string{"shells", "S"}},
		{"", []string{"history"}},
		{"", []string{"where"}},
		{"", []string{"storage", "stats"}},
		{"", []string{"storage", "sessions"}},
		{"", []string{"storage", "usage"}},
		{"", []string{"storage", "snapshots"}},
		{"", []string{"storage", "fsck"}},
	}
	for _, fault := range faults {
		t.Run(fault.name, func(t *testing.T) {
			home, dir := t.TempDir(), t.TempDir()
			faulting := false // set once the session is made
			rule := vfs.Rule{Op: fault.op, Err: fault.err}
			open := func(home string) (*engine.Store, error) {
				d, err := vfs.OpenDisk(home)
				if err != nil {
					return nil, err
				}
				state := vfs.NewFaulty(d)
				s, err := engine.OpenFS(state, home, engine.WithWorkspaceFS(func(dir string) (vfs.FS, error) {
					d, err := vfs.OpenDisk(dir)
					if err != nil {
						return nil, err
					}
					files := vfs.NewFaulty(d)
					if faulting {
						files.Inject(rule)
					}
					return files, nil
				}))
				if faulting && !fault.files {
					state.Inject(rule)
				}
				return s, err
			}
			run := func(stdin string, args ...string) (int, string, string) {
				var out, errw bytes.Buffer
				code := mainOn(context.Background(), append([]string{"--home", home, "-C", dir}, args...),
					strings.NewReader(stdin), &out, &errw, open)
				return code, out.String(), errw.String()
			}
			// A session with two snapshots of a.txt, a shell line, a turn.
			if err := os.WriteFile(filepath.Join(dir, "b.txt"), []byte("b\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			sid := ""
			for _, c := range []struct {
				stdin string
				args  []string
			}{
				{"", []string{"--json", "prompt", "--new", "first"}},
				{"v1\n", []string{"tool", "--session", "S", "write", "a.txt"}},
				{"v2\n", []string{"tool", "--session", "S", "write", "a.txt"}},
				{"", []string{"tool", "--session", "S", "exec", "--", "echo hi > d.txt"}},
				{"", []string{"turn", "--session", "S", "--model", "m", "--input-tokens", "1", "--output-tokens", "1"}},
			} {
				code, out, errw := run(c.stdin, withSession(c.args, sid)...)
				if code != ExitOK {
					t.Fatalf("setup %q: exit %d: %s", c.args, code, errw)
				}
				if sid == "" {
					var a struct{ Session string }
					if err := json.Unmarshal([]byte(out), &a); err != nil || a.Session == "" {
						t.Fatalf("prompt --new answered %q: %v", out, err)
					}
					sid = a.Session
				}
			}
			faulting = true
			failed := 0
			for _, c := range commands {
				args := append([]string{"--json"}, withSession(c.args, sid)...)
				code, out, errw := run(c.stdin, args...)
				if code == ExitOK {
					continue
				}
				failed++
				for _, line := range strings.Split(strings.TrimSuffix(errw, "\n"), "\n") {
					if l := usermsg.Leak(line); l != "" {
						t.Errorf("cairn %q: stderr %q shows %q", args, line, l)
					}
				}
				var answer struct{ Error string }
				if json.Unmarshal([]byte(out), &answer) == nil {
					if l := usermsg.Leak(answer.Error); l != "" {
						t.Errorf("cairn %q: the --json error %q shows %q", args, answer.Error, l)
					}
				}
			}
			if failed == 0 {
				t.Errorf("no command failed: the fault was never met")
			}
		})
	}
}

// withSession is args with each "S" the session id.
func withSession(args []string, sid string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == "S" {
			a = sid
		}
		out[i] = a
	}
	return out
}
