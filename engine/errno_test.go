package engine

import "syscall"

var errENOSPC error = syscall.ENOSPC
