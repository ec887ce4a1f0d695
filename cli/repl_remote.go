package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"cairn/cli/diffview"
	"cairn/cli/display"
	"cairn/engine"
	"cairn/remotews"
)

// The REPL on a remote workspace (cairn --ssh [user@]host:/abs/path, or a
// session bound to one): the conversation, trail, usage and prompt history
// stay in this machine's session; every file tool, shell line, undo, redo
// and snapshot restore runs on the host, in the host session of this
// session, over one ssh connection (package remotews).

// workcell is where the REPL's file side runs: the session itself (its
// files here), or its host session on a remote workspace.
type workcell interface {
	ToolWrite(ctx context.Context, path string, content []byte, opts ...engine.ToolOptions) (*engine.ToolAnswer, error)
	ToolEdit(ctx context.Context, path, old, repl string, opts ...engine.ToolOptions) (*engine.ToolAnswer, error)
	ToolRm(ctx context.Context, path string, opts ...engine.ToolOptions) (*engine.ToolAnswer, error)
	ToolPatch(ctx context.Context, text []byte, opts ...engine.ToolOptions) (*engine.ToolAnswer, error)
	Exec(ctx context.Context, line string, opts engine.ExecOptions) (*engine.ExecAnswer, error)
	Commit(ctx context.Context) error
	Undo(ctx context.Context) (*engine.RestoreResult, error)
	Redo(ctx context.Context) (*engine.RestoreResult, error)
	Snapshots(ctx context.Context) (*engine.SnapshotList, error)
	RestoreTo(ctx context.Context, id string) (*engine.RestoreResult, error)
}

// remoteState is the REPL's connection to a remote workspace; all zero
// for a REPL whose files are here.
type remoteState struct {
	client *remotews.Client
	cell   *remoteCell // the current session's host session; nil until opened
	// want is --ssh's target of a REPL that resumes a session, not
	// connected until the session is known (startRemote).
	want *remotews.Target
}

// cell is where the current session's file side runs.
func (r *repl) cell() workcell {
	if r.rc.client != nil {
		if r.rc.cell == nil {
			return &remoteCell{none: r.noHostSession()} // every call says why there is no host session
		}
		return r.rc.cell
	}
	return r.sess
}

// hostFolder is a remote workspace's folder on its host.
type hostFolder string

func (h hostFolder) Path() string { return string(h) }

// filesAt is where the files the REPL's tools name are: the workspace
// here, or the remote workspace's folder on its host.
func (r *repl) filesAt() filesRoot {
	if r.rc.client != nil {
		return hostFolder(r.rc.client.Welcome.Path)
	}
	return r.ws
}

// remoteSwitch refuses the remote workspace unless config.json turns it
// on: nothing is started, and nothing runs here instead.
func remoteSwitch(s *engine.Store) error {
	cfg, err := s.Config()
	if err != nil {
		return err
	}
	if !cfg.Experimental.RemoteWorkcell {
		return &exitError{Code: ExitFailed, Word: "experimental", Err: errors.New(
			`remote workspaces are experimental: set "experimental": {"remote_workcell": true} in config.json to use them; nothing was run, here or there`)}
	}
	return nil
}

// dialRemote connects the REPL to t's workspace, after the switch; kept
// is the binding of session id, being resumed (nil: a new session), whose
// host and path are compared before the host binds anything
// (dialBinding).
func (r *repl) dialRemote(t remotews.Target, id string, kept *engine.RemoteWorkspace) error {
	if err := remoteSwitch(r.store); err != nil {
		return err
	}
	cfg, err := r.store.Config()
	if err != nil {
		return err
	}
	limits := remotews.LimitsOf(cfg)
	sshCommand, cairnPath := r.g.sshWays(kept)
	opts := remotews.Options{SSHCommand: sshCommand, CairnPath: cairnPath,
		Limits: &limits, Stderr: r.errw, Notice: func(_, text string) { r.notice(text) }, JobEnded: r.jobEnded}
	var c *remotews.Client
	if kept != nil {
		c, err = dialBinding(r.g.Ctx, t, id, *kept, opts)
	} else {
		c, err = remotews.Dial(r.g.Ctx, t, opts)
	}
	if err != nil {
		return err
	}
	r.rc.client, r.rc.want = c, nil
	w := c.Welcome
	fmt.Fprintf(r.out, "Files on %s:%s (cairn %s there, generation %d); the conversation is kept here.\n",
		display.Line(t.Host), display.Line(w.Path), display.Line(w.Version), w.Generation)
	if msg := remotews.LoweredMessage(w.Lowered); msg != "" {
		r.notice(msg)
	}
	return nil
}

