package term

import (
	"os"

	xterm "golang.org/x/term"
)

// fdOf returns f's descriptor without (*os.File).Fd, which would switch
// the file to blocking mode for good.
func fdOf(f *os.File) (int, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return -1, err
	}
	fd := -1
	if err := rc.Control(func(p uintptr) { fd = int(p) }); err != nil {
		return -1, err
	}
	return fd, nil
}

// terminalFD returns f's descriptor, or ErrNotTerminal.
func terminalFD(f *os.File) (int, error) {
	if f == nil {
		return -1, ErrNotTerminal
	}
	fd, err := fdOf(f)
	if err != nil || !xterm.IsTerminal(fd) {
		return -1, ErrNotTerminal
	}
	return fd, nil
}

// screenSize is the size of out when it is a terminal file, else 0, 0.
func screenSize(out any) (cols, rows int) {
	f, ok := out.(*os.File)
	if !ok {
		return 0, 0
	}
	fd, err := fdOf(f)
	if err != nil {
		return 0, 0
	}
	c, r, err := xterm.GetSize(fd)
	if err != nil {
		return 0, 0
	}
	return c, r
}
