package main

// B6 undo and redo: undo then redo one snapshot of 100
// files of 10 KiB. Undo keeps the current content (already stored: only
// hashed), appends its line and replaces the 100 files; redo checks them,
// appends its line and replaces them again. The floor does the same file
// work the plain way: atomically replace the 100 files (temp file, write,
// fsync, rename, one folder fsync) to the old content, then again to the
// new. Goal: at most 1.5x the floor.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"cairn/engine"
)

func init() { register(Case{Name: "B6", Run: runB6}) }

const b6Files = 100

func runB6(env *Env) ([]Row, error) {
	n := 15
	if env.Quick {
		n = 4
	}
	const warm = 1
	ctx := context.Background()
	ws := filepath.Join(env.Dir, "ws")
	floorDir := filepath.Join(env.Dir, "floor")
	for _, d := range []string{filepath.Join(ws, "src"), floorDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	sess, done, err := benchSession(env, ws)
	if err != nil {
		return nil, err
	}
	defer done()

	r := rand.New(rand.NewPCG(6, 6))
	content := func() []byte { return textBytes(r, 10<<10) }
	olds, news := make([][]byte, b6Files), make([][]byte, b6Files)
	paths := make([]string, b6Files)
	for i := range b6Files {
		olds[i], news[i] = content(), content()
		paths[i] = fmt.Sprintf("src/f%03d.txt", i)
		if err := os.WriteFile(filepath.Join(ws, paths[i]), olds[i], 0o644); err != nil {
			return nil, err
		}
	}
	// One snapshot of 100 files, as an apply_patch would leave it.
	_, err = sess.Change(ctx, "apply_patch", paths, func(*engine.Change) error {
		for i, p := range paths {
			if err := os.WriteFile(filepath.Join(ws, p), news[i], 0o644); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}

	cairnRound := func() error {
		if _, err := sess.Undo(ctx); err != nil {
			return err
		}
		_, err := sess.Redo(ctx)
		return err
	}
	floorPass := func(data [][]byte) error {
		for i := range b6Files {
			name := filepath.Join(floorDir, fmt.Sprintf("f%03d.txt", i))
			tmp := name + ".tmp"
			if err := writeFile(tmp, data[i], true); err != nil {
				return err
			}
			if err := os.Rename(tmp, name); err != nil {
				return err
			}
		}
		d, err := os.Open(floorDir)
		if err != nil {
			return err
		}
		defer d.Close()
		return d.Sync()
	}
	if err := floorPass(news); err != nil {
		return nil, err
	}
	floorRound := func() error {
		if err := floorPass(olds); err != nil {
			return err
		}
		return floorPass(news)
	}

	var cm, fm []float64
	peak, err := peakHeap(func() (err error) {
		cm, fm, err = alternate(n, warm, cairnRound, floorRound)
		return err
	})
	if err != nil {
		return nil, err
	}
	for i, p := range paths {
		b, err := os.ReadFile(filepath.Join(ws, p))
		if err != nil || string(b) != string(news[i]) {
			return nil, fmt.Errorf("%s does not hold the redone content", p)
		}
	}
	size := fmt.Sprintf("%d files x 10 KiB, undo+redo, %d rounds", b6Files, n)
	return []Row{row("B6", size, b4Median(cm), "floor (2x100 atomic replaces)", b4Median(fm), "<=1.5",
		func(r float64) bool { return r <= 1.5 }, peak)}, nil
}
