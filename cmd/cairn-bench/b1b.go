package main

// B1b back-to-back edits: one turn of an agent that writes 20 files of
// 10 KiB in a row with the write tool, then ends the turn (Session.Commit),
// against the floor measured in the same run, rounds interleaved:
//
//   - floor: for each file, copy it and fsync the copy (the least a durable
//     pre-image costs) and write the new content in place; then one sync
//     of the workspace folder.
//
// Each round writes new content to the same 20 files (they exist, so every
// edit has a pre-image). The goal is at most 1.2x the floor: edits in a row
// should not each wait for the one before to be durable.

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
	for _, d := range []string{"cairn", "floor"} {
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
		for _, side := range []string{"cairn", "floor"} {
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

	var cm, fm []float64
	peak, err := peakHeap(func() error {
		for i := range rounds + warm {
			bs := content()
			// Alternate which goes first, so both see the same weather.
			first, second := cairnTurn, floorTurn
			if i%2 == 1 {
				first, second = floorTurn, cairnTurn
			}
			t1, err := timed(func() error { return first(bs) })
			if err != nil {
				return err
			}
			t2, err := timed(func() error { return second(bs) })
			if err != nil {
				return err
			}
			if i%2 == 1 {
				t1, t2 = t2, t1
			}
			if i >= warm {
				cm, fm = append(cm, t1), append(fm, t2)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	size := fmt.Sprintf("%d writes of 10 KiB, then the turn's end; %d rounds", b1bFiles, rounds)
	return []Row{row("B1b", size, b4Median(cm), "floor: copy+fsync each, write each, one folder sync", b4Median(fm),
		"<=1.2", func(r float64) bool { return r <= 1.2 }, peak)}, nil
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
