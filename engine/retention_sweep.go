package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"cairn/engine/internal/prune"
	"cairn/internal/vfs"
)

// The sweep runs retention in the background of an open REPL, once per
// storage.retention.sweep_interval_hours: trim with the trim policy, forget
// with the forget policy, then prune. With both policies empty it only
// prunes. One sweep runs at a time across processes; package prune draws
// the lock and the file that says when the last one finished.

// SweepReport says what a sweep did.
type SweepReport struct {
	Trim, Forget *RetentionPlan // nil when its policy is empty
	Prune        PruneReport
}

// SweepDue reports whether a sweep is due under cfg: its interval is not 0
// and the last sweep ended at least one interval ago (or never).
func (s *Store) SweepDue(cfg Config) bool {
	if cfg.Storage.SweepIntervalHours <= 0 {
		return false
	}
	last, ok := prune.LastSweep(s.fsys)
	return !ok || s.now().Sub(last) >= time.Duration(cfg.Storage.SweepIntervalHours)*time.Hour
}

// Sweep runs trim, forget and prune under cfg; see above. loc is where
// period boundaries fall (nil: time.Local).
func (s *Store) Sweep(ctx context.Context, cfg Config, loc *time.Location) (*SweepReport, error) {
	l, err := s.fsys.Lock(prune.SweepLock)
	if errors.Is(err, vfs.ErrLocked) {
		return nil, ErrSweeping
	}
	if err != nil {
		return nil, fmt.Errorf("engine: sweep: %w", err)
	}
	defer l.Release()
	rep := &SweepReport{}
	opt := RetentionOptions{GroupBy: cfg.Storage.GroupBy, Location: loc}
	if !cfg.Storage.Trim.Empty() {
		opt.Action, opt.Policy = ActionTrim, cfg.Storage.Trim
		if rep.Trim, err = s.RunRetention(ctx, opt); err != nil {
			return rep, err
		}
	}
	if !cfg.Storage.Forget.Empty() {
		opt.Action, opt.Policy = ActionForget, cfg.Storage.Forget
		if rep.Forget, err = s.RunRetention(ctx, opt); err != nil {
			return rep, err
		}
	}
	if rep.Prune, err = s.Prune(ctx, PruneOptions{}); err != nil {
		return rep, err
	}
	if err := prune.MarkSwept(s.fsys, s.now()); err != nil {
		return rep, err
	}
	return rep, nil
}
