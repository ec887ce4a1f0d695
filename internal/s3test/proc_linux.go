package s3test

import "syscall"

// procAttr makes the server die with the test binary that started it.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
