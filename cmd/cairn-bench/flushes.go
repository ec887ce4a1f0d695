package main

import (
	"strconv"
	"strings"
)

// Disk cache flushes: on a disk with a volatile write cache every fsync
// ends with a flush of that cache, which is most of what a small fsync
// costs, so the flushes a side makes per round say what bounds it far more
// steadily than its time does. Linux counts them per block device
// (/proc/diskstats); elsewhere, or for a folder on no block device
// (tmpfs, overlay), the rows carry none.

// flushCounter reads the flushes completed by one block device so far.
type flushCounter func() (float64, bool)

// diskFlushes parses /proc/diskstats for the device major:minor: its
// flush requests completed (the 16th statistic, kernel 5.5 and later).
func diskFlushes(stats string, major, minor uint32) (float64, bool) {
	maj, mi := strconv.FormatUint(uint64(major), 10), strconv.FormatUint(uint64(minor), 10)
	for line := range strings.Lines(stats) {
		f := strings.Fields(line)
		if len(f) < 3+16 || f[0] != maj || f[1] != mi {
			continue
		}
		n, err := strconv.ParseFloat(f[2+16], 64)
		return n, err == nil
	}
	return 0, false
}

// flushDelta runs fn and returns the flushes the device made meanwhile
// (every program's, so a quiet machine gives the side's own); -1 when
// they are not counted.
func flushDelta(count flushCounter, fn func() error) (float64, error) {
	if count == nil {
		return -1, fn()
	}
	before, ok := count()
	err := fn()
	after, ok2 := count()
	if !ok || !ok2 {
		return -1, err
	}
	return after - before, err
}
