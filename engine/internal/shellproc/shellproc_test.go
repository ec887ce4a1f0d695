package shellproc

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

func run(t *testing.T, line string) (string, int) {
	t.Helper()
	cmd := Command(context.Background(), "/bin/sh", line)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	var f Forker
	defer f.Close()
	err := f.Start(cmd)
	if err == nil {
		err = cmd.Wait()
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return out.String(), cmd.ProcessState.ExitCode()
}

// TestLineRunsAsShC: a line sees what it would under sh -c LINE: no
// positional parameters, its own exit status, a syntax error's status 2.
func TestLineRunsAsShC(t *testing.T) {
	if out, code := run(t, `echo "$#:$1"; exit 7`); out != "0:\n" || code != 7 {
		t.Errorf("got %q, %d; want \"0:\\n\", 7", out, code)
	}
	if out, code := run(t, `cd /; x=1; pwd; echo $x`); out != "/\n1\n" || code != 0 {
		t.Errorf("got %q, %d", out, code)
	}
	if out, code := run(t, `if then`); code != 2 || !strings.Contains(out, "Syntax error") {
		t.Errorf("syntax error: %q, %d", out, code)
	}
	if _, code := run(t, `sh -c 'kill -9 $$'`); code != 137 {
		t.Errorf("a line killed by SIGKILL: %d, want 137", code)
	}
}

// TestStartOutlivesItsCaller: the line's shell gets its parent-death
// signal only when the process ends, not when the thread of the goroutine
// that asked for it does (a goroutine locked to its thread that returns
// ends the thread).
func TestStartOutlivesItsCaller(t *testing.T) {
	// Several times: a goroutine may run on the main thread, which never
	// ends.
	var f Forker
	defer f.Close()
	for i := 0; i < 10; i++ {
		cmd := Command(context.Background(), "/bin/sh", `sleep 0.2; echo ok`)
		var out bytes.Buffer
		cmd.Stdout = &out
		started := make(chan error)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
			started <- f.Start(cmd)
		}()
		if err := <-started; err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil || out.String() != "ok\n" {
			t.Fatalf("line %d: %v, %q; want it to finish and say ok", i, err, out.String())
		}
	}
}

// TestCloseKillsItsLines: a line a Forker started dies, with its group,
// when the Forker is closed, as when the process ends; none starts after.
func TestCloseKillsItsLines(t *testing.T) {
	var f Forker
	cmd := Command(context.Background(), "/bin/sh", `(sleep 30) & sleep 30`)
	if err := f.Start(cmd); err != nil {
		t.Fatal(err)
	}
	f.Close()
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("the line after Close: %v; want it killed", err)
	}
	if err := f.Start(Command(context.Background(), "/bin/sh", "true")); !errors.Is(err, ErrClosed) {
		t.Fatalf("Start after Close: %v", err)
	}
}

// BenchmarkLine: a line that does nothing, started and waited for, as the
// engine runs it (reaper=true: the group's shell runs it as a job, forked
// from the Forker's thread) and as a bare sh -c would (reaper=false): what
// dying with cairn costs a line.
func BenchmarkLine(b *testing.B) {
	for _, reaper := range []bool{true, false} {
		b.Run(map[bool]string{true: "reaper=true", false: "reaper=false"}[reaper], func(b *testing.B) {
			var f Forker
			defer f.Close()
			for range b.N {
				var err error
				if reaper {
					cmd := Command(context.Background(), "/bin/sh", "true")
					if err = f.Start(cmd); err == nil {
						err = cmd.Wait()
					}
				} else {
					err = exec.Command("/bin/sh", "-c", "true").Run()
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
