package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"syscall"

	"golang.org/x/sys/unix"

	"cairn/cli/display"
	"cairn/engine"
	"cairn/engine/wsident"
	"cairn/remotews/host"
)

// HostCmd is `cairn host /abs/path`: the host's side of a remote
// workspace, which the client's ssh starts. It answers the remote
// workspace protocol (package remotews) on stdin and stdout until stdin
// ends, recording the file side of the client's sessions in this
// machine's state folder. With --new-generation it moves the workspace's
// generation on (sessions bound to the old one are refused from then on)
// and prints the new one instead.
type HostCmd struct {
	NewGeneration bool   `name:"new-generation" help:"Move the workspace's generation on, as if it had been replaced, print it and exit: sessions bound to the old generation are refused from then on."`
	Served        bool   `name:"served" hidden:"" help:"Serve the connection in this process (cairn host starts itself so, and lingers for background jobs in it)."`
	Path          string `arg:"" name:"path" help:"The workspace, an absolute path on this machine."`
}

func (c *HostCmd) Run(g *Globals) error {
	if !filepath.IsAbs(c.Path) {
		return usageErrorf("cairn host takes an absolute path, not %q", c.Path)
	}
	s, err := g.Open()
	if err != nil {
		return err
	}
	if c.NewGeneration {
		return c.newGeneration(g, s)
	}
	if !c.Served {
		return serveInChild(g)
	}
	// The shell lines it runs do not inherit the pipe to the process
	// that started it.
	unix.CloseOnExec(lingerFD)
	// A write to a connection that is gone fails (EPIPE) rather than
	// killing the process before it closes its sessions; SIGHUP and
	// SIGTERM end the connection the same way.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(g.Ctx, syscall.SIGHUP, syscall.SIGTERM)
	defer stop()
	sv := host.NewServer(host.Options{Store: s, Path: filepath.Clean(c.Path)})
	err = sv.Serve(ctx, io.NopCloser(g.Stdin), hostOut{g.Term})
	if sv.Lingering() == 0 {
		return err
	}
	return linger(g, sv)
}

// linger keeps the process for the background jobs still running once
// its connection has ended (host.Server.Linger): it lets go of the
// connection's standard input, output and error first (ssh and sshd wait
// for them to close before the session ends), no longer ends at SIGHUP
// (the connection's end), and ends at SIGTERM or SIGINT as a session's
// close does, the jobs cancelled and recorded.
func linger(g *Globals, sv *host.Server) error {
	if err := detachStdio(); err != nil {
		return err
	}
	// The process ssh started ends now (serveInChild).
	if f := os.NewFile(lingerFD, "linger"); f != nil {
		_, _ = f.Write([]byte{'d'})
		f.Close()
	}
	signal.Ignore(syscall.SIGHUP)
	ctx, stop := signal.NotifyContext(context.WithoutCancel(g.Ctx), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	return sv.Linger(ctx)
}

// detachStdio puts the null device in place of the process's standard
// input, output and error.
func detachStdio() error {
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer null.Close()
	for fd := 0; fd <= 2; fd++ {
		if err := unix.Dup2(int(null.Fd()), fd); err != nil {
			return err
		}
	}
	return nil
}

func (c *HostCmd) newGeneration(g *Globals, s *engine.Store) error {
	canon, err := engine.Canonical(c.Path)
	if err != nil {
		return notFoundf("no folder %s here", c.Path)
	}
	st, err := wsident.StampOf(canon)
	if err != nil {
		return err
	}
	id, _, err := wsident.Bind(s.FS(), canon, st, true, s.Now())
	if err != nil {
		return err
	}
	out := struct {
		Path       string      `json:"path"`
		Identity   string      `json:"identity"`
		Generation int64       `json:"generation"`
		Since      engine.Time `json:"since"`
		Why        string      `json:"why"`
	}{canon, id.ID, id.N, id.Since, id.Why}
	if g.JSON {
		return g.PrintJSON(out)
	}
	fmt.Fprintf(g.Stdout, "path        %s\nidentity    %s\ngeneration  %d (since %s)\n", display.Line(out.Path), out.Identity, out.Generation, out.Since.Format("2006-01-02 15:04:05"))
	return nil
}

// hostOut is stdout for cairn host: the connection's end never closes it
// (the process's exit does).
type hostOut struct{ io.Writer }

func (hostOut) Close() error { return nil }

// lingerFD is the pipe on which the served process tells the one ssh
// started that it lingers (serveInChild).
const lingerFD = 3

// serveInChild runs cairn host again, --served, in a session of its own,
// on this process's standard input, output and error, and waits for it:
// until it ends (then exits as it did), or says that it lingers for
// background jobs, having let go of the connection (then exits 0). sshd
// ends the connection once the process it started has ended and the
// connection's output is closed; a process that lingers must be another.
func serveInChild(g *Globals) error {
	// This very program: the cairn ssh started, whatever PATH says.
	exe, err := os.Executable()
	if err != nil {
		if exe, err = exec.LookPath(os.Args[0]); err != nil {
			return err
		}
	}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	args := append([]string(nil), os.Args[1:]...)
	at := slices.Index(args, "--")
	if at < 0 {
		at = len(args)
	}
	args = slices.Insert(args, at, "--served")
	cmd := exec.Command(exe, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	w.Close()
	if err != nil {
		r.Close()
		return err
	}
	// SIGHUP, SIGTERM and SIGINT reach it as they would have reached this
	// process; SIGPIPE is its business.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGINT, syscall.SIGPIPE)
	go func() {
		for sig := range sigs {
			if sig != syscall.SIGPIPE {
				_ = cmd.Process.Signal(sig)
			}
		}
	}()
	said := make([]byte, 1)
	n, _ := r.Read(said)
	r.Close()
	if n > 0 {
		return nil // it lingers, the connection let go
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code := ee.ExitCode()
		if code < 0 {
			code = ExitFailed // killed by a signal
		}
		os.Exit(code) // it said why on stderr
	}
	return err
}
