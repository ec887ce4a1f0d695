package engine

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"cairn/internal/vfs"
)

// A FIFO planted under the name of a state file is refused as not a
// regular file, naming the file, by every reader: nothing waits for a
// writer that never comes, and fsck reports it and goes on. (Before, every
// command, fsck included, blocked for ever in open.)
func TestFIFOStateFilesRefusedNotWaitedOn(t *testing.T) {
	e := newSnapEnv(t, `{"history":{"max":10}}`)
	s := e.session()
	if _, err := s.Append(e.ctx, Item{Type: "user", Text: "hello"}); err != nil {
		t.Fatal(err)
	}
	e.put("a.txt", "one")
	if _, err := s.ToolWrite(e.ctx, "a.txt", []byte("two")); err != nil {
		t.Fatal(err)
	}
	if err := s.recordEvent(e.ctx, auditEvent{Event: "turn", Outcome: "ok"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ShellStart(e.ctx, "ls"); err != nil {
		t.Fatal(err)
	}
	if err := s.EndTurn(e.ctx, Turn{}); err != nil {
		t.Fatal(err)
	}
	if err := e.store.AddHistory("hello", e.dir); err != nil {
		t.Fatal(err)
	}
	id := s.ID()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.ws.List(e.ctx); err != nil {
		t.Fatal(err)
	}
	home := e.store.Home()
	sess := filepath.Join(e.ws.Folder(), "sessions")
	rel := func(p string) string { r, _ := filepath.Rel(home, p); return filepath.ToSlash(r) }

	for _, name := range []string{
		filepath.Join(home, "FORMAT"),
		filepath.Join(home, "config.json"),
		filepath.Join(home, "history.jsonl"),
		filepath.Join(home, "usage.jsonl"),
		filepath.Join(e.ws.Folder(), "index.json"),
		filepath.Join(sess, id+".json"),
		filepath.Join(sess, id+".items.jsonl"),
		filepath.Join(sess, id+".changes.jsonl"),
		filepath.Join(sess, id+".audit.jsonl"),
		filepath.Join(sess, id+".shell.jsonl"),
	} {
		t.Run(filepath.Base(name), func(t *testing.T) {
			aside := name + ".aside"
			had := os.Rename(name, aside) == nil
			if err := syscall.Mkfifo(name, 0o600); err != nil {
				t.Fatal(err)
			}
			defer func() {
				os.Remove(name)
				if had {
					os.Rename(aside, name)
				}
			}()
			notRegular := func(what string, err error) {
				t.Helper()
				if !errors.Is(err, vfs.ErrNotRegular) || !strings.Contains(err.Error(), filepath.Base(name)) {
					t.Errorf("%s: %v, want an error naming %s as not a regular file", what, err, filepath.Base(name))
				}
			}

			// Every reader returns; each that reads the FIFO says what it is.
			r, err := e.store.Fsck(e.ctx)
			if err != nil {
				t.Fatalf("fsck: %v", err)
			}
			_, cfgErr := e.store.Config()
			_, _, listErr := e.ws.List(e.ctx)
			_, usageErr := e.store.Usage(e.ctx)
			e.store.History()
			o, openErr := e.ws.Open(e.ctx, id, SessionOptions{})
			if openErr == nil {
				o.Close()
			}
			_, storeErr := Open(home)

			switch base := filepath.Base(name); {
			case base == "FORMAT":
				notRegular("open store", storeErr)
			case base == "config.json":
				notRegular("config", cfgErr)
			case base == "usage.jsonl":
				notRegular("usage", usageErr)
			case base == "index.json":
				if listErr != nil {
					t.Errorf("list with a FIFO index: %v, want it rebuilt from the records", listErr)
				}
			case strings.HasSuffix(base, ".items.jsonl"):
				notRegular("open session", openErr)
			}

			// fsck names the file as a problem (the index is a cache it
			// does not read).
			if filepath.Base(name) == "index.json" {
				return
			}
			found := false
			for _, p := range r.Problems {
				if p.Path == rel(name) && strings.Contains(p.Problem, "not a regular file") {
					found = true
				}
			}
			if !found {
				t.Errorf("fsck problems %v name no FIFO at %s", r.Problems, rel(name))
			}
		})
	}
}

// A FIFO in a folder's place in the state folder is reported by fsck,
// which goes on; listing still returns.
func TestFIFOStateFoldersRefusedNotWaitedOn(t *testing.T) {
	e := newSnapEnv(t, "")
	s := e.session()
	e.put("a.txt", strings.Repeat("big enough to be an object ", 1000))
	if _, err := s.ToolWrite(e.ctx, "a.txt", []byte("two")); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	home := e.store.Home()
	shards, _ := filepath.Glob(filepath.Join(e.ws.Folder(), "objects", "??"))
	if len(shards) == 0 {
		t.Fatal("no object shard")
	}
	for _, name := range []string{shards[0], filepath.Join(e.ws.Folder(), "sessions"), filepath.Join(home, "workspaces")} {
		t.Run(filepath.Base(name), func(t *testing.T) {
			aside := name + ".aside"
			if err := os.Rename(name, aside); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(name, 0o600); err != nil {
				t.Fatal(err)
			}
			defer func() {
				os.Remove(name)
				os.Rename(aside, name)
			}()
			r, err := e.store.Fsck(e.ctx)
			if err == nil && len(r.Problems) == 0 {
				t.Errorf("fsck found nothing wrong with a FIFO as %s", name)
			}
			e.ws.List(e.ctx)
		})
	}
}

// A FIFO as .git/HEAD in the workspace gives no branch, at once.
func TestFIFOGitHeadNotWaitedOn(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, ".git", "HEAD"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b := gitBranch(dir); b != "" {
		t.Fatalf("branch %q", b)
	}
	os.Remove(filepath.Join(dir, ".git", "HEAD"))
	os.WriteFile(filepath.Join(dir, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	if b := gitBranch(dir); b != "main" {
		t.Fatalf("branch %q, want main", b)
	}
}
