//go:build !unix

package remote

import (
	"context"
	"fmt"
)

// fileLock cannot be taken where there is no flock: a file:// remote's
// conditional writes are refused there.
type fileLock string

func (l fileLock) lock(ctx context.Context) (func(), error) {
	return nil, fmt.Errorf("remote: %w: conditional writes to a file remote on this system", ErrUnsupported)
}
