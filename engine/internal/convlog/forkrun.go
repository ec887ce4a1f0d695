package convlog

import (
	"context"
	"fmt"

	"cairn/engine/internal/errs"
	"cairn/engine/internal/layout"
	"cairn/internal/timefmt"
	"cairn/internal/vfs"
	"cairn/journal"
)

// Forking copies the selected ancestor path into a new session and shares
// everything else: payload objects stay in the workspace's store and are
// named, not copied; the parent's change records are shared so the child can
// revert files too. Where the fork starts follows the seed's table
// (fork.go). The child gets a new id, the title "<title> (fork
// #N)" (N counted per parent, marked as the user's own), copies of the
// plan, model and settings, and the tool outputs its path and the
// sub-agent histories it keeps refer to (ids kept; one the parent no
// longer holds is skipped). Usage, pending revert state and permission
// rules start clean. Forking needs no ownership of the parent, so an
// active session can be forked.

// ForkHost is what Fork needs of the engine: the workspace's sessions,
// their locks, and the files a child shares with its parent.
type ForkHost interface {
	// Fold folds session id's items journal without payloads, refusing a
	// journal that is no session to fork.
	Fold(ctx context.Context, id string) (*State, error)
	// Draft is the text of user prompt sel of session id, read back.
	Draft(ctx context.Context, id string, sel *Item) (string, *Unavailable, error)
	// Listing is the workspace's sessions, for numbering a fork.
	Listing(ctx context.Context) ([]Listed, error)
	// Ensure makes the workspace folder.
	Ensure() error
	// Acquire and Release take and let go of a session's ownership lock;
	// Drop removes what an unmade session wrote.
	Acquire(id string) (vfs.Lock, error)
	Release(id string, l vfs.Lock)
	Drop(id string)
	// Copy gives child the sub-agent transcripts and the tool outputs the
	// kept path refers to, and says the tasks it copied.
	Copy(ctx context.Context, parent, child string, keep []*Item) (tasks []string, err error)
	// Made is told the child's items journal is in place, size bytes long
	// (the engine writes its record).
	Made(ctx context.Context, child string, size int64)
}

// ForkEnv is the workspace a fork is made in, and the child's new ids.
type ForkEnv struct {
	FS               vfs.FS
	Dir, Path, Build string
	Branch           func() string
	Now              func() timefmt.Time
	Child, Supplied  string // the child's session id; its supplied result's item id
	Journal          journal.Options
}

// Fork forks session parent at item at ("" = its head) without taking
// ownership of it: the kept path is copied into a new items journal, which
// comes into being by one rename after everything else the child holds.
// A failure before it removes what was written (ForkHost.Drop), so a failed
// fork leaves no session behind.
func Fork(ctx context.Context, h ForkHost, env ForkEnv, parent, at string) (*ForkResult, error) {
	st, err := h.Fold(ctx, parent)
	if err != nil {
		return nil, err
	}
	if at == "" {
		if st.Head == "" {
			return nil, errs.Refusedf("nothing to fork: session %s has no head item (name an item to fork at)", parent)
		}
		at = st.Head
	}
	sel := st.Item(at)
	if sel == nil {
		return nil, errs.NotFoundf("no item %q in session %s", at, parent)
	}
	keep, draft, supply := st.ForkPath(sel)
	var draftGone *Unavailable
	var draftPayload *Payload // the prompt's object, for a text over 16 KiB
	var draftAtts []Attachment
	parentItems := layout.Items(env.Dir, parent)
	if sel.Type == User {
		if draft, draftGone, err = h.Draft(ctx, parent, sel); err != nil {
			return nil, err
		}
		if sel.Text == "" {
			ls, err := PathLines(env.FS, parentItems, []*Item{sel})
			if err != nil {
				return nil, err
			}
			if len(ls) == 1 {
				draftPayload = ls[0].Payload
			}
		}
		draftAtts = OnDisk(sel.Attachments)
	}

	// Forks are numbered one at a time, across processes: the lock is held
	// until the child is in place, where the next fork's count sees it.
	if err := h.Ensure(); err != nil {
		return nil, err
	}
	fl, err := LockForks(ctx, env.FS, env.Dir)
	if err != nil {
		return nil, err
	}
	defer fl.Release()
	listed, err := h.Listing(ctx)
	if err != nil {
		return nil, err
	}
	n := NextForkN(listed, parent, st.Title)
	title := ForkTitle(st.Title, n)
	child := env.Child
	ref := ForkRef{Session: parent, Item: at, N: n}

	// Lines the parent's journal holds for the path are copied with their
	// payload references: no payload is read or stored again.
	lines, err := PathLines(env.FS, parentItems, keep)
	if err != nil {
		return nil, err
	}
	out := ForkLines(st, lines, keep, supply, Child{Session: child, Path: env.Path, Build: env.Build,
		Branch: env.Branch(), Ref: ref, At: env.Now(), Title: title, Supplied: env.Supplied,
		Draft: draft, DraftPayload: draftPayload, DraftAttachments: draftAtts})

	// The child's lock is held while it is made, so that no one takes its
	// temp files for leftovers.
	l, err := h.Acquire(child)
	if err != nil {
		return nil, err
	}
	made := false
	defer func() {
		h.Release(child, l)
		if !made {
			h.Drop(child)
		}
	}()
	if err := ShareChanges(env.FS, layout.Changes(env.Dir, parent), layout.Changes(env.Dir, child), env.Now()); err != nil {
		return nil, fmt.Errorf("engine: fork %s: share its change records: %w", parent, err)
	}
	tasks, err := h.Copy(ctx, parent, child, keep)
	if err != nil {
		return nil, err
	}
	wr, err := journal.Create(env.FS, layout.Items(env.Dir, child), out, env.Journal)
	if err != nil {
		return nil, fmt.Errorf("engine: fork %s: %w", parent, err)
	}
	made = true
	size := wr.Size()
	wr.Close()
	h.Made(ctx, child, size)
	return &ForkResult{Session: child, ForkOf: ref, Title: title, Draft: draft, DraftUnavailable: draftGone,
		DraftAttachments: draftAtts, Tasks: tasks}, nil
}
