// Command cairn-hook is what an agent's hook entries run at every tool
// call: `cairn-hook claude-code` and `cairn-hook codex` do what `cairn hook
// claude-code` and `cairn hook codex` do, with the same flags, answers and
// exit codes (one implementation, in package cli/hookcmd). It is cairn without
// the cloud remotes' SDKs (engine/remotes), whose package init alone
// would cost each tool call tens of milliseconds, so it starts in about
// half the time.
//
// A state folder whose default remote is a cloud one needs each session's
// lease checked there on open, which this program cannot do: it then runs
// the cairn command beside it (the same folder: go install ./cmd/...
// puts both in GOBIN) with the same arguments and the event still unread
// on stdin. With no cairn there, the hook records nothing and says so in
// its answer, as any hook that could not record does.
package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"cairn/cli/hookcmd"
	"cairn/engine"
)

func main() {
	os.Exit(hookcmd.Process(handOver))
}

// handOver runs `cairn hook ARGS…` in this process's place: the cairn
// command beside this program, with this process's arguments, stdin,
// stdout, stderr and environment. It returns only when it could not.
func handOver(engine.Remote) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	if e, err := filepath.EvalSymlinks(exe); err == nil {
		exe = e
	}
	full := filepath.Join(filepath.Dir(exe), "cairn")
	if fi, err := os.Stat(full); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
		return fmt.Errorf("no cairn command at %s (go install ./cmd/... puts it beside %s)", full, filepath.Base(exe))
	}
	if filepath.Clean(full) == filepath.Clean(exe) {
		return errors.New("the cairn command beside it is this program")
	}
	// In place: the agent waits for this same process, and the cairn
	// command reads the event from the same stdin.
	argv := append([]string{full, "hook"}, os.Args[1:]...)
	if err := syscall.Exec(full, argv, os.Environ()); err != nil {
		return fmt.Errorf("running %s: %w", full, err)
	}
	return nil
}
