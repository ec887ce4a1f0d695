package cli

import (
	"context"
	"sync"
	"time"
)

// The retention sweep of an open REPL: trim, forget, prune (engine.Sweep),
// in the background, once per storage.retention.sweep_interval_hours (0
// turns it off). The REPL looks whether one is due a minute after it
// starts and every sweepCheck after that; the engine keeps the time of the
// last sweep in the state folder, so REPLs started one after another do
// not each sweep, and one that ends mid-sweep leaves it due. Its outcome
// is not shown: a sweep that fails is run again at the next check.

const (
	sweepFirst = time.Minute
	sweepCheck = 10 * time.Minute
)

// startSweep starts the sweep's goroutine; the function it returns stops
// it and waits for a sweep at work to stop (between two of its steps).
func (r *repl) startSweep(first time.Duration) (stop func()) {
	s := r.store
	if s == nil || s.Ephemeral() {
		return func() {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		wait := first
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
			wait = sweepCheck
			cfg, err := s.Config()
			if err != nil || !s.SweepDue(cfg) {
				continue
			}
			s.Sweep(ctx, cfg, nil)
			if r.sweepHook != nil {
				r.sweepHook()
			}
		}
	}()
	return func() {
		cancel()
		wg.Wait()
	}
}
