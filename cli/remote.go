package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/schollz/progressbar/v3"
	xterm "golang.org/x/term"

	"cairn/engine"
)

// RemoteCmd is `cairn remote add|remove|list`.
type RemoteCmd struct {
	Add    RemoteAddCmd    `cmd:"" help:"Add a remote: NAME URL (s3://bucket[/prefix][?endpoint=URL&region=R], gs://bucket, azblob://container, file:///path). Credentials come from each provider's usual places, never from cairn."`
	Remove RemoteRemoveCmd `cmd:"" help:"Remove a remote here (nothing on it changes)."`
	List   RemoteListCmd   `cmd:"" default:"1" help:"List the remotes, the default first."`
}

type RemoteAddCmd struct {
	Name string `arg:"" help:"The remote's name here."`
	URL  string `arg:"" name:"url" help:"Where it is."`
}

func (c *RemoteAddCmd) Run(g *Globals) error {
	s, err := g.Open()
	if err != nil {
		return err
	}
	if err := s.AddRemote(g.Ctx, c.Name, c.URL); err != nil {
		return err
	}
	if g.JSON {
		return g.PrintJSON(engine.Remote{Name: c.Name, URL: c.URL})
	}
	fmt.Fprintf(g.Stdout, "remote %s: %s\n", c.Name, c.URL)
	return nil
}

type RemoteRemoveCmd struct {
	Name string `arg:"" help:"The remote's name."`
}

func (c *RemoteRemoveCmd) Run(g *Globals) error {
	s, err := g.Open()
	if err != nil {
		return err
	}
	if err := s.RemoveRemote(c.Name); err != nil {
		return err
	}
	if g.JSON {
		return g.PrintJSON(map[string]any{"ok": true, "removed": c.Name})
	}
	fmt.Fprintf(g.Stdout, "removed remote %s\n", c.Name)
	return nil
}

type RemoteListCmd struct{}

func (c *RemoteListCmd) Run(g *Globals) error {
	s, err := g.Open()
	if err != nil {
		return err
	}
	rs, err := s.Remotes()
	if err != nil {
		return err
	}
	if g.JSON {
		if rs == nil {
			rs = []engine.Remote{}
		}
		return g.PrintJSON(rs)
	}
	for i, r := range rs {
		mark := ""
		if i == 0 {
			mark = " (default)"
		}
		fmt.Fprintf(g.Stdout, "%s\t%s%s\n", r.Name, r.URL, mark)
	}
	return nil
}

// SyncCmd is `cairn sync [NAME] [--watch]`.
type SyncCmd struct {
	Name  string `arg:"" optional:"" help:"The remote (default: the first added)."`
	Watch bool   `name:"watch" help:"Push at every turn's end until interrupted (SIGINT or SIGTERM), then push once more and stop."`
}

func (c *SyncCmd) Run(g *Globals) error {
	s, err := g.Open()
	if err != nil {
		return err
	}
	if c.Name == "" {
		if rs, _ := s.Remotes(); len(rs) == 0 {
			return usageErrorf("no remote is set: add one with cairn remote add NAME URL")
		}
	}
	if c.Watch {
		return c.watch(g, s)
	}
	bar := g.transferBar()
	rep, err := s.Sync(g.Ctx, c.Name, engine.SyncOptions{Progress: bar.tell})
	bar.done()
	if rep != nil {
		g.printSync(rep)
	}
	return err
}

// printSync prints a sync's report: JSON, or a few lines.
func (g *Globals) printSync(rep *engine.SyncReport) {
	if g.JSON {
		g.PrintJSON(rep)
		return
	}
	p, q := rep.Pushed, rep.Pulled
	fmt.Fprintf(g.Stdout, "pushed %d sessions (%d segments, %d objects, %d already there, %s); pulled %d sessions (%d segments, %s)\n",
		p.Sessions, p.Segments, p.Objects, p.ObjectsThere, humanBytes(p.Bytes), q.Sessions, q.Segments, humanBytes(q.Bytes))
	for _, sk := range rep.Skipped {
		fmt.Fprintf(g.Stderr, "cairn: left session %s as it was: %s\n", sk.Session, sk.Why)
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(g.Stderr, "cairn: %s\n", n)
	}
}

