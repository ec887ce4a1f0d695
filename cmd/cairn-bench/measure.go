package main

import (
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"time"

	"cairn/engine"
)

// median runs fn n times and returns the median wall time in milliseconds.
func median(n int, fn func() error) (float64, error) {
	ds := make([]float64, 0, n)
	for range n {
		start := time.Now()
		if err := fn(); err != nil {
			return 0, err
		}
		ds = append(ds, float64(time.Since(start).Nanoseconds())/1e6)
	}
	slices.Sort(ds)
	return ds[len(ds)/2], nil
}

// peakHeap runs fn while sampling the Go heap in use, and returns the highest
// figure seen in MiB. It is the memory cairn itself holds, not the page cache.
// It samples runtime/metrics, which does not stop the world as
// runtime.ReadMemStats does, so the sampling does not slow parallel work.
func peakHeap(fn func() error) (float64, error) {
	runtime.GC()
	debug.FreeOSMemory()
	samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}}
	var peak uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(samples)
			if v := samples[0].Value.Uint64() + samples[1].Value.Uint64(); v > peak {
				peak = v
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	err := fn()
	close(stop)
	<-done
	return float64(peak) / (1 << 20), err
}

// row builds a report row from two medians.
func row(c, size string, cairnMS float64, anchor string, anchorMS float64, goal string, met func(ratio float64) bool, peakMB float64) Row {
	ratio := 0.0
	if anchorMS > 0 {
		ratio = cairnMS / anchorMS
	}
	return Row{Case: c, Size: size, CairnMS: cairnMS, Anchor: anchor, AnchorMS: anchorMS,
		Ratio: ratio, Goal: goal, Met: met(ratio), PeakMB: peakMB}
}

// benchSession opens a state folder at env.Dir/home and starts a session in
// the workspace folder ws; done closes both.
func benchSession(env *Env, ws string) (sess *engine.Session, done func(), err error) {
	st, err := engine.Open(filepath.Join(env.Dir, "home"))
	if err != nil {
		return nil, nil, err
	}
	w, err := st.Workspace(ws)
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	sess = w.Create(engine.SessionOptions{})
	return sess, func() { sess.Close(); st.Close() }, nil
}

// textBytes is n bytes of text-like content from r: compressible, as
// source files are.
func textBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = "abcdefghij klmnop\n"[r.IntN(18)]
	}
	return b
}
