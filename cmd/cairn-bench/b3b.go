package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/creack/pty"
)

// B3b times the picker's first screen: the whole process `cairn --resume`
// on a terminal of 100 by 24, from fork until the first page of rows and
// its footer are drawn, at 1,000 and 100,000 sessions (1,000 and 10,000
// with --quick), on the fixture of B3. The anchor is the same at 1,000
// sessions; the goal is a ratio of at most 1.5: the first screen should not
// wait for the whole list. Esc then leaves the picker; that is not timed.
func init() { register(Case{Name: "B3b", Run: runB3b}) }

func runB3b(env *Env) ([]Row, error) {
	sizes := []int{1_000, 100_000}
	if env.Quick {
		sizes = []int{1_000, 10_000}
	}
	bin := filepath.Join(env.Dir, "cairn")
	build := exec.Command("go", "build", "-o", bin, "cairn/cmd/cairn")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		return nil, fmt.Errorf("build cairn: %w", err)
	}
	var ms []float64
	for _, n := range sizes {
		m, err := b3bSize(env, bin, n)
		if err != nil {
			return nil, fmt.Errorf("%d sessions: %w", n, err)
		}
		ms = append(ms, m)
	}
	return []Row{row("B3b", fmt.Sprintf("%d sessions", sizes[1]), ms[1],
		fmt.Sprintf("the same at %d sessions", sizes[0]), ms[0], "≤1.5",
		func(r float64) bool { return r <= 1.5 }, 0)}, nil
}

// b3bSize makes a fixture of n sessions and returns the median time to the
// picker's first screen.
func b3bSize(env *Env, bin string, n int) (float64, error) {
	root := filepath.Join(env.Dir, fmt.Sprintf("b3b-%d", n))
	home := filepath.Join(root, "home")
	ws := filepath.Join(root, "ws")
	if err := os.MkdirAll(ws, 0o700); err != nil {
		return 0, err
	}
	folder, err := b3Workspace(home, ws)
	if err != nil {
		return 0, err
	}
	if _, err := b3Generate(filepath.Join(folder, "sessions"), ws, n-1); err != nil {
		return 0, err
	}
	// As in B3: the index trusts the folder only once its time is two
	// seconds old; the first run (untimed) warms the index.
	time.Sleep(2100 * time.Millisecond)
	if _, err := b3bFirstScreen(bin, home, ws); err != nil {
		return 0, err
	}
	var ms []float64
	for range 5 {
		m, err := b3bFirstScreen(bin, home, ws)
		if err != nil {
			return 0, err
		}
		ms = append(ms, m)
	}
	slices.Sort(ms)
	return ms[len(ms)/2], nil
}

// b3bFirstScreen runs the picker once and returns the time until its
// footer is drawn.
func b3bFirstScreen(bin, home, ws string) (float64, error) {
	master, tty, err := pty.Open()
	if err != nil {
		return 0, err
	}
	defer master.Close()
	if err := pty.Setsize(tty, &pty.Winsize{Rows: 24, Cols: 100}); err != nil {
		tty.Close()
		return 0, err
	}
	cmd := exec.Command(bin, "-C", ws, "--resume")
	cmd.Env = append(os.Environ(), "CAIRN_HOME="+home)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	start := time.Now()
	if err := cmd.Start(); err != nil {
		tty.Close()
		return 0, err
	}
	tty.Close()
	drawn := make(chan float64, 1)
	go func() {
		var out []byte
		buf := make([]byte, 64<<10)
		sent := false
		for {
			k, err := master.Read(buf)
			out = append(out, buf[:k]...)
			if !sent && bytes.Contains(out, []byte("Enter open")) {
				drawn <- float64(time.Since(start).Nanoseconds()) / 1e6
				sent = true
				master.Write([]byte("\x1b")) // Esc leaves
			}
			if err != nil {
				if !sent {
					close(drawn)
				}
				return
			}
		}
	}()
	var ms float64
	select {
	case m, ok := <-drawn:
		if !ok {
			cmd.Wait()
			return 0, fmt.Errorf("the picker never drew its first screen")
		}
		ms = m
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		return 0, fmt.Errorf("no first screen within a minute")
	}
	if err := cmd.Wait(); err != nil {
		return 0, fmt.Errorf("cairn --resume: %w", err)
	}
	return ms, nil
}