// transferBar is a byte bar on stderr for a long transfer, when stderr is
// a terminal and the answer is not JSON.
type transferBar struct {
	bar   *progressbar.ProgressBar
	out   *os.File
	start time.Time
}

func (g *Globals) transferBar() *transferBar {
	if g.JSON || !xterm.IsTerminal(int(os.Stderr.Fd())) {
		return &transferBar{}
	}
	return &transferBar{out: os.Stderr, start: time.Now()}
}

func (b *transferBar) tell(phase string, done, total int64) {
	// A bar shows only for a transfer that takes a while.
	if b.out == nil || time.Since(b.start) < 500*time.Millisecond {
		return
	}
	if b.bar == nil {
		b.bar = progressbar.NewOptions64(total, progressbar.OptionSetWriter(b.out), progressbar.OptionSetDescription("sync"),
			progressbar.OptionShowBytes(true), progressbar.OptionClearOnFinish(), progressbar.OptionThrottle(100*time.Millisecond))
	}
	b.bar.Describe(phase)
	b.bar.ChangeMax64(total)
	b.bar.Set64(done)
}

func (b *transferBar) done() {
	if b.bar != nil {
		b.bar.Finish()
	}
}

// watch pushes whenever a turn ends in any session of the state folder
// (a trail line, a record replaced), a short while after, so that a
// turn's lines go together. SIGINT or SIGTERM stop it after a last push:
// in a sandbox, its session is on the remote before the sandbox is gone.
func (c *SyncCmd) watch(g *Globals, s *engine.Store) error {
	ctx, stop := signal.NotifyContext(g.Ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer w.Close()
	home := s.Home()
	watched := map[string]bool{}
	add := func(dir string) {
		if !watched[dir] && w.Add(dir) == nil {
			watched[dir] = true
		}
	}
	scan := func() {
		add(home)
		add(filepath.Join(home, "workspaces"))
		ents, _ := os.ReadDir(filepath.Join(home, "workspaces"))
		for _, e := range ents {
			if e.IsDir() {
				add(filepath.Join(home, "workspaces", e.Name(), "sessions"))
			}
		}
	}
	scan()
	push := func(why string) error {
		// A push runs to its end even when a signal came meanwhile.
		rep, err := s.Sync(context.WithoutCancel(ctx), c.Name, engine.SyncOptions{PushOnly: true})
		if rep != nil && (rep.Pushed.Segments > 0 || len(rep.Skipped) > 0 || g.JSON) {
			g.printSync(rep)
		}
		if err != nil {
			fmt.Fprintf(g.Stderr, "cairn: push after %s failed: %s (tried again at the next turn)\n", why, userError(err))
		}
		return err
	}
	push("start")
	if !g.JSON {
		fmt.Fprintln(g.Stderr, "cairn: watching for turns' ends; Ctrl-C stops after a last push")
	}
	var timer <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			if err := push("the last turn"); err != nil {
				return err
			}
			return nil
		case ev := <-w.Events:
			name := filepath.Base(ev.Name)
			switch {
			case ev.Op&fsnotify.Create != 0 && filepath.Dir(ev.Name) == filepath.Join(home, "workspaces"):
				scan()
			case strings.HasSuffix(name, ".audit.jsonl"), strings.HasSuffix(name, ".json") && strings.Count(name, ".") == 1:
				if timer == nil {
					timer = time.After(300 * time.Millisecond)
				}
			}
		case err := <-w.Errors:
			fmt.Fprintf(g.Stderr, "cairn: watching: %v\n", err)
		case <-timer:
			timer = nil
			push("a turn")
		}
	}
}

