package main

// B1 snapshot one edit: the write tool on one 10 KiB file
// of a session — the pre-image captured inline in the change line, which
// is appended and synced while the new content is staged and fsynced, then
// swapped with the file; the folder is synced in the background (the next
// change line and the end of the turn wait for it) — against anchors
// measured in the same run, interleaved:
//
//   - floor: copy the file and fsync it (the least a durable pre-image
//     costs), then write the new content in place (the edit itself);
//   - git: `git add FILE && git write-tree` in a shadow repository of the
//     workspace, the way peers snapshot, after the same write (skipped,
//     with a note in the size column, when git is missing);
//   - floor, edit durable: the floor with the edit fsynced too, against the
//     write tool followed by Session.Commit (the end of a turn), so the cost
//     of the folder sync a turn pays is in the figures as well.
//
// The workspace is a realistic one: besides the edited files, 10,000 files
// of about 2 KiB in nested folders (2,000 with --quick), committed once into
// the shadow repository before timing. cairn touches only the named file,
// so its cost does not depend on them. git writes without fsync; its dirty
// data is flushed (sync(2)) outside the timings, so the next step measured
// does not pay for it.
//
// The rounds interleave cairn with the anchors, so a cairn edit never
// follows another at once. Edits back to back cost more: each one's change
// line waits for the previous one's folder sync (about 2x the floor on the
// machine of the last note).
//
// Goals: at most 2x the floor (either one); at least 20x faster than the
// shadow repo.

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

func init() { register(Case{Name: "B1", Run: runB1}) }

