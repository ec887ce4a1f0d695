package engine

import (
	"context"

	"cairn/engine/internal/checkouts"
)

// Other checkouts of a repository: the worktrees of one git repository,
// read from its own files with no git process, and the checkouts cairn saw
// sessions in, kept in repos/ (package checkouts draws both).

// Checkout is one worktree of a repository (checkouts.Checkout).
type Checkout = checkouts.Checkout

// Repository is the checkouts of the repository holding a directory.
type Repository = checkouts.Repository

// checkoutsOf reads the worktrees of the git repository holding dir. It
// returns nil (and no error) when dir is in no repository.
func checkoutsOf(dir string) (*Repository, error) {
	dir, err := Canonical(dir)
	if err != nil {
		return nil, err
	}
	return checkouts.Read(dir)
}

// gitBranch reads the branch of the repository holding dir from .git/HEAD,
// or "" when dir is not in a repository or HEAD is detached.
func gitBranch(dir string) string { return checkouts.Branch(dir) }

// CheckoutSessions is one other checkout's sessions, as the picker and
// `cairn sessions --all-checkouts` list them below the directory's own.
type CheckoutSessions struct {
	Checkout
	Sessions []Summary
}

// OtherCheckouts lists the sessions of the other checkouts of dir's
// repository, the main one first; nil when there is no repository or only
// one checkout.
func (s *Store) OtherCheckouts(ctx context.Context, dir string) (*Repository, []CheckoutSessions, error) {
	repo, err := checkoutsOf(dir)
	if err != nil || repo == nil || len(repo.Checkouts) < 2 {
		return repo, nil, err
	}
	wss, _, err := s.Workspaces()
	if err != nil {
		return repo, nil, err
	}
	here, _ := Canonical(dir)
	var out []CheckoutSessions
	for _, c := range repo.Checkouts {
		if c.Current {
			continue
		}
		sec := CheckoutSessions{Checkout: c}
		for _, w := range wss {
			if w.path == here || repo.Owning(w.path) != c.Path {
				continue
			}
			l, _, err := w.List(ctx)
			if err != nil {
				return repo, nil, err
			}
			sec.Sessions = append(sec.Sessions, l...)
		}
		s.SortSummaries(sec.Sessions)
		out = append(out, sec)
	}
	return repo, out, nil
}

// noteCheckouts remembers the live checkouts of repo (so sessions of one
// later removed with its metadata are still found). It writes only when
// one is new.
func (s *Store) noteCheckouts(repo *Repository) error {
	if repo == nil || s.ephemeral {
		return nil
	}
	return checkouts.Note(s.fsys, repo)
}

// Returned is a removed checkout whose sessions moved back.
type Returned = checkouts.Returned

// ReturnFromRemovedCheckouts moves the sessions of dir's repository's
// removed worktrees to a remaining checkout, as migrate-sessions does; one
// open elsewhere is left for next time.
func (s *Store) ReturnFromRemovedCheckouts(ctx context.Context, dir string) ([]Returned, error) {
	repo, err := checkoutsOf(dir)
	if err != nil || repo == nil || s.ephemeral {
		return nil, err
	}
	s.noteCheckouts(repo) // best effort
	target, gone := repo.Target(), repo.Removed(s.fsys)
	if target == "" || len(gone) == 0 {
		return nil, nil
	}
	wss, _, err := s.Workspaces()
	if err != nil {
		return nil, err
	}
	var out []Returned
	for _, w := range wss {
		from := checkouts.In(w.path, gone)
		if from == "" || len(s.sessionsIn(w.dir)) == 0 {
			continue
		}
		r := Returned{From: from, To: target}
		res, err := s.MigrateSessions(ctx, from, target, MigrateOptions{})
		if res != nil {
			r.Sessions = res.Sessions
		}
		if err != nil {
			r.Err = err.Error()
		}
		out = append(out, r)
	}
	return out, nil
}