// startRemote connects a REPL started with --ssh, before its session; one
// that resumes a session (resume) checks the switch only, and connects
// once the session is known (remoteMatch), so that its host and path are
// compared with the session's before the host binds anything.
func (r *repl) startRemote(resume bool) error {
	if r.g.SSH == "" {
		return nil
	}
	t, err := remotews.ParseTarget(r.g.SSH)
	if err != nil {
		return usageErrorf("--ssh %v", err)
	}
	if resume {
		r.rc.want = &t
		return remoteSwitch(r.store)
	}
	return r.dialRemote(t, "", nil)
}

// remoteMatch checks, before session id of ws is opened (before anything
// is written), that its file side is where this REPL's is: a session bound
// to a remote workspace is resumed only on that workspace, at the identity
// and generation it was bound to, with the switch on; a REPL not connected
// yet connects to it (at --ssh's target, or the one the session keeps). A
// local session is not resumed on a remote workspace, nor a remote one
// elsewhere than its own.
func (r *repl) remoteMatch(ws *engine.Workspace, id string) error {
	v, err := ws.ReadLean(r.g.Ctx, id)
	if err != nil {
		return nil // the open says what is wrong with it
	}
	b := v.Record.Remote
	c := r.rc.client
	switch {
	case b == nil && c == nil && r.rc.want == nil:
		return nil
	case b == nil:
		t := r.rc.want
		if c != nil {
			t = &c.Target
		}
		return refusedf("session %s works on this machine's files, and this cairn on %s: resume it with cairn -r %s, without --ssh",
			id, t, id)
	case c == nil:
		// Connect with --ssh's target, or the host and path the session keeps.
		t := remotews.Target{Host: b.Host, Path: b.Path}
		if r.rc.want != nil {
			t = *r.rc.want
		}
		return r.dialRemote(t, id, b)
	}
	return checkBinding(c, id, *b)
}

// checkBinding compares a session's binding with the workspace as the
// host has it now, naming what changed and what to do.
func checkBinding(c *remotews.Client, id string, b engine.RemoteWorkspace) error {
	w := c.Welcome
	switch {
	case c.Target.Host != b.Host || w.Path != b.Path:
		return movedError(id, b, c.Target.Host, w.Path)
	case w.Identity != b.Identity || w.Generation != b.Generation:
		return &remotews.Error{Host: b.Host, Code: remotews.CodeGeneration, Kind: remotews.ErrGeneration,
			Msg: remotews.GenerationMessage(c.Target, remotews.Binding{Host: b.Host, Path: b.Path, Identity: b.Identity, Generation: b.Generation},
				remotews.GenerationData{Identity: w.Identity, Generation: w.Generation, Since: w.Since, Why: w.Why}) +
				" (see docs/remote.md: Identity and generation)"}
	}
	return nil
}

// movedError refuses session id, bound to b, on the workspace path of
// host: another workspace than its own.
func movedError(id string, b engine.RemoteWorkspace, host, path string) error {
	return refusedf("session %s works on %s:%s, and this cairn on %s:%s: resume it with cairn --ssh %s:%s -r %s (see docs/remote.md before moving a workspace)",
		id, b.Host, b.Path, host, path, b.Host, b.Path, id)
}

// refusal is a refusal worded whole: exit 3, its words as they are.
type refusal struct{ msg string }

func (e *refusal) Error() string        { return e.msg }
func (e *refusal) Is(target error) bool { return target == engine.ErrRefused }

func refusedf(format string, a ...any) error { return &refusal{fmt.Sprintf(format, a...)} }