func runB1(env *Env) ([]Row, error) {
	n, others := 200, 10000
	if env.Quick {
		n, others = 40, 2000
	}
	const warm = 3
	ctx := context.Background()
	ws := filepath.Join(env.Dir, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return nil, err
	}
	sess, done, err := benchSession(env, ws)
	if err != nil {
		return nil, err
	}
	defer done()

	r := rand.New(rand.NewPCG(1, 1))
	content := func() []byte { return textBytes(r, 10<<10) }
	for _, name := range []string{"cairn.txt", "cairn-sync.txt", "floor.txt", "floor-sync.txt", "git.txt"} {
		if err := os.WriteFile(filepath.Join(ws, name), content(), 0o644); err != nil {
			return nil, err
		}
	}
	if err := writeTree(ws, others, r); err != nil {
		return nil, err
	}
	if _, err := sess.ToolWrite(ctx, "warm.txt", content()); err != nil { // materialize the session
		return nil, err
	}

	cairnEdit := func(b []byte) error {
		_, err := sess.ToolWrite(ctx, "cairn.txt", b)
		return err
	}
	cairnSynced := func(b []byte) error {
		if _, err := sess.ToolWrite(ctx, "cairn-sync.txt", b); err != nil {
			return err
		}
		return sess.Commit(ctx)
	}
	floor := func(name string, sync bool) func([]byte) error {
		return func(b []byte) error {
			src := filepath.Join(ws, name)
			if err := copySync(src, filepath.Join(env.Dir, "floor.copy")); err != nil {
				return err
			}
			return writeFile(src, b, sync)
		}
	}
	floorEdit, floorSynced := floor("floor.txt", false), floor("floor-sync.txt", true)
	gitDir := filepath.Join(env.Dir, "shadow.git")
	git := func(args ...string) error {
		c := exec.Command("git", append([]string{"--git-dir", gitDir, "--work-tree", ws}, args...)...)
		c.Dir = ws
		c.Env = append(os.Environ(), "GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@example.invalid",
			"GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@example.invalid")
		if out, err := c.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %v: %s", args[0], err, out)
		}
		return nil
	}
	gitOK := false
	if _, err := exec.LookPath("git"); err == nil {
		if out, err := exec.Command("git", "init", "-q", "--bare", gitDir).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("git init: %v: %s", err, out)
		}
		// The shadow repository holds the whole workspace once, as a peer's
		// has after its first snapshot.
		if err := git("add", "-A"); err != nil {
			return nil, err
		}
		if err := git("commit", "-q", "--no-verify", "-m", "base"); err != nil {
			return nil, err
		}
		gitOK = true
	}
	syscall.Sync() // the fixture's writes are not charged to the first steps
	gitEdit := func(b []byte) error {
		if err := writeFile(filepath.Join(ws, "git.txt"), b, false); err != nil {
			return err
		}
		if err := git("add", "git.txt"); err != nil {
			return err
		}
		return git("write-tree")
	}

	var cm, fm, csm, fsm, gm []float64
	peak, err := peakHeap(func() error {
		for i := range n + warm {
			b := content()
			var ms [4]float64
			for k, fn := range []func([]byte) error{cairnEdit, floorEdit, cairnSynced, floorSynced} {
				t, err := timed(func() error { return fn(b) })
				if err != nil {
					return err
				}
				ms[k] = t
			}
			g := 0.0
			if gitOK && (i < warm || len(gm) < n/4) { // git is slow: a quarter of the rounds
				var err error
				if g, err = timed(func() error { return gitEdit(b) }); err != nil {
					return err
				}
				syscall.Sync() // git does not fsync: flush it here, untimed
			}
			if i >= warm {
				cm, fm, csm, fsm = append(cm, ms[0]), append(fm, ms[1]), append(csm, ms[2]), append(fsm, ms[3])
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
	size := fmt.Sprintf("1 file x 10 KiB in a %d-file tree, %d edits", others, n)
	atMost2 := func(r float64) bool { return r <= 2 }
	rows := []Row{row("B1", size, b4Median(cm), "floor", b4Median(fm), "<=2", atMost2, peak)}
	if gitOK {
		rows = append(rows, row("B1", size, b4Median(cm), "git add+write-tree", b4Median(gm), "<=0.05",
			func(r float64) bool { return r <= 0.05 }, peak))
	} else {
		rows = append(rows, Row{Case: "B1", Size: "skipped: git not found", Anchor: "git add+write-tree", Goal: "<=0.05"})
	}
	rows = append(rows, row("B1", size+", then Commit", b4Median(csm), "floor, edit durable", b4Median(fsm), "<=2", atMost2, peak))
	return rows, nil
}

// writeTree fills ws with n files of about 2 KiB (text, deterministic)
// in nested folders: 20 folders of 25 subfolders of up to 20 files.
func writeTree(ws string, n int, r *rand.Rand) error {
	const alphabet = "abcdefghijklmnopqrstuvwxyz {}();\n"
	for i := range n {
		dir := filepath.Join(ws, fmt.Sprintf("pkg%02d", i/500), fmt.Sprintf("mod%02d", i/20%25))
		if i%20 == 0 {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
		}
		b := make([]byte, 1536+r.IntN(1024))
		for j := range b {
			b[j] = alphabet[r.IntN(len(alphabet))]
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file%02d.go", i%20)), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// timed is the wall time of fn in milliseconds.
func timed(fn func() error) (float64, error) {
	start := time.Now()
	err := fn()
	return float64(time.Since(start).Nanoseconds()) / 1e6, err
}

// alternate runs cairn and anchor for warm+rounds rounds, taking turns at
// going first so both see the same disk weather, and returns the wall
// times in milliseconds of the rounds after the warm ones.
func alternate(rounds, warm int, cairn, anchor func() error) (cm, fm []float64, err error) {
	for i := range rounds + warm {
		first, second := cairn, anchor
		if i%2 == 1 {
			first, second = anchor, cairn
		}
		a, err := timed(first)
		if err != nil {
			return nil, nil, err
		}
		b, err := timed(second)
		if err != nil {
			return nil, nil, err
		}
		if i%2 == 1 {
			a, b = b, a
		}
		if i >= warm {
			cm, fm = append(cm, a), append(fm, b)
		}
	}
	return cm, fm, nil
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

// writeFile writes b to name in place, and fsyncs it when sync is set.
func writeFile(name string, b []byte, sync bool) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if sync {
		if err := f.Sync(); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}
