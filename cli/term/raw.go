//go:build aix || darwin || dragonfly || freebsd || linux || netbsd || openbsd || solaris || zos

package term

import (
	"golang.org/x/sys/unix"
	xterm "golang.org/x/term"
)

// makeRaw makes the terminal's input raw, as xterm.MakeRaw does, but keeps
// its output processing: the programs run without reading input
// themselves, so the terminal library takes the terminal for a cooked one
// and writes a bare line feed to start a new line. It returns the mode to
// restore.
func makeRaw(fd int) (*xterm.State, error) {
	before, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return nil, err
	}
	st, err := xterm.MakeRaw(fd)
	if err != nil {
		return nil, err
	}
	t, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err == nil {
		t.Oflag = before.Oflag
		err = unix.IoctlSetTermios(fd, ioctlSetTermios, t)
	}
	if err != nil {
		xterm.Restore(fd, st)
		return nil, err
	}
	return st, nil
}

// echoOff turns the terminal's echo off and leaves the rest of its mode;
// it returns the mode it made.
func echoOff(fd int) (*xterm.State, error) {
	t, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return nil, err
	}
	t.Lflag &^= unix.ECHO | unix.ECHONL
	if err := unix.IoctlSetTermios(fd, ioctlSetTermios, t); err != nil {
		return nil, err
	}
	return xterm.GetState(fd)
}
