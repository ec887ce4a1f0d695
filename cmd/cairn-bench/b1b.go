package main

// B1b back-to-back edits: one turn of an agent that writes 20 files of
// 10 KiB in a row with the write tool, then ends the turn (Session.Commit),
// against the floor measured in the same run, rounds interleaved:
//
//   - floor: for each file, copy it and fsync the copy (the least a durable
//     pre-image costs) and write the new content in place; then one sync
//     of the workspace folder.
//   - durable floor (a second row, for information): the floor, with each
//     new content written to a temp file, fsynced and renamed over the
//     file, as an atomic replace that leaves the old file or the new after
//     a crash must be. It is the least an edit costs that keeps cairn's
//     promises: two durable writes an edit where the floor makes one.
//
// Each round writes new content to the same 20 files (they exist, so every
// edit has a pre-image). The goal is at most 1.2x the floor: edits in a row
// should not each wait for the one before to be durable. Where the system
// counts them, the rows also carry the disk cache flushes of a round
// (flushes.go): most of a small fsync's cost, and steadier than its time.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
)

func init() { register(Case{Name: "B1b", Run: runB1b}) }

const b1bFiles = 20

func runB1b(env *Env) ([]Row, error) {
	rounds := 30
	if env.Quick {
		rounds = 8
	}
	const warm = 2
	ctx := context.Background()
	ws := filepath.Join(env.Dir, "ws")
	for _, d := range []string{"cairn", "floor", "durable"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			return nil, err
		}
	}
	sess, done, err := benchSession(env, ws)
	if err != nil {
		return nil, err
	}
	defer done()

	r := rand.New(rand.NewPCG(11, 11))
	content := func() [][]byte {
		bs := make([][]byte, b1bFiles)
		for i := range bs {
			bs[i] = textBytes(r, 10<<10)
		}
		return bs
	}
	name := func(side string, i int) string { return filepath.Join(ws, side, fmt.Sprintf("f%02d.go", i)) }
	for i, b := range content() {
		for _, side := range []string{"cairn", "floor", "durable"} {
			if err := os.WriteFile(name(side, i), b, 0o644); err != nil {
				return nil, err
			}
		}
	}
	if _, err := sess.ToolWrite(ctx, "warm.txt", []byte("warm")); err != nil { // materialize the session
		return nil, err
	}
	if err := sess.Commit(ctx); err != nil {
		return nil, err
	}
	syscall.Sync()

	cairnTurn := func(bs [][]byte) error {
		for i, b := range bs {
			if _, err := sess.ToolWrite(ctx, name("cairn", i), b); err != nil {
				return err
			}
		}
		return sess.Commit(ctx)
	}
	floorTurn := func(bs [][]byte) error {
		for i, b := range bs {
			src := name("floor", i)
			if err := copySync(src, filepath.Join(env.Dir, fmt.Sprintf("pre%02d.copy", i))); err != nil {
				return err
			}
			if err := writeFile(src, b, false); err != nil {
				return err
			}
		}
		return syncDir(filepath.Join(ws, "floor"))
	}
	durableTurn := func(bs [][]byte) error {
		for i, b := range bs {
			src := name("durable", i)
			if err := copySync(src, filepath.Join(env.Dir, fmt.Sprintf("dpre%02d.copy", i))); err != nil {
				return err
			}
			tmp := src + ".tmp"
			if err := writeFile(tmp, b, true); err != nil {
				return err
			}
			if err := os.Rename(tmp, src); err != nil {
				return err
			}
		}
		return syncDir(filepath.Join(ws, "durable"))
	}

	flushes := flushesOf(ws)
	sides := []func([][]byte) error{cairnTurn, floorTurn, durableTurn}
	ms := make([][]float64, len(sides))
	fl := make([][]float64, len(sides))
	peak, err := peakHeap(func() error {
		for i := range rounds + warm {
			bs := content()
			// Rotate which goes first, so all see the same weather.
			for k := range sides {
				j := (i + k) % len(sides)
				var n float64
				t, err := timed(func() error {
					var err error
					n, err = flushDelta(flushes, func() error { return sides[j](bs) })
					return err
				})
				if err != nil {
					return err
				}
				if i >= warm {
					ms[j], fl[j] = append(ms[j], t), append(fl[j], n)
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	size := fmt.Sprintf("%d writes of 10 KiB, then the turn's end; %d rounds", b1bFiles, rounds)
	goal := row("B1b", size, b4Median(ms[0]), "floor: copy+fsync each, write each, one folder sync", b4Median(ms[1]),
		"<=1.2", func(r float64) bool { return r <= 1.2 }, peak)
	bound := row("B1b", size+", against each new content durable too", b4Median(ms[0]),
		"durable floor: copy+fsync each, write+fsync+rename each, one folder sync", b4Median(ms[2]),
		"info", func(float64) bool { return true }, peak)
	if flushes != nil {
		c, f, d := b4Median(fl[0]), b4Median(fl[1]), b4Median(fl[2])
		goal.CairnFlushes, goal.AnchorFlushes = &c, &f
		bound.CairnFlushes, bound.AnchorFlushes = &c, &d
	}
	return []Row{goal, bound}, nil
}

// syncDir fsyncs the folder dir.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
