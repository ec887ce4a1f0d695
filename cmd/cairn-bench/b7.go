package main

// B7 object store put: store a set of mixed files — a fifth
// of them duplicates of others, the rest half text-ish and half random, sizes
// from 4 KiB to 16 MiB — into a fresh object store, every Put durable, against
// the floor of hashing, copying and syncing the same files with the usual
// tools: `sha256sum`, `cp`, `sync`, timed together. The goal is at least 0.85×
// the floor's throughput (ratio <= 1/0.85) with the Go heap under 64 MiB;
// Met requires both. The cairn side runs b7Workers Puts at once (B7_WORKERS
// in the environment overrides it, for comparing).

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"cairn/internal/vfs"
	"cairn/objects"
)

func init() { register(Case{Name: "B7", Run: runB7}) }

// b7Workers is how many Puts run at once, as the engine stores the files of
// a whole-directory record: concurrent Puts share the disk's journal
// commits, where one at a time each waits for its own two.
var b7Workers = 4

func init() {
	if n, err := strconv.Atoi(os.Getenv("B7_WORKERS")); err == nil && n > 0 {
		b7Workers = n
	}
}

// b7Words make text that compresses about like source code and prose.
var b7Words = strings.Fields(`the a of to in is for on with as and or not be by this that from at
func return if else for range err nil error string int64 byte struct type interface package import
const var map make append len cap defer go select case switch default break continue
session record item head change object journal workspace snapshot undo redo revert fork
trail owner policy tier config history usage payload output tool call result assistant user
{ } ( ) [ ] := = == != <= >= + - * / && || ! // /* */ " ' , ; . : 0 1 2 16 64 1024`)

// b7File is one generated file.
type b7File struct {
	name string
	dup  bool
}

func runB7(env *Env) ([]Row, error) {
	total, maxSize, runs := int64(1<<30), 16<<20, 3
	if env.Quick {
		total, maxSize, runs = 64<<20, 4<<20, 1
	}
	src := filepath.Join(env.Dir, "src")
	files, unique, err := b7Fixture(src, total, maxSize)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f.name
	}
	if err := exec.Command("sync").Run(); err != nil {
		return nil, fmt.Errorf("sync: %w", err)
	}
	disk, err := vfs.OpenDisk(env.Dir)
	if err != nil {
		return nil, err
	}
	defer disk.Close()

	var cairnMS, anchorMS []float64
	peak := 0.0
	for run := range runs {
		store := fmt.Sprintf("store-%d", run)
		var ms float64
		p, err := peakHeap(func() error {
			var err error
			ms, err = median(1, func() error { return b7Put(disk, store, names) })
			return err
		})
		if err != nil {
			return nil, err
		}
		peak = math.Max(peak, p)
		cairnMS = append(cairnMS, ms)
		n := 0
		if err := objects.New(disk, store).Walk(context.Background(), func(objects.Info) error { n++; return nil }); err != nil {
			return nil, err
		}
		if n != unique {
			return nil, fmt.Errorf("store holds %d objects, want %d", n, unique)
		}

		dst := filepath.Join(env.Dir, fmt.Sprintf("copy-%d", run))
		if err := os.Mkdir(dst, 0o700); err != nil {
			return nil, err
		}
		ms, err = median(1, func() error { return b7Anchor(src, dst, names) })
		if err != nil {
			return nil, err
		}
		anchorMS = append(anchorMS, ms)

		// Clean up untimed, so the next run starts from the same state.
		os.RemoveAll(filepath.Join(env.Dir, store))
		os.RemoveAll(dst)
		exec.Command("sync").Run()
	}
	c, a := medianOf(cairnMS), medianOf(anchorMS)
	const goal = 1 / 0.85 // at least 0.85x the floor's throughput (issue 19)
	r := row("B7", fmt.Sprintf("%d MiB, %d files", total>>20, len(files)), c, "sha256sum+cp+sync", a,
		"<=1.18, heap<64MB", func(ratio float64) bool { return ratio <= goal && peak < 64 }, peak)
	return []Row{r}, nil
}

// b7Put puts every file into a fresh store, b7Workers at a time.
func b7Put(disk *vfs.Disk, store string, names []string) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := objects.New(disk, store)
	next := make(chan string)
	errs := make(chan error, b7Workers)
	var wg sync.WaitGroup
	for range b7Workers {
		wg.Go(func() {
			for n := range next {
				f, err := disk.OpenFile("src/"+n, os.O_RDONLY, 0)
				if err == nil {
					_, err = s.Put(ctx, f)
					f.Close()
				}
				if err != nil {
					errs <- err
					cancel()
					return
				}
			}
		})
	}
feed:
	for _, n := range names {
		select {
		case next <- n:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	close(errs)
	return <-errs
}

// b7Anchor is the floor: hash every file, copy them, sync.
func b7Anchor(src, dst string, names []string) error {
	sum := exec.Command("sha256sum", names...)
	sum.Dir, sum.Stdout = src, io.Discard
	if out, err := b7Run(sum); err != nil {
		return fmt.Errorf("sha256sum: %v: %s", err, out)
	}
	cp := exec.Command("cp", append(names, dst)...)
	cp.Dir = src
	if out, err := b7Run(cp); err != nil {
		return fmt.Errorf("cp: %v: %s", err, out)
	}
	if out, err := b7Run(exec.Command("sync")); err != nil {
		return fmt.Errorf("sync: %v: %s", err, out)
	}
	return nil
}

func b7Run(c *exec.Cmd) (string, error) {
	var stderr strings.Builder
	c.Stderr = &stderr
	err := c.Run()
	return stderr.String(), err
}

// b7Fixture writes files of log-uniform sizes until total bytes, and returns
// them and the number of distinct contents.
func b7Fixture(dir string, total int64, maxSize int) ([]b7File, int, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, 0, err
	}
	r := rand.New(rand.NewPCG(7, 7))
	chacha := rand.NewChaCha8([32]byte{7})
	var files []b7File
	var written int64
	unique := 0
	for written < total {
		name := fmt.Sprintf("f%05d", len(files))
		var data []byte
		dup := len(files) > 0 && r.IntN(5) == 0
		if dup {
			orig := files[r.IntN(len(files))].name
			b, err := os.ReadFile(filepath.Join(dir, orig))
			if err != nil {
				return nil, 0, err
			}
			data = b
		} else {
			size := int(math.Exp(math.Log(4<<10) + r.Float64()*(math.Log(float64(maxSize))-math.Log(4<<10))))
			size = int(min(int64(size), total-written))
			if r.IntN(2) == 0 {
				data = b7Text(r, size)
			} else {
				data = make([]byte, size)
				chacha.Read(data)
			}
			unique++
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			return nil, 0, err
		}
		files = append(files, b7File{name: name, dup: dup})
		written += int64(len(data))
	}
	return files, unique, nil
}

// b7Text makes n bytes of text-ish lines: words, indentation, numbers.
func b7Text(r *rand.Rand, n int) []byte {
	b := make([]byte, 0, n+64)
	for len(b) < n {
		b = append(b, strings.Repeat("\t", r.IntN(4))...)
		for w := 3 + r.IntN(9); w > 0; w-- {
			b = append(b, b7Words[r.IntN(len(b7Words))]...)
			if r.IntN(8) == 0 {
				b = fmt.Appendf(b, "%d", r.IntN(100000))
			}
			b = append(b, ' ')
		}
		b = append(b, '\n')
	}
	return b[:n]
}

// medianOf is the median of xs (xs is reordered).
func medianOf(xs []float64) float64 {
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && xs[j] < xs[j-1]; j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
	return xs[len(xs)/2]
}