// remoteOpen opens the host session of the REPL's session, just started
// or adopted, and tells what became of the calls a lost connection cut
// off before anything else runs.
func (r *repl) remoteOpen() {
	c := r.rc.client
	if c == nil || r.sess == nil {
		return
	}
	r.remoteClose()
	// A new session keeps the ssh command line and the host's cairn given
	// on the command line (not CAIRN_SSH, which is one run's), so that -r
	// reaches the host the same way; a bound one keeps what it has.
	b := c.Binding()
	bind := engine.RemoteWorkspace{Host: b.Host, Path: b.Path, Identity: b.Identity, Generation: b.Generation,
		SSHCommand: r.g.SSHCommand, CairnPath: r.g.CairnPath}
	if sb := r.sess.Remote(); sb != nil {
		b = remotews.Binding{Host: sb.Host, Path: sb.Path, Identity: sb.Identity, Generation: sb.Generation}
		bind = *sb
	}
	hs, err := c.Session(r.g.Ctx, r.sess.ID(), b, r.noSnapshots)
	if err != nil {
		fmt.Fprintln(r.out, "cairn:", userError(err))
		return
	}
	hs.Newest = newestOf(r.sess)
	r.rc.cell = &remoteCell{sess: r.sess, hs: hs, bind: bind}
	for _, p := range hs.Opened.Pending {
		fmt.Fprintln(r.out, pendingLine(p))
	}
	syncJobs(r.g.Ctx, r.sess, hs, c.Target.Host, func(text string) { fmt.Fprintln(r.out, text) })
}

// remoteClose closes the current session's host session.
func (r *repl) remoteClose() {
	if r.rc.cell == nil || r.rc.cell.hs == nil {
		r.rc.cell = nil
		return
	}
	hs := r.rc.cell.hs
	r.rc.cell = nil
	select {
	case <-r.rc.client.Done():
		return // lost: the host closed it
	default:
	}
	if err := hs.Close(r.g.Ctx); err != nil {
		r.notice(userError(err))
	}
}

// remoteEnd closes the connection as the REPL ends.
func (r *repl) remoteEnd() {
	if r.rc.client == nil {
		return
	}
	r.remoteClose()
	r.rc.client.Close()
	r.rc.client = nil
}

// remoteBind records the session's binding before its first line: a
// session that holds anything is resumable only on its workspace.
func (r *repl) remoteBind(ctx context.Context) error {
	if r.rc.cell == nil || r.rc.cell.hs == nil {
		return nil
	}
	return r.rc.cell.ready(ctx)
}

// pendingLine says what became of a call a lost connection cut off.
func pendingLine(p remotews.PendingCall) string {
	what := p.Method
	if p.What != "" {
		what += " " + display.Line(p.What)
	}
	at := p.Began.Format("15:04:05")
	switch {
	case p.State == remotews.PendingSettled && p.Error != "":
		return fmt.Sprintf("A call the lost connection cut off (%s, begun %s) ended on the host with: %s", what, at, display.Line(p.Error))
	case p.State == remotews.PendingSettled:
		var a struct {
			Snapshot *string `json:"snapshot"`
		}
		_ = json.Unmarshal(p.Answer, &a)
		if a.Snapshot != nil && *a.Snapshot != "" {
			return fmt.Sprintf("A call the lost connection cut off (%s, begun %s) ran to its end on the host: snapshot %s.", what, at, *a.Snapshot)
		}
		return fmt.Sprintf("A call the lost connection cut off (%s, begun %s) ran to its end on the host.", what, at)
	case p.Record != "":
		return fmt.Sprintf("A call the lost connection cut off (%s, begun %s) was interrupted on the host; its change record %s holds what it changed (/snapshots, /undo).", what, at, p.Record)
	}
	return fmt.Sprintf("A call the lost connection cut off (%s, begun %s) was interrupted on the host before it changed anything.", what, at)
}

// remoteCell is the host session hs of session sess, bound to bind, as a
// workcell: the REPL's file side on a remote workspace, and cairn tool's.
// Each call that changes files records the session's binding first.
type remoteCell struct {
	sess *engine.Session
	hs   *remotews.Session
	bind engine.RemoteWorkspace
	none error // why there is no host session, when hs is nil
	// end is the end of the turn sent right behind the last tool call,
	// which Commit waits for; nil when none is on its way.
	end *remotews.Pending[struct{}]
}

