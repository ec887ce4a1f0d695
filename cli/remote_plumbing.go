package cli

import (
	"context"
	"errors"
	"fmt"

	"cairn/engine"
	"cairn/remotews"
)

// The plumbing on a session bound to a remote workspace (cairn diff,
// undo, redo, snapshots, revert, unrevert, shells): the command finds the
// session here, reconnects with the host and path it keeps (or --ssh's),
// checks what a resume checks before anything is written, and runs its
// one call on the host session over that connection. Nothing runs here.
// The REPL and these commands share each call's code below.

// boundOf is the remote workspace session id of ws is bound to, nil for a
// session whose files are here. With --ssh, a session whose files are
// here is refused: it never runs on a remote workspace.
func (g *Globals) boundOf(ws *engine.Workspace, id string) (*engine.RemoteWorkspace, error) {
	v, err := ws.ReadLean(g.Ctx, id)
	if err != nil {
		if g.SSH != "" {
			return nil, err
		}
		return nil, nil // the command itself says what is wrong with the session
	}
	b := v.Record.Remote
	if b == nil && g.SSH != "" {
		return nil, refusedf("session %s works on this machine's files, not on the remote workspace %s: run the command without --ssh", id, g.SSH)
	}
	return b, nil
}

// sshBound is boundOf with --ssh, and nil without it: a command that
// opens the session to write learns that it is bound from the open's
// refusal (refusedBound), reading nothing more for a session here.
func (g *Globals) sshBound(ws *engine.Workspace, id string) (*engine.RemoteWorkspace, error) {
	if g.SSH == "" {
		return nil, nil
	}
	return g.boundOf(ws, id)
}

// refusedBound is the remote workspace an open refused a session for
// (an *engine.RemoteError), nil for any other error.
func refusedBound(err error) *engine.RemoteWorkspace {
	var re *engine.RemoteError
	if errors.As(err, &re) {
		return &re.Remote
	}
	return nil
}

// boundSession is a plumbing command's hold on a session bound to a
// remote workspace: its conversation here, and its host session over one
// connection.
type boundSession struct {
	sess   *engine.Session
	client *remotews.Client
	hs     *remotews.Session
}

// files is where the host session's files are, for naming them.
func (b *boundSession) files() filesRoot { return hostFolder(b.client.Welcome.Path) }

// openBound opens session id of ws, bound to b, for a plumbing command,
// with the checks a resume makes and in its order: the switch, then the
// host, path, identity and generation the host has now against the
// binding (dialBound), each mismatch refused by name before anything is
// written here or there. Then the host session is opened (read: to read
// it only, as a local read, so it works while a REPL holds the session),
// and only once the host has taken it, the session here (read: without
// taking it): a host's refusal (busy, another generation) leaves nothing
// written here. What a lost connection cut off before is told on stderr
// before the command's call runs.
func (g *Globals) openBound(ws *engine.Workspace, id string, b *engine.RemoteWorkspace, read bool) (*boundSession, error) {
	c, err := g.dialBound(id, b)
	if err != nil {
		return nil, err
	}
	bind := remotews.Binding{Host: b.Host, Path: b.Path, Identity: b.Identity, Generation: b.Generation}
	var hs *remotews.Session
	if read {
		hs, err = c.ReadSession(g.Ctx, id, bind)
	} else {
		hs, err = c.Session(g.Ctx, id, bind, false)
	}
	if err != nil {
		c.Close()
		if errors.Is(err, engine.ErrBusy) {
			// The host names its own session and process: say whose they are.
			err = fmt.Errorf("session %s is open on %s in another cairn (a REPL or another command; the host says: %w): run it again once that one has ended", id, b.Host, err)
		}
		return nil, err
	}
	for _, p := range hs.Opened.Pending {
		say(g.Stderr, pendingLine(p))
	}
	opts := g.SessionOptions()
	opts.Remote, opts.ReadOnly = true, read
	sess, err := ws.Open(g.Ctx, id, opts)
	if err != nil {
		hs.Close(g.Ctx)
		c.Close()
		return nil, err
	}
	hs.Newest = newestOf(sess)
	if !read {
		syncJobs(g.Ctx, sess, hs, c.Target.Host, func(text string) { say(g.Stderr, text) }) // repl_remote_jobs.go
	}
	return &boundSession{sess: sess, client: c, hs: hs}, nil
}

// dialBound connects to the workspace session id is bound to (b): at the
// host and path b keeps, or --ssh's. The switch comes first; then the
// host and path are compared before the host binds anything: another
// host is refused before any connection, another folder by the host's
// hello (remotews.Hello.Bound), so a wrong target leaves no workspace
// identity behind; then the identity and generation (checkBinding).
func (g *Globals) dialBound(id string, b *engine.RemoteWorkspace) (*remotews.Client, error) {
	store, err := g.Open()
	if err != nil {
		return nil, err
	}
	if err := remoteSwitch(store); err != nil {
		return nil, err
	}
	t := remotews.Target{Host: b.Host, Path: b.Path}
	if g.SSH != "" {
		if t, err = remotews.ParseTarget(g.SSH); err != nil {
			return nil, usageErrorf("--ssh %v", err)
		}
	}
	cfg, err := store.Config()
	if err != nil {
		return nil, err
	}
	limits := remotews.LimitsOf(cfg)
	sshCommand, cairnPath := g.sshWays(b)
	return dialBinding(g.Ctx, t, id, *b, remotews.Options{SSHCommand: sshCommand, CairnPath: cairnPath,
		Limits: &limits, Stderr: g.Stderr, Notice: func(_, text string) { say(g.Stderr, text) }})
}

