//go:build !linux

package shellproc

import "syscall"

// deathSignal does nothing where the system has no parent-death signal: a
// line there can outlive a cairn killed with -9.
func deathSignal(*syscall.SysProcAttr) {}
