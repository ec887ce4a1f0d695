package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// flushesOf returns the flush counter of the block device holding dir, or
// nil when it has none the system counts.
func flushesOf(dir string) flushCounter {
	var st unix.Stat_t
	if unix.Stat(dir, &st) != nil {
		return nil
	}
	major, minor := unix.Major(st.Dev), unix.Minor(st.Dev)
	count := func() (float64, bool) {
		b, err := os.ReadFile("/proc/diskstats")
		if err != nil {
			return 0, false
		}
		return diskFlushes(string(b), major, minor)
	}
	if _, ok := count(); !ok {
		return nil
	}
	return count
}
