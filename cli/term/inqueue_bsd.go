//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package term

import "golang.org/x/sys/unix"

// fionread is FIONREAD of the BSDs, _IOR('f', 127, int), which the system
// package does not name.
const fionread = 0x4004667f

// queued is the number of bytes waiting in the terminal's input queue.
func queued(fd int) int {
	n, err := unix.IoctlGetInt(fd, fionread)
	if err != nil {
		return 0
	}
	return n
}
