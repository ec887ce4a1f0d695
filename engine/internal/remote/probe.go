package remote

import (
	"context"
	"errors"
	"fmt"
)

// ProbeConditions checks that the remote honours both conditional writes
// leases rely on: a second create-if-absent of a key fails, and so does a
// replace against a version that is not the key's. A server that
// ignores either would let two machines own one session: refused.
func ProbeConditions(ctx context.Context, b Bucket, machine string) error {
	key := leasesPrefix + ".probe/" + machine + "-" + newNonce()
	defer b.Delete(ctx, key)
	if err := putBytes(ctx, b, key, []byte("1"), Cond{IfAbsent: true}); err != nil {
		return fmt.Errorf("remote: a create-if-absent was refused: %w", err)
	}
	err := putBytes(ctx, b, key, []byte("2"), Cond{IfAbsent: true})
	if err == nil {
		return fmt.Errorf("remote: %w: the server ignores create-if-absent (If-None-Match), so it cannot keep one owner per session", ErrUnsupported)
	}
	if !errors.Is(err, ErrExists) && !errors.Is(err, ErrChanged) {
		return err
	}
	a, err := b.Attrs(ctx, key)
	if err != nil {
		return err
	}
	stale := a.Version + "x"
	if a.Version == "" {
		return fmt.Errorf("remote: %w: the server gives no version (ETag) to replace against", ErrUnsupported)
	}
	err = putBytes(ctx, b, key, []byte("3"), Cond{IfVersion: `"` + stale + `"`})
	if err == nil {
		return fmt.Errorf("remote: %w: the server ignores replace-if-unchanged (If-Match), so it cannot keep one owner per session", ErrUnsupported)
	}
	if !errors.Is(err, ErrChanged) {
		return err
	}
	if err := putBytes(ctx, b, key, []byte("4"), Cond{IfVersion: a.Version}); err != nil {
		return fmt.Errorf("remote: a replace-if-unchanged with the right version was refused: %w", err)
	}
	return nil
}
