package main

import "testing"

// TestDiskFlushes reads a device's flushes completed from /proc/diskstats
// lines, and says so when the device or the field is missing.
func TestDiskFlushes(t *testing.T) {
	stats := `   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
 254       0 vda 1592268 284354 30115674 2568469 21303784 22084076 596563440 14436477 0 5311920 20944736 17301270 366 479746360 3070361 4849459 869428
 254       1 vda1 10 0 80 1 2 0 16 0 0 3 3 0 0 0 0 7 1
   8       0 sda 1 2 3 4 5 6 7 8 9 10 11
`
	for _, c := range []struct {
		major, minor uint32
		want         float64
		ok           bool
	}{
		{254, 0, 4849459, true},
		{254, 1, 7, true},
		{7, 0, 0, true},
		{8, 0, 0, false},   // a kernel before 5.5: no flush field
		{259, 0, 0, false}, // no such device
	} {
		got, ok := diskFlushes(stats, c.major, c.minor)
		if got != c.want || ok != c.ok {
			t.Errorf("%d:%d: %v %v, want %v %v", c.major, c.minor, got, ok, c.want, c.ok)
		}
	}
}
