package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"cairn/engine/internal/layout"
	"cairn/engine/internal/migrate"
	"cairn/engine/wskey"
	"cairn/internal/vfs"
)

// Moving sessions to another directory (cairn migrate-sessions FROM TO):
// every saved session of one exact stored directory moves to another
// directory's workspace folder, ids and conversations kept. Package
// migrate carries out one session's move, a step at a time, and says the
// order and the formats; here the store finds the sessions, takes both
// ownership locks and holds them throughout, rebuilds the record at the
// destination, and finishes or rolls back at Open what a crash
// interrupted.

// MigrateOptions choose what a move takes.
type MigrateOptions struct {
	// Session moves one session only (an id or unique id prefix of the
	// source): it keeps its own counters, and the usage ledger is left
	// attributed to the source (it cannot tell one session's share).
	Session string
	// NoUsage leaves the usage ledger as it is.
	NoUsage bool
	// DryRun says what the move would do, and writes nothing.
	DryRun bool
}

// MigrateResult says what a move did.
type MigrateResult struct {
	From     string   `json:"from"`
	To       string   `json:"to"`
	Sessions []string `json:"sessions"` // the ids moved
	// Usage is what the ledger reattribution did; nil when it was not
	// asked for (a single-session move, NoUsage).
	Usage *UsageMove `json:"usage"`
}

// UsageMove is a reattribution of the usage ledger: its buckets are
// (directory, model); a bucket moved had no counterpart at the
// destination, a bucket merged was added to the destination's. Empty: the
// ledger holds nothing for the source directory.
type UsageMove struct {
	Lines  int  `json:"lines"`
	Moved  int  `json:"moved"`
	Merged int  `json:"merged"`
	Empty  bool `json:"empty"`
}

// MigrateSessions moves the sessions of exact stored directory from (which
// may be gone) to directory to. It refuses (BusyError) when another process
// owns any of them, and (ErrRefused) while from is there and any of them
// has a file revert pending, and moves none then.
func (s *Store) MigrateSessions(ctx context.Context, from, to string, opts MigrateOptions) (*MigrateResult, error) {
	if s.ephemeral {
		return nil, refusedf("an ephemeral store has no saved sessions")
	}
	from = filepath.Clean(from)
	if !filepath.IsAbs(from) {
		abs, err := filepath.Abs(from)
		if err != nil {
			return nil, err
		}
		from = abs
	}
	// The path as stored first: a directory that was renamed may have a
	// link to its new place where it was.
	src := s.workspaceOfPath(from)
	if src == nil {
		if c, err := Canonical(from); err == nil {
			from = c
			src = s.workspaceOfPath(from)
		}
	}
	dst, err := s.Workspace(to)
	if err != nil {
		return nil, err
	}
	if dst.Path() == from {
		return nil, fmt.Errorf("%w: %s is already the directory of those sessions", ErrBadInput, from)
	}
	res := &MigrateResult{From: from, To: dst.Path(), Sessions: []string{}}
	var ids []string
	if src != nil {
		ids = s.sessionsIn(src.dir)
	}
	if opts.Session != "" {
		if src == nil {
			return nil, notFoundf("no sessions were saved in %s", from)
		}
		id, err := src.Resolve(ctx, opts.Session)
		if err != nil {
			return nil, err
		}
		ids = []string{id}
	}
	if len(ids) == 0 && (opts.Session != "" || opts.NoUsage) {
		return nil, notFoundf("no sessions were saved in %s", from)
	}
	if len(ids) == 0 {
		// Only the ledger could move: nothing at all is a mistake (a
		// directory never used, or moved already).
		u, err := s.usageMove(ctx, from, dst.path)
		if err != nil {
			return nil, err
		}
		if u.Empty {
			return nil, notFoundf("no sessions were saved in %s, and the usage ledger holds nothing for it", from)
		}
	}
	if err := src.refusePendingReverts(ids); err != nil {
		return nil, err
	}
	if opts.DryRun {
		res.Sessions = append(res.Sessions, ids...)
		if opts.Session == "" && !opts.NoUsage {
			u, err := s.usageMove(ctx, from, dst.path)
			if err != nil {
				return nil, err
			}
			res.Usage = u
		}
		return res, nil
	}
	// Every lock first: a move refused as busy moves nothing.
	locks := map[string]vfs.Lock{}
	defer func() {
		for id, l := range locks {
			src.release(id, l)
		}
	}()
	for _, id := range ids {
		l, err := src.acquire(id)
		if err != nil {
			return nil, err
		}
		locks[id] = l
	}
	// Again under the locks: a revert may have come since the first look.
	if err := src.refusePendingReverts(ids); err != nil {
		return nil, err
	}
	if len(ids) > 0 {
		if err := dst.ensure(); err != nil {
			return nil, err
		}
		if err := migrate.EnsureDir(s.fsys); err != nil {
			return nil, fmt.Errorf("engine: move: %w", err)
		}
	}
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		p := migrate.Plan{V: 1, Kind: "move", Session: id, From: src.key, To: dst.key, FromPath: from, ToPath: dst.path, At: mkTime(s.Now())}
		l := locks[id]
		delete(locks, id) // moveSession lets it go
		if err := s.moveSession(ctx, p, l); err != nil {
			return res, fmt.Errorf("engine: move session %s: %w", id, err)
		}
		res.Sessions = append(res.Sessions, id)
	}
	if opts.Session == "" && !opts.NoUsage {
		u, err := s.reattributeUsage(ctx, from, dst.path)
		if err != nil {
			return res, err
		}
		res.Usage = u
	}
	return res, nil
}

