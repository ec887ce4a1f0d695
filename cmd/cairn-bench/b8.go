package main

// B8 file revert: revert 1,000 files of 10 KiB, changed across 50 records
// of a session (Session.Change, 20 files each), to the prompt before them
// — the journal folded, every file checked against its newest record, what
// each holds kept for unrevert (inline in the revert line, one fsync),
// each file replaced atomically (a temp file fsynced, renamed), the
// folders synced, the "reverted" line synced — against the floor:
// atomically replace the same 1,000 files with fsync (a temp file written
// and fsynced, renamed over the name, each folder synced once). Each round
// builds a fresh workspace and session (untimed), then times the revert,
// then the floor on the same files. Goal: at most 1.5x the floor.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"

	"cairn/engine"
)

func init() { register(Case{Name: "B8", Run: runB8}) }

func runB8(env *Env) ([]Row, error) {
	const files, records, size = 1000, 50, 10 << 10
	rounds := 3
	if env.Quick {
		rounds = 1
	}
	ctx := context.Background()
	r := rand.New(rand.NewPCG(8, 8))
	var cm, fm []float64
	peak, err := peakHeap(func() error {
		for round := range rounds {
			ws := filepath.Join(env.Dir, fmt.Sprint("ws", round))
			names := make([]string, files)
			for i := range names {
				names[i] = fmt.Sprintf("d%02d/f%04d.txt", i/50, i)
				if i%50 == 0 {
					if err := os.MkdirAll(filepath.Join(ws, filepath.Dir(names[i])), 0o755); err != nil {
						return err
					}
				}
				if err := os.WriteFile(filepath.Join(ws, names[i]), textBytes(r, size), 0o644); err != nil {
					return err
				}
			}
			sess, done, err := benchSession(env, ws)
			if err != nil {
				return err
			}
			p, err := sess.Append(ctx, engine.Item{Type: engine.User, Text: "change them all"})
			if err != nil {
				done()
				return err
			}
			per := files / records
			for k := range records {
				batch := names[k*per : (k+1)*per]
				_, err := sess.Change(ctx, "exec", batch, func(*engine.Change) error {
					for _, n := range batch {
						if err := os.WriteFile(filepath.Join(ws, n), textBytes(r, size), 0o644); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					done()
					return err
				}
			}
			if err := sess.Commit(ctx); err != nil {
				done()
				return err
			}
			syscall.Sync() // the fixture's writes are not charged to the revert
			c, err := timed(func() error {
				res, err := sess.Revert(ctx, p.ID, engine.RevertFiles)
				if err == nil && res.Files.Replace != files {
					err = fmt.Errorf("the revert replaced %d files, want %d", res.Files.Replace, files)
				}
				return err
			})
			done()
			if err != nil {
				return err
			}
			contents := make([][]byte, files)
			for i := range contents {
				contents[i] = textBytes(r, size)
			}
			syscall.Sync()
			f, err := timed(func() error { return b8Floor(ws, names, contents) })
			if err != nil {
				return err
			}
			cm, fm = append(cm, c), append(fm, f)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return []Row{row("B8", fmt.Sprintf("%d files x 10 KiB across %d records, %d rounds", files, records, rounds),
		b4Median(cm), "replace each atomically, fsync", b4Median(fm), "<=1.5", func(r float64) bool { return r <= 1.5 }, peak)}, nil
}

// b8Floor atomically replaces each of names: a temp file beside it written
// and fsynced, renamed over it; then each folder is synced once.
func b8Floor(ws string, names []string, contents [][]byte) error {
	dirs := map[string]bool{}
	for i, n := range names {
		name := filepath.Join(ws, n)
		tmp := name + ".floor-tmp"
		if err := writeFile(tmp, contents[i], true); err != nil {
			return err
		}
		if err := os.Rename(tmp, name); err != nil {
			return err
		}
		dirs[filepath.Dir(name)] = true
	}
	for d := range dirs {
		f, err := os.Open(d)
		if err != nil {
			return err
		}
		err = f.Sync()
		f.Close()
		if err != nil {
			return err
		}
	}
	return nil
}
