package reliability

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"cairn/engine"
)

// A shell line whose cairn is killed with -9 dies with it: its whole
// process group (subshells, a shell it started, their children) is gone,
// and none of it changes a file after the kill.

const orphanWorkerEnv = "CAIRN_ORPHAN_WORKER"

// orphanWorker runs the line of CAIRN_ORPHAN_LINE through Session.Exec
// and waits to be killed (TestMain starts it).
func orphanWorker() error {
	ctx := context.Background()
	_, ws, err := soakWorkspace()
	if err != nil {
		return err
	}
	s := ws.Create(engine.SessionOptions{})
	if _, err := s.Append(ctx, engine.Item{Type: engine.User, Text: "orphans"}); err != nil {
		return err
	}
	_, err = s.Exec(ctx, os.Getenv("CAIRN_ORPHAN_LINE"), engine.ExecOptions{})
	if err != nil {
		return err
	}
	return errors.New("the line ended before the kill")
}

// groupAlive lists the processes of group pgid that have not ended (a
// zombie has ended: nothing may reap it here).
func groupAlive(pgid int) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...: comm may hold spaces, so split after it.
		rest := string(b[strings.LastIndexByte(string(b), ')')+2:])
		f := strings.Fields(rest)
		if len(f) < 3 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		if g, _ := strconv.Atoi(f[2]); g == pgid {
			out = append(out, e.Name()+" "+string(b[:strings.LastIndexByte(string(b), ')')+1]))
		}
	}
	return out
}

func TestKill9ExecLineDiesWithCairn(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc to find a process group's members in")
	}
	lines := map[string]string{
		"plain":   `echo $$ > pid.txt; sleep 30; echo late > late.txt`,
		"grouped": `(touch sub.m; sleep 30; echo late > late-sub.txt) & sh -c 'touch sh.m; sleep 30; echo late > late-sh.txt' & while [ ! -e sub.m ] || [ ! -e sh.m ]; do sleep 0.01; done; echo $$ > pid.txt; wait; echo late > late.txt`,
	}
	for name, line := range lines {
		t.Run(name, func(t *testing.T) {
			home := filepath.Join(t.TempDir(), "home")
			project := t.TempDir()
			w := startWorker(t, orphanWorkerEnv+"=1", "CAIRN_SOAK_HOME="+home, "CAIRN_SOAK_PROJECT="+project, "CAIRN_ORPHAN_LINE="+line)
			pidFile := filepath.Join(project, "pid.txt")
			var pgid int
			for deadline := time.Now().Add(30 * time.Second); pgid == 0; {
				b, err := os.ReadFile(pidFile)
				if err == nil && strings.HasSuffix(string(b), "\n") {
					pgid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
				}
				if time.Now().After(deadline) {
					t.Fatalf("the line never started; worker stderr: %s", w.stderr.String())
				}
				time.Sleep(10 * time.Millisecond)
			}
			w.kill(t, 0, nil)
			var alive []string
			for deadline := time.Now().Add(20 * time.Second); ; {
				if alive = groupAlive(pgid); len(alive) == 0 {
					break
				}
				if time.Now().After(deadline) {
					for _, p := range alive {
						pid, _ := strconv.Atoi(strings.Fields(p)[0])
						syscall.Kill(pid, syscall.SIGKILL)
					}
					t.Fatalf("the line's process group outlived cairn's kill -9: %v", alive)
				}
				time.Sleep(20 * time.Millisecond)
			}
			for _, f := range []string{"late.txt", "late-sub.txt", "late-sh.txt"} {
				if _, err := os.Stat(filepath.Join(project, f)); err == nil {
					t.Errorf("%s was written after the kill", f)
				}
			}
		})
	}
}
