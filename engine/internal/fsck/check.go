package fsck

import (
	"context"
	"encoding/json"
	"path"
	"strings"
	"time"

	"cairn/engine/internal/layout"
	"cairn/internal/vfs"
	"cairn/objects"
)

// Report is what `cairn storage fsck` found.
type Report struct {
	Objects  int       `json:"objects"`
	Journals int       `json:"journals"`
	Lines    int       `json:"lines"`
	Records  int       `json:"records"`
	Problems []Problem `json:"problems"`
	Notes    []Problem `json:"notes"`
}

// Problem is one thing wrong, and where (a path relative to the state
// folder, with a line number for a journal line).
type Problem struct {
	Path    string `json:"path"`
	Problem string `json:"problem"`
}

// Record is what fsck reads of a session's record.
type Record struct {
	Title      string
	Items      int
	Head       string
	ItemsBytes int64 // how much of the items journal the record reflects
	UpdatedAt  time.Time
}

// Role is what an items line is to the checks.
type Role int

// The roles of an items or transcript line.
const (
	Known   Role = iota // a kind a read folds with no check of its own
	Unknown             // a kind a read skips
	Session             // the session line
	Item                // an item
	Turn                // a turn's line
)

// ItemLine is what fsck checks of an items journal's or a transcript's
// line, decoded by the engine.
type ItemLine struct {
	V      int
	Kind   string
	Role   Role
	ID     string
	Parent string
	Task   string // the task an item calls
	Turn   int
	// Spend says why the turn's spend is not counted, or "".
	Spend string
	// Empty: the line leaves a session holding nothing (its session,
	// open and repair lines).
	Empty bool
}

// Tree is a load's fold of an items journal or transcript, which only the
// engine knows: Decode reads a line and keeps it, Apply folds the line
// Decode kept.
type Tree interface {
	Decode(b []byte) (ItemLine, error)
	Has(id string) bool
	Apply() error
	// Shows is what a listing shows of the fold.
	Shows() (title string, items int, head string)
}

// Env is what the checks need of the engine.
type Env interface {
	// WorkspaceInfo runs the engine's own checks of workspace folder dir's
	// workspace.json.
	WorkspaceInfo(dir string, bad Reporter)
	// Dropped is the records of each session that dir's drops.jsonl
	// drops.
	Dropped(dir string) map[string]map[string]bool
	Record(dir, id string) (Record, error)
	// Owned reports whether a process holds session id's lock.
	Owned(dir, id string) bool
	// Pending is the sessions a forget, restore or trim plan names.
	Pending() map[string]bool
	// Future is the time after which a line is dated in the future.
	Future() time.Time
}

// Checker checks the files of a state folder through FS, reporting to Bad
// and Note and counting in R.
type Checker struct {
	FS        vfs.FS
	Env       Env
	Bad, Note Reporter
	R         *Report
	// Names the engine's formats give to files fsck meets.
	Transcript string // the hooks' transcript cache in hooks/<session>/
	ExecKind   string // the kind of a shell command's hook marker
	Inbox      string // a task folder's inbox
	WorkLedger string // a task folder's background work ledger
	TrashDays  int    // how old a lone record is when prune removes it
}

// Workspaces checks every workspace folder, telling progress, when not
// nil, how many it has checked of how many.
func (c *Checker) Workspaces(ctx context.Context, progress func(done, total int)) error {
	ents, err := c.FS.ReadDir(layout.Workspaces)
	if err != nil && !vfs.IsNotExist(err) {
		return err
	}
	for i, e := range ents {
		if progress != nil && i > 0 {
			progress(i, len(ents))
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		dir := path.Join(layout.Workspaces, e.Name())
		if msg, ok := DotNote(e.Name()); ok {
			c.Note(dir, "%s", msg)
			continue
		}
		if !e.IsDir() {
			c.Bad(dir, "not a workspace folder")
			continue
		}
		c.Workspace(ctx, dir)
	}
	if progress != nil && len(ents) > 0 {
		progress(len(ents), len(ents))
	}
	return nil
}

// Workspace checks workspace folder dir: its workspace.json, its
// sessions' files, task folders and hook markers, and its objects against
// the lines naming them.
func (c *Checker) Workspace(ctx context.Context, dir string) {
	bad, note := c.Bad, c.Note
	b, err := vfs.ReadFile(c.FS, path.Join(dir, layout.InfoFile))
	var info struct {
		V    int    `json:"v"`
		Path string `json:"path"`
	}
	if vfs.IsNotExist(err) && !c.hasSessions(dir) {
		note(dir, "workspace folder without workspace.json and without sessions: an interrupted creation, adopted by its path on next use")
	} else if err != nil {
		bad(path.Join(dir, layout.InfoFile), "%v", err)
	} else if json.Unmarshal(b, &info) != nil || info.V != 1 || info.Path == "" {
		bad(path.Join(dir, layout.InfoFile), "not a workspace.json (want {\"v\":1,\"path\":...})")
	}
	c.Env.WorkspaceInfo(dir, bad)
	c.emptySessions(dir)
	c.folderFiles(dir)
	if drops := path.Join(dir, layout.DropsFile); c.exists(drops) {
		c.Journal(drops, nil) // records dropped to keep a store within its budget
	}
	objs := objects.New(c.FS, path.Join(dir, layout.Objects))
	named := map[string][]string{} // oid -> every journal line naming it
	sess := layout.SessionsDir(dir)
	ents, err := c.FS.ReadDir(sess)
	if err != nil && !vfs.IsNotExist(err) {
		bad(sess, "%v", err)
	}
	var dropped map[string]map[string]bool
	for _, e := range ents {
		name := path.Join(sess, e.Name())
		switch {
		case strings.HasPrefix(e.Name(), "."):
			msg, _ := DotNote(e.Name())
			note(name, "%s", msg)
		case strings.HasSuffix(e.Name(), ".jsonl"):
			if id, ok := strings.CutSuffix(e.Name(), layout.ChangesSuffix); ok {
				if dropped == nil {
					dropped = c.Env.Dropped(dir)
				}
				c.changes(name, named, dropped[id])
			} else {
				c.Journal(name, named)
			}
			c.items(dir, name) // items journals only
		case strings.HasSuffix(e.Name(), layout.RecordSuffix):
			id := strings.TrimSuffix(e.Name(), layout.RecordSuffix)
			c.R.Records++
			c.record(dir, id, name)
		case strings.HasSuffix(e.Name(), layout.LockSuffix):
		default:
			bad(name, "unexpected file")
		}
	}
	c.tasks(ctx, dir, named)
	c.hooks(dir, named)
	n, broken := Objects(ctx, objs, bad) // and those that fail verification
	c.R.Objects += n
	References(objs, named, broken, bad)
}

// hasSessions reports whether a workspace folder holds any session journal.
func (c *Checker) hasSessions(dir string) bool {
	ents, _ := c.FS.ReadDir(layout.SessionsDir(dir))
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), layout.ItemsSuffix) {
			return true
		}
	}
	return false
}

func (c *Checker) exists(name string) bool {
	_, err := c.FS.Lstat(name)
	return err == nil
}
