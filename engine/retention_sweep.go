package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"cairn/internal/vfs"
)

// The sweep runs retention in the background of an open REPL, once per
// storage.retention.sweep_interval_hours: trim with the trim policy, forget
// with the forget policy, then prune. With both policies empty it only
// prunes. One sweep runs at a time across processes (sweep.lock, held
// with flock for the sweep); sweep.json at the top of the state folder,
//
//	{"v":1,"at":T}
//
// (part of the format) says when the last one finished, so that starting
// a REPL does not sweep each time. It is written when a sweep ends, so a
// sweep cut short is run again by the next REPL; every step of it is
// idempotent.

const (
	sweepName = "sweep.json"
	sweepLock = "sweep.lock"
)

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
	last, ok := s.lastSweep()
	return !ok || s.now().Sub(last) >= time.Duration(cfg.Storage.SweepIntervalHours)*time.Hour
}

func (s *Store) lastSweep() (time.Time, bool) {
	b, err := vfs.ReadFile(s.fsys, sweepName)
	if err != nil {
		return time.Time{}, false
	}
	var v struct {
		V  int  `json:"v"`
		At Time `json:"at"`
	}
	if json.Unmarshal(b, &v) != nil || v.V != 1 {
		return time.Time{}, false
	}
	return v.At.Time, true
}

// Sweep runs trim, forget and prune under cfg; see above. loc is where
// period boundaries fall (nil: time.Local).
func (s *Store) Sweep(ctx context.Context, cfg Config, loc *time.Location) (*SweepReport, error) {
	l, err := s.fsys.Lock(sweepLock)
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
	b, _ := json.Marshal(struct {
		V  int  `json:"v"`
		At Time `json:"at"`
	}{1, mkTime(s.now())})
	if err := vfs.WriteFileAtomic(s.fsys, sweepName, append(b, '\n')); err != nil {
		return rep, fmt.Errorf("engine: sweep: %w", err)
	}
	return rep, nil
}
