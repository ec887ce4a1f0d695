package changes

import (
	"path"
	"sync"

	"cairn/engine/internal/fstate"
)

// applyWorkers is how many files a large plan puts back at once:
// concurrent replaces share the disk's journal commits, where one at a
// time each waits for its own fsync (a file revert of a thousand files).
// A plan below applyMinParallel files, or one where a file lies inside
// another file's folder (its order matters), runs one file at a time.
const (
	applyWorkers     = 4
	applyMinParallel = 16
)

// putAll runs put for every file of p (by index), each with a DirSet of
// the folders to sync, and returns them merged.
func putAll(p Plan, put func(i int, dirs fstate.DirSet)) fstate.DirSet {
	dirs := fstate.DirSet{}
	if len(p.Files) < applyMinParallel || nested(p) {
		for i := range p.Files {
			put(i, dirs)
		}
		return dirs
	}
	next := make(chan int)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range applyWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine := fstate.DirSet{}
			for i := range next {
				put(i, mine)
			}
			mu.Lock()
			for d := range mine {
				dirs[d] = true
			}
			mu.Unlock()
		}()
	}
	for i := range p.Files {
		next <- i
	}
	close(next)
	wg.Wait()
	return dirs
}

// nested reports whether a file of p lies below another file's name.
func nested(p Plan) bool {
	names := make(map[string]bool, len(p.Files))
	for _, f := range p.Files {
		names[f.Path] = true
	}
	for _, f := range p.Files {
		for d := path.Dir(f.Path); d != "." && d != "/"; d = path.Dir(d) {
			if names[d] {
				return true
			}
		}
	}
	return false
}
