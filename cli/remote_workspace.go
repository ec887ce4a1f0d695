package cli

import (
	"fmt"
	"os"
	"strings"

	"cairn/cli/cmdbase"
	"cairn/cli/display"
	"cairn/engine"
	"cairn/remotews"
)

// sshCommands are the commands that take --ssh in this build: the REPL,
// where, prompt, and the plumbing that reads or changes a session's change
// records or shell history (remote_plumbing.go), and tool (its exec
// too, remote_exec.go).
// The rest refuse it rather than run locally: a command meant for a
// remote workspace never falls back to this machine's files. storage is refused for good: the
// host's state folder is the host's business.
var sshCommands = map[string]bool{"where": true, "run": true, "resume": true,
	"diff": true, "undo": true, "redo": true, "snapshots": true, "revert": true, "unrevert": true, "shells": true, "tool": true, "prompt": true}

// checkSSH refuses --ssh on a command that does not take it, and a
// target that is not [user@]host:/abs/path, before anything runs.
func checkSSH(g *Globals, cmd string) error {
	first, _, _ := strings.Cut(cmd, " ")
	if g.SSH == "" {
		if first != "host" && !sshCommands[first] {
			return cmdbase.RefuseSSH(&g.Globals, first)
		}
		return nil
	}
	switch {
	case first == "storage":
		return usageErrorf("cairn storage works on this machine's state folder only, not with --ssh (run it on the host)")
	case first == "host":
		return usageErrorf("cairn host serves a workspace on this machine; --ssh is for the client")
	case !sshCommands[first]:
		return cmdbase.RefuseSSH(&g.Globals, first)
	}
	if _, err := remotews.ParseTarget(g.SSH); err != nil {
		return usageErrorf("--ssh %v", err)
	}
	return nil
}

// sshWays are the ssh command line and the host's cairn to reach a remote
// workspace with: --ssh-command, else CAIRN_SSH (one run's), else the one
// kept in the session's record; --cairn-path, else the kept one. kept is
// nil for a new session.
func (g *Globals) sshWays(kept *engine.RemoteWorkspace) (sshCommand, cairnPath string) {
	sshCommand, cairnPath = g.SSHCommand, g.CairnPath
	if sshCommand == "" {
		sshCommand = os.Getenv("CAIRN_SSH")
	}
	if kept != nil {
		if sshCommand == "" {
			sshCommand = kept.SSHCommand
		}
		if cairnPath == "" {
			cairnPath = kept.CairnPath
		}
	}
	return sshCommand, cairnPath
}

// dialSSH connects to --ssh's workspace, asking for the recording
// limits of this machine's configuration.
func (g *Globals) dialSSH() (*remotews.Client, error) {
	t, err := remotews.ParseTarget(g.SSH)
	if err != nil {
		return nil, err
	}
	s, err := g.Open()
	if err != nil {
		return nil, err
	}
	cfg, err := s.Config()
	if err != nil {
		return nil, err
	}
	limits := remotews.LimitsOf(cfg)
	sshCommand, cairnPath := g.sshWays(nil)
	return remotews.Dial(g.Ctx, t, remotews.Options{SSHCommand: sshCommand, CairnPath: cairnPath, Limits: &limits, Stderr: g.Stderr})
}

// remoteWhere is `cairn --ssh T where`: the workspace on the host, its
// identity and generation, and the limits the host accepts.
func remoteWhere(g *Globals) error {
	c, err := g.dialSSH()
	if err != nil {
		return err
	}
	defer c.Close()
	w := c.Welcome
	out := struct {
		Target string `json:"target"`
		remotews.Welcome
	}{c.Target.String(), w}
	if g.JSON {
		return g.PrintJSON(out)
	}
	fmt.Fprintf(g.Stdout, "host        %s (cairn %s)\npath        %s\nidentity    %s\ngeneration  %d (since %s, %s)\n",
		display.Line(w.Host), display.Line(w.Version), display.Line(w.Path), w.Identity, w.Generation,
		w.Since.Format("2006-01-02 15:04:05"), w.Why)
	if msg := remotews.LoweredMessage(w.Lowered); msg != "" {
		say(g.Stderr, msg)
	}
	return nil
}
