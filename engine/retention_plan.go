package engine

import (
	"context"
	"fmt"

	"cairn/engine/internal/trash"
	"cairn/engine/retention"
)

// Retention: trim moves a session from the full tier to the transcript
// tier (retention_trim.go), forget moves it into the trash
// (retention_trash.go), prune removes what nothing needs any more
// (retention_prune.go). Which sessions a trim or a forget removes is a
// policy's decision (package retention), taken per group of sessions: a
// workspace (group_by "directory") or the whole state folder ("none").
// Pinned sessions, sessions another process (or this one) has open,
// sessions with a file revert pending and sessions whose activity is in the
// future are always kept; an empty policy removes nothing.
//
// A plan is computed by reading only; running it changes exactly the
// sessions the plan removes, each under its lock, so a dry run prints what
// the real run then does. A session that some process opened between the
// plan and its turn is skipped and named.

// Retention actions.
const (
	ActionTrim   = retention.Trim
	ActionForget = retention.Forget
)

// RetentionOptions say what a trim or a forget works on (retention.Options).
type RetentionOptions = retention.Options

// RetentionPlan is what a trim or a forget does (package retention).
type RetentionPlan = retention.Plan

// retentionCandidate is a session as a plan reads it.
type retentionCandidate struct {
	retention.Session
	tier string
	w    *Workspace
}

// PlanRetention works out what a trim or a forget would do, reading only.
func (s *Store) PlanRetention(ctx context.Context, opt RetentionOptions) (*RetentionPlan, error) {
	if opt.Action != ActionTrim && opt.Action != ActionForget {
		return nil, fmt.Errorf("%w: retention action %q", ErrBadInput, opt.Action)
	}
	cands, err := s.retentionCandidates(ctx)
	if err != nil {
		return nil, err
	}
	list := make([]retention.Session, len(cands))
	for i, c := range cands {
		list[i] = c.Session
	}
	plan, missing, pinned := retention.Select(opt, list, s.now())
	switch {
	case missing != "":
		return plan, fmt.Errorf("%w: session %s", ErrNotFound, missing)
	case pinned != "":
		return plan, refusedf("session %s is pinned (cairn storage unpin %s first)", pinned, pinned)
	}
	return plan, nil
}

// retentionCandidates lists every session of every workspace the store
// can list, with its activity and its always-kept flags.
func (s *Store) retentionCandidates(ctx context.Context) ([]retentionCandidate, error) {
	wss, _, err := s.Workspaces()
	if err != nil {
		return nil, err
	}
	future := s.future()
	var out []retentionCandidate
	for _, w := range wss {
		list, _, err := w.List(ctx)
		if err != nil {
			return nil, err
		}
		for _, e := range list {
			act := e.UpdatedAt
			if e.OpenedAt.After(act) {
				act = e.OpenedAt
			}
			c := retentionCandidate{Session: retention.Session{Candidate: retention.Candidate{ID: e.ID, Activity: act},
				Directory: w.path, Key: w.key, Title: e.Title}, tier: e.Tier, w: w}
			c.Trimmed = func() bool { return c.tier == "transcript" && !trash.HasArtifacts(s.fsys, w.dir, c.ID) }
			c.Bytes = func() int64 { return w.artifactBytes(c.ID) }
			if e.Pinned {
				c.Flags |= retention.Pinned
			}
			// The lock itself, not the owners hint: the hint is best
			// effort, and this process's own sessions count too.
			if e.OwnerPID != 0 || w.lockedNow(e.ID) {
				c.Flags |= retention.Open
			}
			if w.fileRevertPending(e.ID) {
				c.Flags |= retention.PendingRevert
			}
			if act.After(future) || e.CreatedAt.After(future) || trash.LastLineAt(w.s.fsys, w.dir, e.ID).After(future) {
				c.Flags |= retention.FutureDated
			}
			out = append(out, c)
		}
	}
	return out, nil
}

// lockedNow reports whether some process (this one included) holds
// session id's lock, changing nothing.
func (w *Workspace) lockedNow(id string) bool { return w.s.ownedNow(w.dir, id) }

// fileRevertPending reports whether session id has a file revert an
// unrevert would undo, or one not settled (PendingRevert, revert_files.go):
// retention keeps it, records included. A journal that cannot be read
// counts as pending: nothing is removed on a guess.
func (w *Workspace) fileRevertPending(id string) bool {
	pending, err := w.pendingRevert(context.Background(), id)
	return pending || err != nil
}

// artifactBytes is what a trim of session id would drop: its change
// records, its retained tool outputs and its shell history.
func (w *Workspace) artifactBytes(id string) int64 { return trash.ArtifactBytes(w.s.fsys, w.dir, id) }
