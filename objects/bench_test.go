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

// BenchmarkManyPuts stores 5,000 new contents of 2 KiB on the real disk,
// as a first record of a tree does: each Put durable on its own, against
// one Batch (its data synced with syncfs where the disk has it, or file by
// file from a pool), committed once.
func BenchmarkManyPuts(b *testing.B) {
	const n = 5000
	contents := make([][]byte, n)
	for i := range contents {
		contents[i] = textish(uint64(100+i), 2<<10)
	}
	for _, c := range []struct {
		name  string
		batch bool
		wrap  func(vfs.FS) vfs.FS
	}{
		{"put-each", false, nil},
		{"batch-syncfs", true, nil},
		{"batch-pool", true, func(f vfs.FS) vfs.FS { return struct{ vfs.FS }{f} }},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				d, err := vfs.OpenDisk(b.TempDir())
				if err != nil {
					b.Fatal(err)
				}
				var fsys vfs.FS = d
				if c.wrap != nil {
					fsys = c.wrap(d)
				}
				s := New(fsys, "objects")
				b.StartTimer()
				if c.batch {
					bt := s.Batch()
					for _, p := range contents {
						if _, err := bt.PutBytes(ctx, p); err != nil {
							b.Fatal(err)
						}
					}
					if err := bt.Commit(); err != nil {
						b.Fatal(err)
					}
				} else {
					for _, p := range contents {
						if _, err := s.PutBytes(ctx, p); err != nil {
							b.Fatal(err)
						}
					}
				}
				b.StopTimer()
				d.Close()
				b.StartTimer()
			}
		})
	}
}