// refusePendingReverts refuses a move of sessions ids of w when one has a
// file revert pending. Its changes journal keeps what unrevert puts back; a
// move starts that journal again, so the reverted files could never be put
// back. While the directory is there the move is refused (the user
// unreverts, or sends new work to keep the files as they are); once it is
// gone, so are the files to put back.
func (w *Workspace) refusePendingReverts(ids []string) error {
	if len(ids) == 0 || !w.dirThere() {
		return nil
	}
	for _, id := range ids {
		if w.fileRevertPending(id) {
			return refusedf("session %s has a file revert pending: unrevert it (cairn unrevert %s), or send new work to keep the files as they are, then move it", id, id)
		}
	}
	return nil
}

// dirThere reports whether w's directory can be opened, or fails for a
// reason other than not being there.
func (w *Workspace) dirThere() bool {
	_, done, err := w.files()
	if err == nil {
		done()
	}
	return err == nil || !vfs.IsNotExist(err)
}

// workspaceOfPath finds the workspace folder whose workspace.json names
// exactly p (the directory may be gone), or nil.
func (s *Store) workspaceOfPath(p string) *Workspace {
	try := func(key string) *Workspace {
		in, err := wskey.ReadInfo(s.fsys, workspaceDir(key))
		if err != nil || in.Path != p {
			return nil
		}
		return &Workspace{s: s, path: p, key: key, dir: workspaceDir(key), made: true}
	}
	if w := try(wskey.Key(p)); w != nil {
		return w
	}
	ents, _ := s.fsys.ReadDir(workspacesDir)
	for _, e := range ents {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			if w := try(e.Name()); w != nil {
				return w
			}
		}
	}
	return nil
}

// moveSession moves one session whose source lock srcLock this process
// holds, and lets it go.
func (s *Store) moveSession(ctx context.Context, p migrate.Plan, srcLock vfs.Lock) error {
	src, dst := s.moveEnds(p)
	id := p.Session
	if err := migrate.WritePlan(s.fsys, p); err != nil {
		src.release(id, srcLock)
		return err
	}
	dstLock, err := dst.acquire(id)
	if err != nil {
		src.release(id, srcLock)
		migrate.RollBack(s.fsys, p)
		return err
	}
	if err := migrate.Copy(ctx, s.fsys, src.objects(), dst.objects(), p, retargetSession); err != nil {
		// Nothing is committed: the copies go, the session stays.
		dst.release(id, dstLock)
		src.release(id, srcLock)
		migrate.RollBack(s.fsys, p)
		return err
	}
	return s.finishMove(ctx, p, dst, srcLock, dstLock)
}

// moveEnds is the source and destination workspaces of p.
func (s *Store) moveEnds(p migrate.Plan) (src, dst *Workspace) {
	src = &Workspace{s: s, path: p.FromPath, key: p.From, dir: workspaceDir(p.From), made: true}
	dst = &Workspace{s: s, path: p.ToPath, key: p.To, dir: workspaceDir(p.To), made: true}
	return src, dst
}

// retargetSession rewrites an items journal's session line to name
// directory to (migrate.Retarget).
func retargetSession(line []byte, to string) ([]byte, bool, error) {
	var l itemLine
	if json.Unmarshal(line, &l) != nil || l.Kind != kindSession {
		return nil, false, nil
	}
	l.Path = to
	b, err := json.Marshal(&l)
	return b, err == nil, err
}

// finishMove removes the source's files once the items journal is at the
// destination, lets both locks go, and then the plan.
func (s *Store) finishMove(ctx context.Context, p migrate.Plan, dst *Workspace, srcLock, dstLock vfs.Lock) error {
	id := p.Session
	err := migrate.RemoveSource(ctx, s.fsys, p)
	srcLock.Release()
	if err != nil {
		dst.release(id, dstLock)
		return err // the plan stays: the next open finishes
	}
	dst.rebuildRecord(ctx, id) // derived: a listing rebuilds it if this fails
	dst.release(id, dstLock)
	return migrate.DropPlan(s.fsys, id)
}

