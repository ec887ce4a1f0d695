package vfs

import (
	"time"

	"golang.org/x/sys/unix"
)

// Booted is when the machine started: now less the uptime in whole
// seconds, so never before the real start.
func (d *Disk) Booted() (time.Time, bool) {
	var si unix.Sysinfo_t
	if err := unix.Sysinfo(&si); err != nil {
		return time.Time{}, false
	}
	return time.Now().Add(-time.Duration(si.Uptime) * time.Second), true
}