// turn sends the end of a tool line's turn right behind its tool call p
// (a tool line is its own turn), so that the line costs one round trip,
// not two, and returns the tool's answer. The host runs the calls in the
// order sent: the end makes durable what the tool changed. A tool that
// was refused or cancelled changed nothing; the end behind it is waited
// for here, and Commit has none to wait for.
func (c *remoteCell) turn(ctx context.Context, p *remotews.Pending[engine.ToolAnswer]) (*engine.ToolAnswer, error) {
	end := c.hs.GoCommit(ctx)
	a, err := p.Wait()
	if err != nil {
		_, _ = end.Wait()
		return nil, err
	}
	c.end = end
	return a, nil
}

func (c *remoteCell) ready(ctx context.Context) error {
	if c.hs == nil {
		return c.none
	}
	return c.sess.SetRemote(ctx, c.bind)
}

// noHostSession refuses a call that needs the session's host session when
// the connection has none (the message at connect said why).
func (r *repl) noHostSession() error {
	return fmt.Errorf("no host session on %s for this session (see the message above): nothing was run, here or there", r.rc.client.Target)
}

// where is the call (the tool_call item, or the prompt of the turn) and
// the newest item the call is placed after, in this session's
// conversation (engine.Place).
func (c *remoteCell) where(opts []engine.ToolOptions) (call, item string, all bool, err error) {
	if len(opts) > 0 {
		call, all = opts[0].Call, opts[0].ReplaceAll
	}
	p, err := c.sess.Place(call)
	return p.Call, p.Item, all, err
}

func (c *remoteCell) ToolWrite(ctx context.Context, path string, content []byte, opts ...engine.ToolOptions) (*engine.ToolAnswer, error) {
	if err := c.ready(ctx); err != nil {
		return nil, err
	}
	call, item, _, err := c.where(opts)
	if err != nil {
		return nil, err
	}
	return c.turn(ctx, c.hs.GoWrite(ctx, call, item, path, content))
}

func (c *remoteCell) ToolEdit(ctx context.Context, path, old, repl string, opts ...engine.ToolOptions) (*engine.ToolAnswer, error) {
	if err := c.ready(ctx); err != nil {
		return nil, err
	}
	call, item, all, err := c.where(opts)
	if err != nil {
		return nil, err
	}
	return c.turn(ctx, c.hs.GoEdit(ctx, call, item, path, old, repl, all))
}

func (c *remoteCell) ToolRm(ctx context.Context, path string, opts ...engine.ToolOptions) (*engine.ToolAnswer, error) {
	if err := c.ready(ctx); err != nil {
		return nil, err
	}
	call, item, _, err := c.where(opts)
	if err != nil {
		return nil, err
	}
	return c.turn(ctx, c.hs.GoRm(ctx, call, item, path))
}

func (c *remoteCell) ToolPatch(ctx context.Context, text []byte, opts ...engine.ToolOptions) (*engine.ToolAnswer, error) {
	if err := c.ready(ctx); err != nil {
		return nil, err
	}
	call, item, _, err := c.where(opts)
	if err != nil {
		return nil, err
	}
	return c.turn(ctx, c.hs.GoPatch(ctx, call, item, text))
}

func (c *remoteCell) Exec(ctx context.Context, line string, opts engine.ExecOptions) (*engine.ExecAnswer, error) {
	if err := c.ready(ctx); err != nil {
		return nil, err
	}
	p, err := c.sess.Place(opts.Call)
	if err != nil {
		return nil, err
	}
	return c.hs.Exec(ctx, p.Call, p.Item, line, opts.Own, opts.Stdout, opts.Stderr)
}

func (c *remoteCell) Commit(ctx context.Context) error {
	if c.hs == nil {
		return nil
	}
	if end := c.end; end != nil {
		c.end = nil
		_, err := end.Wait()
		return err
	}
	return c.hs.Commit(ctx)
}

