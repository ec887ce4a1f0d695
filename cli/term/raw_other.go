//go:build !(aix || darwin || dragonfly || freebsd || linux || netbsd || openbsd || solaris || zos)

package term

import xterm "golang.org/x/term"

// makeRaw makes the terminal raw; it returns the mode to restore.
func makeRaw(fd int) (*xterm.State, error) { return xterm.MakeRaw(fd) }
