package engine

import (
	"math/rand/v2"

	"cairn/internal/vfs"
)

// crashBySeed cuts the power of mem after sync point n: cleanly for seed
// 0, and for any other seed with a share of the unsynced changes, chosen
// by n and seed, surviving (the crash-at-every-sync tests' rounds).
func crashBySeed(mem *vfs.Mem, n, seed int) {
	if seed == 0 {
		mem.Crash()
		return
	}
	mem.CrashPartial(rand.New(rand.NewPCG(uint64(n), uint64(seed))))
}
