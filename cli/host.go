package cli

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

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
	// A write to a connection that is gone fails (EPIPE) rather than
	// killing the process before it closes its sessions; SIGHUP and
	// SIGTERM end the connection the same way.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(g.Ctx, syscall.SIGHUP, syscall.SIGTERM)
	defer stop()
	return host.Serve(ctx, io.NopCloser(g.Stdin), hostOut{g.Term}, host.Options{Store: s, Path: filepath.Clean(c.Path)})
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