// recoverMoves finishes or rolls back the moves a crash interrupted (their
// plans are left in moves/), skipping one whose session lock is held (a
// move running in another process). What fails is kept, by plan, for
// Unrecovered and fsck to name, and tried again at the next open.
func (s *Store) recoverMoves() {
	plans, err := migrate.Plans(s.fsys)
	if err != nil {
		s.unrecovered(layout.Moves, err)
		return
	}
	for _, p := range plans {
		id := p.Session
		src, dst := s.moveEnds(p)
		srcLock, err := src.acquire(id)
		if err != nil {
			if !errors.Is(err, ErrBusy) { // busy: a move running now
				s.unrecovered(migrate.PlanName(id), err)
			}
			continue
		}
		if _, err := s.fsys.Stat(itemsName(dst.dir, id)); err == nil {
			dstLock, err := dst.acquire(id)
			if err != nil {
				src.release(id, srcLock)
				if !errors.Is(err, ErrBusy) {
					s.unrecovered(migrate.PlanName(id), err)
				}
				continue
			}
			if err := s.finishMove(context.Background(), p, dst, srcLock, dstLock); err != nil {
				s.unrecovered(migrate.PlanName(id), fmt.Errorf("finish moving session %s to %s: %w", id, p.ToPath, err))
			}
			continue
		}
		if err := migrate.RollBack(s.fsys, p); err != nil {
			s.unrecovered(migrate.PlanName(id), fmt.Errorf("undo moving session %s to %s: %w", id, p.ToPath, err))
		}
		src.release(id, srcLock)
	}
}

// unrecovered keeps why Open could not finish or undo what a crash left
// at name (a file of the state folder).
func (s *Store) unrecovered(name string, err error) {
	s.recoveryErrs = append(s.recoveryErrs, RecoveryError{Path: name, Err: err})
}

// RecoveryError is what Open could not finish or undo of an operation a
// crash interrupted (a session move): the file of the state folder that
// holds it, and why. It is tried again at the next open.
type RecoveryError struct {
	Path string
	Err  error
}

func (e RecoveryError) Error() string {
	return fmt.Sprintf("engine: %s: what a crash interrupted could not be finished (tried again at the next open): %v", e.Path, e.Err)
}

func (e RecoveryError) Unwrap() error { return e.Err }

// Unrecovered is what Open could not finish or undo of the operations a
// crash interrupted; each is tried again at the next open, and fsck names
// it.
func (s *Store) Unrecovered() []RecoveryError { return slices.Clone(s.recoveryErrs) }

// reattributeUsage moves the usage ledger's lines of exact directory from
// to directory to by appending one line (Part of the format):
//
//	{"v":1,"kind":"move","at":T,"from":DIR,"to":DIR}
//
// which a reader applies to every line before it: each (from, model)
// bucket is added to (to, model). The ledger stays append-only — one write
// to a file opened for appending, so no other process's line is lost or
// rewritten, and a crash leaves the line whole or absent — and the lines
// written after it (new work at the old directory) stay where they are.
// Nothing is appended when the ledger holds nothing for from.
func (s *Store) reattributeUsage(ctx context.Context, from, to string) (*UsageMove, error) {
	u, err := s.usageMove(ctx, from, to)
	if err != nil || u.Empty {
		return u, err
	}
	w, err := s.appendLedger(usageMoveLine{V: 1, Kind: "move", At: mkTime(s.Now()), From: from, To: to})
	if err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil { // synced
		return nil, fmt.Errorf("engine: usage ledger: %w", err)
	}
	return u, nil
}

// usageMove says what reattributing from's usage to to would move.
func (s *Store) usageMove(ctx context.Context, from, to string) (*UsageMove, error) {
	sums, err := s.Usage(ctx)
	if err != nil {
		return nil, err
	}
	u := &UsageMove{}
	at := map[string]bool{}
	for _, x := range sums {
		if x.Path == to {
			at[x.Model] = true
		}
	}
	for _, x := range sums {
		if x.Path != from {
			continue
		}
		u.Lines += x.Turns
		if at[x.Model] {
			u.Merged++
		} else {
			u.Moved++
		}
	}
	u.Empty = u.Moved+u.Merged == 0
	return u, nil
}

// usageMoveLine is the ledger's reattribution line (see reattributeUsage).
type usageMoveLine struct {
	V    int    `json:"v"`
	Kind string `json:"kind"`
	At   Time   `json:"at"`
	From string `json:"from"`
	To   string `json:"to"`
}
