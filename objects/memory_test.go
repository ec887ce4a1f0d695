package objects

import (
	"bytes"
	"io"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"cairn/internal/vfs"
)

// patternReader yields n bytes made of blocks: text-ish when compressible,
// else random. It holds one block, so it adds little to the heap.
type patternReader struct {
	n     int64
	block []byte
	off   int
	rng   *rand.ChaCha8
	text  [][]byte
	i     int
	comp  bool
}

func newPatternReader(n int64, compressible bool) *patternReader {
	p := &patternReader{n: n, rng: rand.NewChaCha8([32]byte{7}), comp: compressible}
	for i := range 16 {
		p.text = append(p.text, textish(uint64(i), 64<<10))
	}
	p.block = make([]byte, 64<<10)
	p.off = len(p.block)
	return p
}

func (p *patternReader) Read(b []byte) (int, error) {
	if p.n == 0 {
		return 0, io.EOF
	}
	if p.off == len(p.block) {
		if p.comp {
			copy(p.block, p.text[p.rng.Uint64()%16])
			p.i++
			p.block[p.i%len(p.block)] = byte(p.i) // no two blocks alike
		} else {
			p.rng.Read(p.block)
		}
		p.off = 0
	}
	n := copy(b, p.block[p.off:])
	n = int(min(int64(n), p.n))
	p.off += n
	p.n -= int64(n)
	return n, nil
}

// heapPeak runs fn while sampling the heap in use, and returns the most seen
// above what was in use before.
func heapPeak(fn func()) uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peak uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	})
	fn()
	close(stop)
	wg.Wait()
	return peak - min(peak, base)
}

// TestPutMemoryBounded streams 256 MiB through Put (and a conversion from
// compressed to raw of 64 MiB) and checks the heap never grows by 64 MiB.
func TestPutMemoryBounded(t *testing.T) {
	d, err := vfs.OpenDisk(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	s := New(d, "objects")
	converted := io.MultiReader(bytes.NewReader(textish(1, chunk+1)), newPatternReader(64<<20, false))
	for _, c := range []struct {
		name string
		r    io.Reader
		size int64
		comp bool
	}{
		{"256 MiB compressible", newPatternReader(256<<20, true), 256 << 20, true},
		{"64 MiB random after a compressible chunk", converted, 64<<20 + chunk + 1, false},
	} {
		var info Info
		var err error
		peak := heapPeak(func() { info, err = s.Put(ctx, c.r) })
		if err != nil {
			t.Fatal(err)
		}
		if info.Size != c.size || info.Compressed != c.comp {
			t.Errorf("%s: %+v", c.name, info)
		}
		t.Logf("%s: heap peak %.1f MiB, stored %d", c.name, float64(peak)/(1<<20), info.Stored)
		if peak >= 64<<20 {
			t.Errorf("%s: heap grew by %.1f MiB during Put", c.name, float64(peak)/(1<<20))
		}
		if err := s.Verify(ctx, info.ID); err != nil {
			t.Error(err)
		}
	}
}
