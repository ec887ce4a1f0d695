//go:build !(aix || darwin || dragonfly || freebsd || linux || netbsd || openbsd || solaris || zos)

package term

import (
	"os"

	xterm "golang.org/x/term"
)

// makeRaw makes the terminal raw; it returns the mode to restore.
func makeRaw(fd int) (*xterm.State, error) { return xterm.MakeRaw(fd) }

// echoOff leaves the mode as it is here.
func echoOff(fd int) (*xterm.State, error) { return xterm.GetState(fd) }

// suspend does nothing where there are no process groups to stop.
func suspend(<-chan struct{}) {}

// notifyResize does nothing where resizes are not signalled.
func notifyResize(chan os.Signal) {}
