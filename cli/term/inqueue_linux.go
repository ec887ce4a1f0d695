package term

import "golang.org/x/sys/unix"

// queued is the number of bytes waiting in the terminal's input queue.
func queued(fd int) int {
	n, err := unix.IoctlGetInt(fd, unix.TIOCINQ)
	if err != nil {
		return 0
	}
	return n
}
