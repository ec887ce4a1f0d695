//go:build aix || linux || solaris || zos

package cli

import "golang.org/x/sys/unix"

// ioctlGetTermios reads a terminal's settings (replPTY.raw).
const ioctlGetTermios = unix.TCGETS
