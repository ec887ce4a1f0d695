package main

// B1 snapshot one edit (PERFORMANCE.md): the write tool on one 10 KiB file
// of a session — the pre-image captured and durable, the file replaced
// atomically, the after-image stored, one change line appended and synced —
// against two anchors measured in the same run, interleaved:
//
//   - floor: copy the file and fsync it (the least a durable pre-image
//     costs), then write the new content and fsync it (the edit itself);
//   - git: `git add FILE && git write-tree` in a shadow repository, the way
//     peers snapshot (skipped, with a note in the size column, when git is
//     missing).
//
// Goals: at most 2x the floor; at least 20x faster than the shadow repo.

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"cairn/engine"
)

func init() { register(Case{Name: "B1", Run: runB1}) }

func runB1(env *Env) ([]Row, error) {
	n := 200
	if env.Quick {
		n = 40
	}
	const warm = 3
	ctx := context.Background()
	ws := filepath.Join(env.Dir, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return nil, err
	}
	st, err := engine.Open(filepath.Join(env.Dir, "home"))
	if err != nil {
		return nil, err
	}
	defer st.Close()
	w, err := st.Workspace(ws)
	if err != nil {
		return nil, err
	}
	sess := w.Create(engine.SessionOptions{})
	defer sess.Close()

	r := rand.New(rand.NewPCG(1, 1))
	content := func() []byte {
		b := make([]byte, 10<<10)
		for i := range b {
			b[i] = "abcdefghij klmnop\n"[r.IntN(18)]
		}
		return b
	}
	for _, name := range []string{"cairn.txt", "floor.txt", "git.txt"} {
		if err := os.WriteFile(filepath.Join(ws, name), content(), 0o644); err != nil {
			return nil, err
		}
	}
	if _, err := sess.ToolWrite(ctx, "warm.txt", content()); err != nil { // materialize the session
		return nil, err
	}

	cairnEdit := func(b []byte) error {
		_, err := sess.ToolWrite(ctx, "cairn.txt", b)
		return err
	}
	floorEdit := func(b []byte) error {
		src := filepath.Join(ws, "floor.txt")
		if err := copySync(src, filepath.Join(env.Dir, "floor.copy")); err != nil {
			return err
		}
		return writeSync(src, b)
	}
	gitDir := filepath.Join(env.Dir, "shadow.git")
	gitOK := false
	if _, err := exec.LookPath("git"); err == nil {
		if out, err := exec.Command("git", "init", "-q", "--bare", gitDir).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("git init: %v: %s", err, out)
		}
		gitOK = true
	}
	gitEdit := func(b []byte) error {
		if err := writeSync(filepath.Join(ws, "git.txt"), b); err != nil {
			return err
		}
		for _, args := range [][]string{{"add", "git.txt"}, {"write-tree"}} {
			c := exec.Command("git", append([]string{"--git-dir", gitDir, "--work-tree", ws}, args...)...)
			c.Dir = ws
			if out, err := c.CombinedOutput(); err != nil {
				return fmt.Errorf("git %s: %v: %s", args[0], err, out)
			}
		}
		return nil
	}

	var cm, fm, gm []float64
	peak, err := peakHeap(func() error {
		for i := range n + warm {
			b := content()
			c, err := timed(func() error { return cairnEdit(b) })
			if err != nil {
				return err
			}
			f, err := timed(func() error { return floorEdit(b) })
			if err != nil {
				return err
			}
			g := 0.0
			if gitOK && (i < warm || len(gm) < n/4) { // git is slow: a quarter of the rounds
				if g, err = timed(func() error { return gitEdit(b) }); err != nil {
					return err
				}
			}
			if i >= warm {
				cm, fm = append(cm, c), append(fm, f)
				if g > 0 {
					gm = append(gm, g)
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	l, err := sess.Snapshots(ctx)
	if err != nil {
		return nil, err
	}
	if len(l.Snapshots) == 0 {
		return nil, fmt.Errorf("no snapshots were recorded")
	}
	size := fmt.Sprintf("1 file x 10 KiB, %d edits", n)
	rows := []Row{row("B1", size, b4Median(cm), "floor", b4Median(fm), "<=2", func(r float64) bool { return r <= 2 }, peak)}
	if gitOK {
		rows = append(rows, row("B1", size, b4Median(cm), "git add+write-tree", b4Median(gm), "<=0.05",
			func(r float64) bool { return r <= 0.05 }, peak))
	} else {
		rows = append(rows, Row{Case: "B1", Size: "skipped: git not found", Anchor: "git add+write-tree", Goal: "<=0.05"})
	}
	return rows, nil
}

// timed is the wall time of fn in milliseconds.
func timed(fn func() error) (float64, error) {
	start := time.Now()
	err := fn()
	return float64(time.Since(start).Nanoseconds()) / 1e6, err
}

// copySync copies src to dst and fsyncs dst.
func copySync(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// writeSync writes b to name in place and fsyncs it.
func writeSync(name string, b []byte) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
