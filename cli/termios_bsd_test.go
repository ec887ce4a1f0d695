//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package cli

import "golang.org/x/sys/unix"

// ioctlGetTermios reads a terminal's settings (replPTY.raw).
const ioctlGetTermios = unix.TIOCGETA
