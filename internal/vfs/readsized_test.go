package vfs_test

import (
	"bytes"
	"strings"
	"testing"
	"testing/iotest"

	"cairn/internal/vfs"
)

// TestReadSized reads what is there whatever the size it was told, never
// more than limit and one byte, through short reads too.
func TestReadSized(t *testing.T) {
	data := strings.Repeat("0123456789", 1000)
	for _, c := range []struct {
		size, limit int64
		want        string
	}{
		{10000, 1 << 20, data},     // as stat said
		{100, 1 << 20, data},       // the file grew
		{20000, 1 << 20, data},     // the file shrank
		{0, 1 << 20, data},         // no size known
		{10000, 5000, data[:5001]}, // over the limit: one byte more
		{10000, 10000, data},       // at the limit
		{-1, 1 << 20, data},        // a size that makes no sense
	} {
		got, err := vfs.ReadSized(strings.NewReader(data), c.size, c.limit)
		if err != nil || string(got) != c.want {
			t.Errorf("size %d limit %d: %d bytes, %v; want %d", c.size, c.limit, len(got), err, len(c.want))
		}
		got, err = vfs.ReadSized(iotest.OneByteReader(strings.NewReader(data)), c.size, c.limit)
		if err != nil || string(got) != c.want {
			t.Errorf("one byte a read, size %d limit %d: %d bytes, %v", c.size, c.limit, len(got), err)
		}
	}
	if _, err := vfs.ReadSized(iotest.ErrReader(bytes.ErrTooLarge), 10, 100); err != bytes.ErrTooLarge {
		t.Errorf("a read error: %v", err)
	}
}
