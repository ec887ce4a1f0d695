package shellproc

import "syscall"

// deathSignal asks the kernel to send the group's shell SIGTERM when the
// thread that forked it ends.
func deathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGTERM }
