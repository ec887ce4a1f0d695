package engine

import (
	"errors"
	"syscall"
)

var errENOSPC error = syscall.ENOSPC

func errorsAs(err error, target any) bool { return errors.As(err, target) }
