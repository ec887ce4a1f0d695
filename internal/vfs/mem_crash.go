package vfs

import (
	"bytes"
	"maps"
	"math/rand/v2"
	"slices"
)

// Crash simulates power loss: every folder's entries go back to what they
// were at its last SyncDir, every file's data to what it was at its last
// Sync, and what is no longer reachable from the root is gone. Every handle
// and lock from before fails with ErrCrashed afterwards (closing one is
// allowed); all locks are released, and FailAfterSyncs is off again.
func (m *Mem) Crash() { m.crash(nil) }

// CrashPartial simulates power loss where each unsynced change survives or
// not, drawn from r: each change of a folder's entries (a creation, a
// removal, a rename within the folder) independently, in order, and each
// file's unsynced data. Data that only grew since its last Sync survives as
// a random prefix of what was appended; other unsynced data survives whole
// or not at all. Nothing that was never written appears.
func (m *Mem) CrashPartial(r *rand.Rand) { m.crash(r) }

func (m *Mem) crash(r *rand.Rand) {
	m.mu.Lock()
	defer m.mu.Unlock()
	seen := map[*memNode]bool{}
	var visit func(n *memNode)
	visit = func(n *memNode) {
		if seen[n] {
			return
		}
		seen[n] = true
		switch {
		case n.isDir():
			n.entries = maps.Clone(n.dEntries)
			if r != nil {
				for _, c := range n.pending {
					if r.IntN(2) == 0 {
						c.apply(n.entries)
					}
				}
			}
			n.syncEntries()
			for _, name := range slices.Sorted(maps.Keys(n.entries)) {
				visit(n.entries[name])
			}
		case !n.isLink():
			n.data = survivingData(n.durable, n.data, r)
			n.durable = bytes.Clone(n.data)
		}
	}
	visit(m.root)
	m.booted = m.tick()
	m.gen++
	m.locks = map[*memNode]*memLock{}
	m.shared = nil
	m.failing = false
	m.failAfter = -1
}

// survivingData is what a crash leaves of a file with durable data and
// current data: durable with r nil, else see CrashPartial. The result never
// shares memory with either.
func survivingData(durable, data []byte, r *rand.Rand) []byte {
	if r == nil || bytes.Equal(durable, data) {
		return bytes.Clone(durable)
	}
	if len(data) > len(durable) && bytes.HasPrefix(data, durable) {
		return bytes.Clone(data[:len(durable)+r.IntN(len(data)-len(durable)+1)])
	}
	if r.IntN(2) == 0 {
		return bytes.Clone(data)
	}
	return bytes.Clone(durable)
}

// Syncs returns the number of successful File.Sync, SyncDir and SyncFS calls so far.
func (m *Mem) Syncs() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.syncs
}

// FailAfterSyncs lets n more File.Sync, SyncDir and SyncFS calls succeed; after
// them every operation of the Mem and of its handles fails with ErrCrashed
// until Crash or CrashPartial. It stops a program at a sync point, so a test
// can crash there: for n = 0, 1, 2, ... it sees every point in turn.
// A negative n turns it off.
func (m *Mem) FailAfterSyncs(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.failAfter = max(n, -1)
	m.failing = n == 0
}

// synced counts a successful sync. Callers hold m.mu.
func (m *Mem) synced() {
	m.syncs++
	if m.failAfter > 0 {
		m.failAfter--
		m.failing = m.failAfter == 0
	}
}
