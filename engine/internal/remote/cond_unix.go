//go:build unix

package remote

import (
	"context"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// fileLock is the lock file of a file:// remote: the file driver's own
// create-if-absent holds within one process only, so every conditional
// write takes an flock on it, which holds across processes (and across
// machines on a filesystem that shares locks).
type fileLock string

func (l fileLock) lock(ctx context.Context) (func(), error) {
	f, err := os.OpenFile(string(l), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("remote: lock %s: %w", l, err)
	}
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return func() { unix.Flock(int(f.Fd()), unix.LOCK_UN); f.Close() }, nil
		}
		if err != unix.EWOULDBLOCK && err != unix.EINTR {
			f.Close()
			return nil, fmt.Errorf("remote: lock %s: %w", l, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(2 * time.Millisecond):
		}
	}
}