// fetchRemote brings session ref from remote name for `cairn -r ID
// --remote NAME`, and returns its id and the directory to resume it in.
func (g *Globals) fetchRemote(name, ref string) (string, string, error) {
	if name == "" {
		return "", "", usageErrorf("--remote needs a remote's name")
	}
	s, err := g.Open()
	if err != nil {
		return "", "", err
	}
	dir, err := g.Dir()
	if err != nil {
		return "", "", err
	}
	w, id, err := s.FetchRemote(g.Ctx, name, ref, dir)
	if err != nil {
		return "", "", err
	}
	// The REPL opens the state folder itself.
	s.Close()
	g.Store = nil
	if w.Path() != dir {
		fmt.Fprintf(g.Stderr, "cairn: session %s resumes in %s\n", id, w.Path())
	}
	return id, w.Path(), nil
}

// remoteSessions is `cairn sessions --remote NAME`.
func (g *Globals) remoteSessions(name string) error {
	s, err := g.Open()
	if err != nil {
		return err
	}
	cards, err := s.RemoteSessions(g.Ctx, name)
	if errors.Is(err, engine.ErrNotFound) && name != "" {
		return err
	}
	if err != nil {
		return err
	}
	if g.JSON {
		if cards == nil {
			cards = []engine.RemoteCard{}
		}
		return g.PrintJSON(cards)
	}
	for _, c := range cards {
		fmt.Fprintf(g.Stdout, "%s  %s  %-40s  %s (%s)\n", c.ID[:8], c.UpdatedAt, c.Title, c.Path, c.Machine)
	}
	return nil
}

// remoteFsck is `cairn storage fsck --remote NAME`.
func (g *Globals) remoteFsck(s *engine.Store, name string) error {
	bar := g.progress("fsck")
	rep, err := s.RemoteFsck(g.Ctx, name, bar.tell)
	bar.done()
	if err != nil {
		return err
	}
	if g.JSON {
		if err := g.PrintJSON(rep); err != nil {
			return err
		}
	} else {
		for _, p := range rep.Problems {
			fmt.Fprintf(g.Stdout, "%s\n", userText(p))
		}
		fmt.Fprintf(g.Stdout, "checked remote %s: %d objects, %d journals (%d segments): %d problems\n",
			rep.Remote, rep.Objects, rep.Journals, rep.Segments, len(rep.Problems))
	}
	if len(rep.Problems) > 0 {
		return &exitError{Code: ExitFailed, Word: "fsck", Err: fmt.Errorf("%d problems found on remote %s", len(rep.Problems), rep.Remote), Quiet: g.JSON}
	}
	return nil
}

// remoteForget is `cairn storage forget --remote NAME`.
func (g *Globals) remoteForget(name string, c *retentionRun) error {
	s, err := g.Open()
	if err != nil {
		return err
	}
	p, given, err := c.policy()
	if err != nil {
		return err
	}
	if given && len(c.Session) > 0 {
		return usageErrorf("give SESSION or --keep flags, not both")
	}
	if !given && len(c.Session) == 0 {
		cfg, err := s.Config()
		if err != nil {
			return err
		}
		p = cfg.Storage.Forget
	}
	rep, err := s.RemoteForget(g.Ctx, name, p, c.Session, c.DryRun)
	if err != nil {
		return err
	}
	if g.JSON {
		return g.PrintJSON(rep)
	}
	verb := "forgot"
	if c.DryRun {
		verb = "would forget"
	}
	for _, d := range rep.Remove {
		fmt.Fprintf(g.Stdout, "%s %s (last active %s)\n", verb, d.ID, d.Activity.Format(time.RFC3339))
	}
	fmt.Fprintf(g.Stdout, "remote %s: kept %d sessions, %s %d\n", name, len(rep.Keep), verb, len(rep.Remove))
	return nil
}