// dialBinding connects to t for session id, bound to b, comparing host
// and path before the host binds anything (dialBound), then the identity
// and generation.
func dialBinding(ctx context.Context, t remotews.Target, id string, b engine.RemoteWorkspace, opts remotews.Options) (*remotews.Client, error) {
	if t.Host != b.Host {
		return nil, movedError(id, b, t.Host, t.Path)
	}
	opts.Bound = b.Path
	c, err := remotews.Dial(ctx, t, opts)
	if path, ok := remotews.BoundPath(err); ok {
		return nil, movedError(id, b, t.Host, path)
	}
	if err != nil {
		return nil, err
	}
	if err := checkBinding(c, id, b); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// onHost runs fn on session id of ws, bound to b, opened by openBound,
// and closes it after; fn's error comes first.
func (g *Globals) onHost(ws *engine.Workspace, id string, b *engine.RemoteWorkspace, read bool, fn func(*boundSession) error) error {
	bs, err := g.openBound(ws, id, b, read)
	if err != nil {
		return err
	}
	err = fn(bs)
	if cerr := bs.Close(g.Ctx); err == nil {
		err = cerr
	}
	return err
}

// Close closes the host session, the connection and the session here,
// and says the first thing that went wrong.
func (b *boundSession) Close(ctx context.Context) error {
	err := b.hs.Close(ctx)
	b.client.Close()
	return errors.Join(err, b.sess.Close())
}

// newestOf is the newest item of sess's conversation, which the host
// session places the calls that belong to no tool call after.
func newestOf(sess *engine.Session) func() string {
	return func() string {
		p, _ := sess.Place("")
		return p.Item
	}
}

// restorer is where undo, redo and restore run: a session here, or the
// host session of one bound to a remote workspace.
type restorer interface {
	Undo(ctx context.Context) (*engine.RestoreResult, error)
	Redo(ctx context.Context) (*engine.RestoreResult, error)
	Snapshots(ctx context.Context) (*engine.SnapshotList, error)
	RestoreTo(ctx context.Context, id string) (*engine.RestoreResult, error)
}

// changesOnHost is what a call or a turn of sess changed, read from its
// host session's change records (hs), selected by sess's conversation
// (engine.Session.SelectChanges).
func changesOnHost(ctx context.Context, sess *engine.Session, hs *remotews.Session, item string, limit int64) (*engine.Changes, error) {
	sel, err := sess.SelectChanges(item)
	if err != nil {
		return nil, err
	}
	ch, err := hs.Diff(ctx, *sel, limit)
	if err != nil {
		return nil, err
	}
	ch.Session = sess.ID()
	return ch, nil
}

// revertOnHost previews (apply false) or runs a revert of sess to item at
// whose files are on its host session hs: the host keeps the change
// records, so it plans and applies the file half; sess's conversation
// places it (engine.Session.RevertPoint) and, for both, moves the head
// once the files are reverted, as a local revert does. A preview comes
// with each file's content now and after, up to limit bytes, for its
// diffs.
func revertOnHost(ctx context.Context, sess *engine.Session, hs *remotews.Session, at string, mode engine.RevertMode, apply bool, limit int64) (*engine.RevertResult, []engine.FileChange, error) {
	pt, err := sess.RevertPoint(at)
	if err != nil {
		return nil, nil, err
	}
	var res *engine.RevertResult
	var contents []engine.FileChange
	if apply {
		res, err = hs.RevertFiles(ctx, *pt, true)
	} else {
		var pv *remotews.RevertPreview
		pv, contents, err = hs.PreviewRevert(ctx, *pt, limit)
		if pv != nil {
			res = &pv.RevertResult
		}
	}
	if err != nil {
		return nil, nil, err
	}
	if !apply || mode == engine.RevertFiles || (res.Files != nil && len(res.Files.Left) > 0) {
		head := sess.Head()
		res.Session, res.Head, res.From = sess.ID(), head, head
		return res, contents, nil
	}
	conv, err := sess.Revert(ctx, at, engine.RevertConversation)
	if err != nil {
		return nil, nil, err
	}
	conv.Files = res.Files
	return conv, nil, nil
}

// unrevertOnHost puts back, on the host session hs, the files of sess's
// file reverts since the last new work, and then sess's head.
func unrevertOnHost(ctx context.Context, sess *engine.Session, hs *remotews.Session) (*engine.RevertResult, error) {
	files, err := hs.Unrevert(ctx)
	if err != nil {
		return nil, err
	}
	res, err := sess.Unrevert(ctx)
	if err != nil && files.Files != nil && errors.Is(err, engine.ErrRefused) {
		// The files were put back; the head had nowhere to go.
		head := sess.Head()
		return &engine.RevertResult{Session: sess.ID(), Head: head, From: head, Files: files.Files}, nil
	}
	if err != nil {
		return nil, err
	}
	res.Files = files.Files
	return res, nil
}

// toolCell is where cairn tool's file tools run: a session here, or a
// remoteCell.
type toolCell interface {
	ToolWrite(ctx context.Context, path string, content []byte, opts ...engine.ToolOptions) (*engine.ToolAnswer, error)
	ToolEdit(ctx context.Context, path, old, repl string, opts ...engine.ToolOptions) (*engine.ToolAnswer, error)
	ToolRm(ctx context.Context, path string, opts ...engine.ToolOptions) (*engine.ToolAnswer, error)
	ToolPatch(ctx context.Context, text []byte, opts ...engine.ToolOptions) (*engine.ToolAnswer, error)
}

// toolSessionSSH is toolSession with --ssh: session ref, or the most
// recently written one, must be bound to a remote workspace (the error
// names it); one whose files are here is refused, and none is made (a
// remote session starts with cairn --ssh, which binds it).
func (g *Globals) toolSessionSSH(ref string) (*engine.Workspace, *engine.Session, error) {
	ws, err := g.workspace()
	if err != nil {
		return nil, nil, err
	}
	id := ""
	if ref != "" {
		if ws, id, err = g.resolveSession(ref); err != nil {
			return nil, nil, err
		}
	} else if id, err = ws.Latest(g.Ctx); errors.Is(err, engine.ErrNotFound) {
		return nil, nil, refusedf("no session in this directory to run a tool in on %s: start one with cairn --ssh %s", g.SSH, g.SSH)
	} else if err != nil {
		return nil, nil, err
	}
	b, err := g.boundOf(ws, id)
	if err != nil {
		return nil, nil, err
	}
	if b == nil { // boundOf refuses such a session with --ssh; this is a guard
		return nil, nil, refusedf("session %s works on this machine's files: run the command without --ssh", id)
	}
	return ws, nil, &engine.RemoteError{Session: id, Remote: *b}
}

// toolOnHost runs a file tool in session id of ws, bound to b, on its
// host session, as its own turn (durable on the host on return), and
// prints the answer as a local tool's.
func (g *Globals) toolOnHost(ws *engine.Workspace, id string, b *engine.RemoteWorkspace, tool func(toolCell) (*engine.ToolAnswer, error)) error {
	var a *engine.ToolAnswer
	var files filesRoot
	err := g.onHost(ws, id, b, false, func(bs *boundSession) (err error) {
		files = bs.files()
		cell := &remoteCell{sess: bs.sess, hs: bs.hs, bind: *b}
		if a, err = tool(cell); err != nil {
			return refusedLine(err)
		}
		return cell.Commit(g.Ctx)
	})
	if err != nil {
		return err
	}
	if g.JSON {
		return g.PrintJSON(a)
	}
	printToolAnswer(g.Stdout, files, a)
	return nil
}

// onHost is cairn prompt with --ssh: the session named, or the newest of
// this directory, must be bound to --ssh's workspace; none is started (a
// remote session starts with cairn --ssh, which binds it).
func (c *PromptCmd) onHost(g *Globals, ws *engine.Workspace, text string) error {
	if c.New {
		return refusedf("cairn prompt --new does not start a session on a remote workspace: start one with cairn --ssh %s", g.SSH)
	}
	id, err := "", error(nil)
	if c.Session != "" {
		ws, id, err = g.resolveSession(c.Session)
	} else if id, err = ws.Latest(g.Ctx); errors.Is(err, engine.ErrNotFound) {
		return refusedf("no session in this directory to prompt on %s: start one with cairn --ssh %s", g.SSH, g.SSH)
	}
	if err != nil {
		return err
	}
	b, err := g.boundOf(ws, id)
	if err != nil {
		return err
	}
	if b == nil { // boundOf refuses such a session with --ssh; this is a guard
		return refusedf("session %s works on this machine's files: run the command without --ssh", id)
	}
	return c.append(g, ws, text, id, b)
}

// append appends the prompt to session id of ws, bound to b, whose
// conversation is kept here: after the checks every command on a
// remote-bound session makes before it writes anything (the switch, the
// host, path, identity and generation, openBound), and what a lost
// connection cut off before told first. The host's files are not
// touched; its session is held meanwhile, as one owner holds both sides.
func (c *PromptCmd) append(g *Globals, ws *engine.Workspace, text, id string, b *engine.RemoteWorkspace) error {
	var it *engine.Item
	err := g.onHost(ws, id, b, false, func(bs *boundSession) (err error) {
		it, err = c.appendTo(g, ws, bs.sess, text)
		return err
	})
	if err != nil {
		return err
	}
	return g.answerItem(id, it.ID)
}
