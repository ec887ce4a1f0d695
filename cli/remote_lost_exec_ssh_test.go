package cli

import (
	"strings"
	"testing"
)

// A waited :exec on a remote workspace whose ssh connection is killed
// while the line runs: the REPL names the lost connection and that the
// call is blocked (it printed nothing: the call's error was lost to a
// shadowed variable), and the next connect tells what became of it.
func TestSSHKilledMidWaitedExec(t *testing.T) {
	e := newSSHEnv(t)
	run := e.client(t, "--ssh-command", e.sshCmd, "--cairn-path", e.cairnPath)
	tgt := e.srv.Target() + ":" + e.ws
	go func() {
		e.waitFile("started")
		e.killSSH()
	}()
	code, out, errs := run(":exec touch started; sleep 30; touch late\n/exit\n", "--ssh", tgt)
	lost := "cairn: the connection to " + e.srv.Target() + " was lost during exec"
	if code != 0 || !strings.Contains(out, lost) || !strings.Contains(out, "the call is blocked") || strings.Contains(out, "[exit ") {
		t.Fatalf("no word of the lost connection: %d\n%s\n%s", code, out, errs)
	}
	id := out[strings.LastIndex(out, "cairn --resume ")+len("cairn --resume ") : len(out)-1]
	code, out, errs = run("/exit\n", "-r", id)
	if code != 0 || !strings.Contains(out, "A call the lost connection cut off (exec") {
		t.Fatalf("the next connect: %d\n%s\n%s", code, out, errs)
	}
	if e.read("late") != "<absent>" {
		t.Fatal("the line ran on after its connection was lost")
	}
}
