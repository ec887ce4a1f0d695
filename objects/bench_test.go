package objects

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"

	"cairn/internal/vfs"
)

// BenchmarkPut stores new contents (each iteration changes the first bytes)
// on the real disk, every Put durable.
func BenchmarkPut(b *testing.B) {
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"text-16KiB", textish(1, 16<<10)},
		{"random-16KiB", random(1, 16<<10)},
		{"text-1MiB", textish(2, 1<<20)},
		{"random-1MiB", random(2, 1<<20)},
		{"text-8MiB", textish(3, 8<<20)},
		{"random-8MiB", random(3, 8<<20)},
	} {
		b.Run(c.name, func(b *testing.B) {
			d, err := vfs.OpenDisk(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			defer d.Close()
			s := New(d, "objects")
			data := bytes.Clone(c.data)
			b.SetBytes(int64(len(data)))
			i := uint64(0)
			for b.Loop() {
				i++
				binary.LittleEndian.PutUint64(data, i)
				if _, err := s.Put(ctx, bytes.NewReader(data)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("existing", func(b *testing.B) {
		s := New(vfs.NewMem(), "objects")
		data := textish(4, 16<<10)
		if _, err := s.PutBytes(ctx, data); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			info, err := s.PutBytes(ctx, data)
			if err != nil || !info.Existed {
				b.Fatal(fmt.Sprint(info, err))
			}
		}
	})
}