func (c *remoteCell) Undo(ctx context.Context) (*engine.RestoreResult, error) {
	if err := c.ready(ctx); err != nil {
		return nil, err
	}
	return c.hs.Undo(ctx)
}

func (c *remoteCell) Redo(ctx context.Context) (*engine.RestoreResult, error) {
	if err := c.ready(ctx); err != nil {
		return nil, err
	}
	return c.hs.Redo(ctx)
}

func (c *remoteCell) Snapshots(ctx context.Context) (*engine.SnapshotList, error) {
	if c.hs == nil {
		return nil, c.ready(ctx)
	}
	return c.hs.Snapshots(ctx)
}

func (c *remoteCell) RestoreTo(ctx context.Context, id string) (*engine.RestoreResult, error) {
	if err := c.ready(ctx); err != nil {
		return nil, err
	}
	return c.hs.RestoreTo(ctx, id)
}

// A file revert on a remote workspace: the host keeps the change
// records, so it plans and applies the revert; this session's
// conversation places it (engine.Session.RevertPoint) and moves the head.

// revertFiles previews (apply false) or runs the file half of a revert to
// item at, here or on the host.
func (r *repl) revertFiles(ctx context.Context, at string, mode engine.RevertMode, apply bool) (*engine.RevertResult, error) {
	res, _, err := r.revertFilesDiffs(ctx, at, mode, apply)
	return res, err
}

// revertFilesDiffs is revertFiles, with a remote preview's file contents
// (now and after) for its diffs.
func (r *repl) revertFilesDiffs(ctx context.Context, at string, mode engine.RevertMode, apply bool) (*engine.RevertResult, []engine.FileChange, error) {
	if r.rc.client == nil {
		if !apply {
			res, err := r.sess.PreviewRevert(ctx, at, mode)
			return res, nil, err
		}
		res, err := r.sess.Revert(ctx, at, mode)
		return res, nil, err
	}
	c := r.rc.cell
	if c == nil || c.hs == nil {
		return nil, nil, r.noHostSession()
	}
	return revertOnHost(ctx, r.sess, c.hs, at, mode, apply, diffview.Limit)
}

// unrevert puts back the files of the file reverts since the last new
// work (on the host, for a remote workspace) and then the head.
func (r *repl) unrevert(ctx context.Context) (*engine.RevertResult, error) {
	if r.rc.client == nil {
		return r.sess.Unrevert(ctx)
	}
	c := r.rc.cell
	if c == nil || c.hs == nil {
		return nil, r.noHostSession()
	}
	return unrevertOnHost(ctx, r.sess, c.hs)
}

// shellHistory is the session's shell history: this machine's, or its
// host session's on a remote workspace.
func (r *repl) shellHistory(ctx context.Context) ([]engine.ShellEntry, error) {
	if r.rc.client == nil {
		return r.ws.ShellHistory(ctx, r.sess.ID())
	}
	c := r.rc.cell
	if c == nil || c.hs == nil {
		return nil, r.noHostSession()
	}
	return c.hs.Shells(ctx)
}

// changes is what a call or a turn changed (engine.Workspace.Changes):
// read here, or, on a remote workspace, from the host session's records,
// selected by this session's conversation.
func (r *repl) changes(ctx context.Context, item string) (*engine.Changes, error) {
	if r.rc.client == nil {
		return r.ws.Changes(ctx, r.sess.ID(), item, diffview.Limit)
	}
	c := r.rc.cell
	if c == nil || c.hs == nil {
		return nil, r.noHostSession()
	}
	return changesOnHost(ctx, r.sess, c.hs, item, diffview.Limit)
}

// previewDiffs are the diffs of a file revert's preview: read here, or
// sent by the host with the preview on a remote workspace (remote).
func (r *repl) previewDiffs(ctx context.Context, res *engine.RevertResult, remote []engine.FileChange) []diffview.File {
	if r.rc.client == nil {
		return revertDiffs(ctx, r.ws.Path(), res.Files)
	}
	if remote == nil || res.Files == nil || len(remote) != len(res.Files.Files) {
		return nil
	}
	return fileDiffs(r.filesAt().Path(), remote)
}
