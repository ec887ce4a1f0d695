package vfs

import "time"

// A power loss can lose what was written and not synced; a process's death
// cannot (the kernel keeps it). What a recovery may find lost therefore
// depends on whether the machine started again since the writes: Booted
// says when it last did.

// Booter is an FS that knows when its machine last started.
type Booter interface {
	// Booted is the latest time the machine can have started, and whether
	// it is known.
	Booted() (time.Time, bool)
}

// Booted is when the machine of fsys last started (Booter), and whether it
// is known: a file modified after it was modified since the last power
// loss, and lost nothing unsynced to one.
func Booted(fsys FS) (time.Time, bool) {
	if b, ok := fsys.(Booter); ok {
		return b.Booted()
	}
	return time.Time{}, false
}

// Booted is the time of m's last Crash, the zero time before any: every
// write before it that was not synced is gone.
func (m *Mem) Booted() (time.Time, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.booted, true
}

// Kill simulates the death of every process using m: their handles fail
// with ErrCrashed and their locks are released, but unlike Crash nothing
// written is lost, synced or not.
func (m *Mem) Kill() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.gen++
	m.locks = map[*memNode]*memLock{}
	m.shared = nil
}
