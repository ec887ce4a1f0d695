package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"cairn/engine/internal/convlog"
	"cairn/engine/internal/migrate"
	"cairn/engine/wskey"
	"cairn/internal/vfs"
	"cairn/objects"
)

// Moving sessions to another directory (cairn migrate-sessions FROM TO):
// every saved session of one exact stored directory moves to another
// directory's workspace folder, ids and conversations kept. Package
// migrate carries out one session's move, a step at a time, and says the
// order and the formats; here the store finds the sessions, takes both
// ownership locks and holds them throughout, rebuilds the record at the
// destination, and finishes or rolls back at Open what a crash
// interrupted.

// MigrateOptions choose what a move takes (migrate.Options).
type MigrateOptions = migrate.Options

// MigrateResult says what a move did.
type MigrateResult = migrate.Result

// UsageMove is a reattribution of the usage ledger.
type UsageMove = migrate.UsageMove

// MigrateSessions moves the sessions of stored directory from to directory
// to, all or none: another owner (BusyError) or a pending file revert
// refuses it.
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
	r := migrate.Request{From: from, To: dst.path, ToKey: dst.key, Retarget: convlog.Retarget, Options: opts}
	if src != nil {
		r.FromKey, r.IDs = src.key, s.sessionsIn(src.dir)
	}
	return migrate.Sessions(ctx, s.fsys, moveHost{moveOwner{s}, src, dst, from}, r)
}

// moveHost gives migrate.Sessions the source's sessions and the usage
// ledger; src is nil when no workspace folder names the source.
type moveHost struct {
	moveOwner
	src, dst *Workspace
	from     string
}

func (h moveHost) Resolve(ctx context.Context, ref string) (string, error) {
	return h.src.Resolve(ctx, ref)
}
func (h moveHost) SourceThere() bool            { return h.src.dirThere() }
func (h moveHost) RevertPending(id string) bool { return h.src.fileRevertPending(id) }
func (h moveHost) EnsureDst() error             { return h.dst.ensure() }
func (h moveHost) Now() Time                    { return mkTime(h.s.Now()) }
func (h moveHost) Usage(ctx context.Context, write bool) (*UsageMove, error) {
	if write {
		return h.s.reattributeUsage(ctx, h.from, h.dst.path)
	}
	return h.s.usageMove(ctx, h.from, h.dst.path)
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
	key, ok := wskey.Named(s.fsys, workspacesDir, p)
	if !ok {
		return nil
	}
	return &Workspace{s: s, path: p, key: key, dir: workspaceDir(key), made: true}
}

// recoverMoves finishes or rolls back the moves a crash interrupted
// (migrate.Recover). What fails is kept, by plan, for Unrecovered and
// fsck to name, and tried again at the next open.
func (s *Store) recoverMoves() { migrate.Recover(s.fsys, moveOwner{s}, s.unrecovered) }

// moveOwner gives package migrate the sessions' locks, object stores and
// record rebuild.
type moveOwner struct{ s *Store }

func (o moveOwner) ws(p migrate.Plan, dst bool) *Workspace {
	if dst {
		return &Workspace{s: o.s, path: p.ToPath, key: p.To, dir: workspaceDir(p.To), made: true}
	}
	return &Workspace{s: o.s, path: p.FromPath, key: p.From, dir: workspaceDir(p.From), made: true}
}

func (o moveOwner) Acquire(p migrate.Plan, dst bool) (vfs.Lock, error) {
	return o.ws(p, dst).acquire(p.Session)
}
func (o moveOwner) Release(p migrate.Plan, dst bool, l vfs.Lock) { o.ws(p, dst).release(p.Session, l) }
func (o moveOwner) Objects(p migrate.Plan, dst bool) *objects.Store {
	return o.ws(p, dst).objects()
}
func (o moveOwner) Rebuild(ctx context.Context, p migrate.Plan) {
	o.ws(p, true).rebuildRecord(ctx, p.Session)
}

// unrecovered keeps why Open could not finish or undo what a crash left
// at name (a file of the state folder).
func (s *Store) unrecovered(name string, err error) {
	s.recoveryErrs = append(s.recoveryErrs, RecoveryError{Path: name, Err: err})
}

// RecoveryError is what Open could not finish of a move a crash cut short.
type RecoveryError = migrate.RecoveryError

// Unrecovered is what Open could not finish or undo of the operations a
// crash interrupted; each is tried again at the next open, and fsck names
// it.
func (s *Store) Unrecovered() []RecoveryError { return slices.Clone(s.recoveryErrs) }

// reattributeUsage moves the usage ledger's lines of exact directory from
// to directory to by appending one line (migrate.UsageLine), which a
// reader applies to every line before it. Nothing is appended when the
// ledger holds nothing for from.
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
	bs := make([]migrate.Bucket, len(sums))
	for i, x := range sums {
		bs[i] = migrate.Bucket{Path: x.Path, Model: x.Model, Turns: x.Turns}
	}
	return migrate.UsageOf(bs, from, to), nil
}

// usageMoveLine is the ledger's reattribution line (see reattributeUsage).
type usageMoveLine = migrate.UsageLine
