package remotews

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"cairn/engine"
	"cairn/remotews/rpc"
)

// Options set up a client.
type Options struct {
	// SSHCommand is the ssh command line (--ssh-command, CAIRN_SSH);
	// "" runs ssh.
	SSHCommand string
	// CairnPath is the program the host runs (--cairn-path); "" is cairn.
	CairnPath string
	// Limits are the recording limits the client's configuration asks
	// for (nil: the host's own).
	Limits *Limits
	// Stderr receives what ssh and the host's cairn print on their
	// standard error, as they print it (nil: kept only for errors).
	Stderr io.Writer
	// Notice receives the host sessions' one-line messages.
	Notice func(session, text string)
	// Bound, for a session bound to a workspace, is the workspace's path
	// on the host as the session keeps it (Hello.Bound): the hello is
	// refused, before the host binds anything, when the target's path is
	// another folder (BoundPath).
	Bound string
	// JobEnded receives the end of a background job of a host session
	// open on the connection (job.ended), in a goroutine of the
	// connection's: it may be told again by Session.Jobs.
	JobEnded func(session string, w engine.BackgroundWork)
}

// Client is a connection to one workspace on a host.
type Client struct {
	Target  Target
	Welcome Welcome

	conn   *rpc.Conn
	cmd    *exec.Cmd // nil on a connection Connect was given
	exited chan struct{}
	tail   *tailBuffer
	waitMu sync.Mutex
}

// Dial starts ssh to t's host, runs cairn host there, and says hello.
func Dial(ctx context.Context, t Target, opts Options) (*Client, error) {
	argv := SSHArgv(opts.SSHCommand, t, HostCommand(opts.CairnPath, t.Path))
	cmd := exec.Command(argv[0], argv[1:]...)
	// Pipes of our own rather than cmd's: Wait closes those as ssh ends,
	// which could drop the host's last answer before it is read.
	inR, stdin, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	stdout, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		stdin.Close()
		return nil, err
	}
	tail := &tailBuffer{max: 8 << 10, also: opts.Stderr}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, tail
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		stdin.Close()
		stdout.Close()
		return nil, &Error{Host: t.Host, Kind: ErrSSH, Err: err, Msg: fmt.Sprintf("cannot start %s: %v", argv[0], err)}
	}
	c := &Client{Target: t, cmd: cmd, exited: make(chan struct{}), tail: tail}
	go func() {
		_ = cmd.Wait()
		close(c.exited)
	}()
	c.conn = rpc.New(stdout, stdin, rpc.Options{Handler: c.handler(opts)})
	if err := c.hello(ctx, opts); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Connect says hello over a connection already made (a pipe to a host in
// the same process, or any other transport) to the workspace at path.
func Connect(ctx context.Context, r io.ReadCloser, w io.WriteCloser, host, path string, opts Options) (*Client, error) {
	c := &Client{Target: Target{Host: host, Path: path}, tail: &tailBuffer{max: 8 << 10}}
	c.conn = rpc.New(r, w, rpc.Options{Handler: c.handler(opts)})
	if err := c.hello(ctx, opts); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

func (c *Client) handler(opts Options) rpc.Handler {
	return func(ctx context.Context, in *rpc.Incoming) (any, error) {
		if in.Method == NoteNotice && opts.Notice != nil {
			var n Notice
			if json.Unmarshal(in.Params, &n) == nil {
				opts.Notice(n.Session, n.Text)
			}
		}
		if in.Method == NoteJobEnded && opts.JobEnded != nil {
			var j JobEnded
			if json.Unmarshal(in.Params, &j) == nil {
				opts.JobEnded(j.Session, j.Work)
			}
		}
		if in.IsCall() {
			return nil, &rpc.Error{Code: -32601, Message: "the client serves no calls"}
		}
		return nil, nil
	}
}

func (c *Client) hello(ctx context.Context, opts Options) error {
	h := Hello{Protocol: Protocol, Format: engine.Format, Version: engine.Version, Path: c.Target.Path, Limits: opts.Limits, Bound: opts.Bound}
	err := c.conn.Call(ctx, MethodHello, h, &c.Welcome)
	if err == nil {
		if c.Welcome.Protocol != Protocol || c.Welcome.Format != engine.Format {
			return c.versionError(VersionData{Protocol: c.Welcome.Protocol, Format: c.Welcome.Format, Version: c.Welcome.Version})
		}
		return nil
	}
	var lost *rpc.LostError
	if errors.As(err, &lost) {
		return c.startError(lost.Err)
	}
	e := fromWire(c.Target.Host, MethodHello, err)
	var re *Error
	if errors.As(e, &re) && re.Code == CodeVersion {
		var d VersionData
		_ = json.Unmarshal(re.Data, &d)
		return c.versionError(d)
	}
	return e
}

func (c *Client) versionError(d VersionData) error {
	return &Error{Host: c.Target.Host, Code: CodeVersion, Kind: ErrVersion, Msg: fmt.Sprintf(
		"the cairn on %s (%s) speaks protocol %d and state format %d; this cairn (%s) speaks protocol %d and format %d: install the same cairn on both",
		c.Target.Host, d.Version, d.Protocol, d.Format, engine.Version, Protocol, engine.Format)}
}

// exitStatus waits a little for ssh to end once the connection has, and
// returns its exit status (-1 when it has not ended or none is known).
func (c *Client) exitStatus() int {
	if c.cmd == nil {
		return -1
	}
	select {
	case <-c.exited:
	case <-time.After(5 * time.Second):
		return -1
	}
	if c.cmd.ProcessState == nil {
		return -1
	}
	return c.cmd.ProcessState.ExitCode()
}

// startError says why the connection ended before the host's hello.
func (c *Client) startError(cause error) error {
	host := c.Target.Host
	status := c.exitStatus()
	said := c.tail.last()
	e := &Error{Host: host, Err: cause}
	var pe *rpc.ProtocolError
	switch {
	case errors.As(cause, &pe):
		e.Kind = ErrStart
		e.Msg = fmt.Sprintf("%s printed %q where cairn host should have started (a login script that prints to standard output?)", host, pe.Line)
	case status == 127:
		e.Kind = ErrNoCairn
		e.Msg = fmt.Sprintf("%s has no cairn to run (ssh exit 127%s): install cairn there, or name it with --cairn-path", host, colon(said))
	case status == 255:
		e.Kind = ErrSSH
		e.Msg = fmt.Sprintf("ssh to %s failed (exit 255%s)", host, colon(said))
	case status == 2 && strings.Contains(said, "unexpected argument"):
		e.Kind = ErrVersion
		e.Msg = fmt.Sprintf("the cairn on %s has no `cairn host` (an older cairn%s): install the same cairn on both", host, colon(said))
	case status >= 0:
		e.Kind = ErrStart
		e.Msg = fmt.Sprintf("cairn host on %s ended before it answered (exit %d%s)", host, status, colon(said))
	default:
		e.Kind = ErrStart
		e.Msg = fmt.Sprintf("the connection to %s ended before cairn host answered: %v%s", host, cause, colon(said))
	}
	return e
}

func colon(said string) string {
	if said == "" {
		return ""
	}
	return ": " + said
}

// call makes one call; a lost connection is an *Error of kind ErrLost
// naming the call, the host and why.
func (c *Client) call(ctx context.Context, method string, params, result any, opts ...rpc.CallOption) error {
	return c.wait(method, c.conn.Go(ctx, method, params, opts...), result)
}

// wait waits for the answer of a call sent, as call does.
func (c *Client) wait(method string, sent *rpc.Sent, result any) error {
	err := sent.Wait(result)
	if err == nil {
		return nil
	}
	var lost *rpc.LostError
	if errors.As(err, &lost) {
		why := lost.Err.Error()
		if errors.Is(lost.Err, io.EOF) {
			why = "the host closed it"
		}
		if st := c.exitStatus(); st >= 0 {
			why = fmt.Sprintf("ssh exit %d", st)
		}
		return &Error{Host: c.Target.Host, Kind: ErrLost, Err: err, Msg: fmt.Sprintf(
			"the connection to %s was lost during %s (%s%s): the call is blocked; whether it ran there is found out at the next connect",
			c.Target.Host, method, why, colon(c.tail.last()))}
	}
	return fromWire(c.Target.Host, method, err)
}

// Close ends the connection and waits for ssh to end.
func (c *Client) Close() error {
	c.conn.Close()
	if c.cmd == nil {
		return nil
	}
	select {
	case <-c.exited:
	case <-time.After(10 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.exited
	}
	return nil
}

// Done is closed when the connection has ended.
func (c *Client) Done() <-chan struct{} { return c.conn.Done() }

// Binding is what a client session's record keeps of its workspace.
type Binding struct {
	Host       string `json:"host"`
	Path       string `json:"path"`
	Identity   string `json:"identity"`
	Generation int64  `json:"generation"`
}

// Binding is the workspace as the host has it now.
func (c *Client) Binding() Binding {
	return Binding{Host: c.Target.Host, Path: c.Welcome.Path, Identity: c.Welcome.Identity, Generation: c.Welcome.Generation}
}

// Session opens the host session of client session id, bound to b (the
// binding its record keeps; for a new session, c.Binding()).
func (c *Client) Session(ctx context.Context, id string, b Binding, noSnapshots bool) (*Session, error) {
	return c.open(ctx, SessionOpen{Session: id, Identity: b.Identity, Generation: b.Generation, NoSnapshots: noSnapshots}, b)
}

// ReadSession opens the host session of client session id, bound to b,
// to be read only (SessionOpen.ReadOnly): it works while another
// connection holds the session, and its calls that change files are
// refused.
func (c *Client) ReadSession(ctx context.Context, id string, b Binding) (*Session, error) {
	return c.open(ctx, SessionOpen{Session: id, Identity: b.Identity, Generation: b.Generation, ReadOnly: true}, b)
}

func (c *Client) open(ctx context.Context, p SessionOpen, b Binding) (*Session, error) {
	id := p.Session
	var opened SessionOpened
	err := c.call(ctx, MethodSessionOpen, p, &opened)
	if err != nil {
		var re *Error
		if errors.As(err, &re) && errors.Is(re.Kind, ErrGeneration) {
			var d GenerationData
			_ = json.Unmarshal(re.Data, &d)
			re.Msg = GenerationMessage(c.Target, b, d)
		}
		return nil, err
	}
	return &Session{c: c, id: id, Opened: opened}, nil
}

// GenerationMessage says that the workspace a session is bound to b is
// another one now (d), naming what changed and what to do.
func GenerationMessage(t Target, b Binding, d GenerationData) string {
	if d.Identity != b.Identity {
		return fmt.Sprintf("%s on %s is another workspace than the session's (identity %s, the session's %s: another machine, or its state folder made again); the session's records stay unused. Start a new session there, or reach the original host",
			t.Path, t.Host, d.Identity, b.Identity)
	}
	return fmt.Sprintf("%s on %s was replaced (generation %d since %s, %s); the session's records are of generation %d and are never applied to it. Start a new session there",
		t.Path, t.Host, d.Generation, d.Since.Format(time.RFC3339), d.Why, b.Generation)
}

// Session is a client session's file side on the host.
//
// Its calls that change files can be sent without waiting for each
// answer (GoWrite, GoEdit, GoRm, GoPatch, GoCommit): the host runs a
// connection's calls one at a time in the order sent, so a turn's writes
// and its end cost one round trip in all rather than one each. Each
// answer still means what the waiting call's means: the host ran the
// call and recorded it (a turn's end: durable there). Wait must be called
// on every Pending a Go method returns: only Wait tells the session that
// a call was answered, and what the session tells the host it has had
// (on its next calls and at Close) stops at the first call not waited for.
type Session struct {
	c      *Client
	id     string
	Opened SessionOpened
	// Newest, when set, is the client conversation's newest item, which
	// the calls that belong to no tool call (undo, redo, restore, a file
	// revert, unrevert) place their lines after.
	Newest func() string

	mu       sync.Mutex
	next     int64          // the number of the last call sent
	had      int64          // every call numbered up to it was answered
	answered map[int64]bool // answered calls numbered past had
}

// number gives r the next call's number and what the client has had.
func (s *Session) number(r CallRef) CallRef {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	r.Seq, r.Had = s.next, s.had
	return r
}

// answer notes that the answer of call seq arrived.
func (s *Session) answer(seq int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.answered == nil {
		s.answered = map[int64]bool{}
	}
	s.answered[seq] = true
	for s.answered[s.had+1] {
		delete(s.answered, s.had+1)
		s.had++
	}
}

func (s *Session) ref(call, item string) CallRef {
	return s.number(CallRef{Session: s.id, Call: call, Item: item})
}

// own is the CallRef of a call that belongs to no tool call.
func (s *Session) own() CallRef {
	r := CallRef{Session: s.id}
	if s.Newest != nil {
		r.Item = s.Newest()
	}
	return s.number(r)
}

// Pending is a call sent whose answer has not been waited for. Wait must
// be called on every one (see Session).
type Pending[T any] struct {
	s      *Session
	method string
	seq    int64
	sent   *rpc.Sent
}

// Wait waits for the call's answer (once).
func (p *Pending[T]) Wait() (*T, error) {
	var v T
	err := p.s.c.wait(p.method, p.sent, &v)
	if p.seq > 0 && !errors.Is(err, ErrLost) {
		p.s.answer(p.seq)
	}
	return &v, err
}

func goCall[T any](ctx context.Context, s *Session, method string, seq int64, params any, opts ...rpc.CallOption) *Pending[T] {
	return &Pending[T]{s: s, method: method, seq: seq, sent: s.c.conn.Go(ctx, method, params, opts...)}
}

// sync waits for a call just sent.
func syncCall[T any](ctx context.Context, s *Session, method string, ref CallRef, params any, opts ...rpc.CallOption) (*T, error) {
	return goCall[T](ctx, s, method, ref.Seq, params, opts...).Wait()
}

// GoWrite sends the write tool's call to the host; Wait has its answer.
func (s *Session) GoWrite(ctx context.Context, call, item, path string, content []byte) *Pending[engine.ToolAnswer] {
	r := s.ref(call, item)
	return goCall[engine.ToolAnswer](ctx, s, MethodToolWrite, r.Seq, ToolWrite{CallRef: r, Path: path, Content: content})
}

// Write runs the write tool on the host.
func (s *Session) Write(ctx context.Context, call, item, path string, content []byte) (*engine.ToolAnswer, error) {
	return s.GoWrite(ctx, call, item, path, content).Wait()
}

// GoEdit sends the edit tool's call to the host; Wait has its answer.
func (s *Session) GoEdit(ctx context.Context, call, item, path, old, repl string, all bool) *Pending[engine.ToolAnswer] {
	r := s.ref(call, item)
	return goCall[engine.ToolAnswer](ctx, s, MethodToolEdit, r.Seq, ToolEdit{CallRef: r, Path: path, Old: old, New: repl, All: all})
}

// Edit runs the edit tool on the host.
func (s *Session) Edit(ctx context.Context, call, item, path, old, repl string, all bool) (*engine.ToolAnswer, error) {
	return s.GoEdit(ctx, call, item, path, old, repl, all).Wait()
}

// GoRm sends the rm tool's call to the host; Wait has its answer.
func (s *Session) GoRm(ctx context.Context, call, item, path string) *Pending[engine.ToolAnswer] {
	r := s.ref(call, item)
	return goCall[engine.ToolAnswer](ctx, s, MethodToolRm, r.Seq, ToolRm{CallRef: r, Path: path})
}

// Rm runs the rm tool on the host.
func (s *Session) Rm(ctx context.Context, call, item, path string) (*engine.ToolAnswer, error) {
	return s.GoRm(ctx, call, item, path).Wait()
}

// GoPatch sends apply_patch's call to the host; Wait has its answer.
func (s *Session) GoPatch(ctx context.Context, call, item string, patch []byte) *Pending[engine.ToolAnswer] {
	r := s.ref(call, item)
	return goCall[engine.ToolAnswer](ctx, s, MethodToolPatch, r.Seq, ToolPatch{CallRef: r, Patch: patch})
}

// Patch runs apply_patch on the host.
func (s *Session) Patch(ctx context.Context, call, item string, patch []byte) (*engine.ToolAnswer, error) {
	return s.GoPatch(ctx, call, item, patch).Wait()
}

// Exec runs a shell line on the host; what it prints reaches stdout and
// stderr as it runs. Cancelling ctx kills the line there; the answer
// still comes, saying what it changed, with ctx's error (as
// engine.Session.Exec answers a cancelled line).
func (s *Session) Exec(ctx context.Context, call, item, line string, own bool, stdout, stderr io.Writer) (*engine.ExecAnswer, error) {
	r := s.ref(call, item)
	a, err := syncCall[ExecResult](ctx, s, MethodExec, r, Exec{CallRef: r, Line: line, Own: own},
		rpc.OnNotify(func(method string, params json.RawMessage) {
			var o ExecOutput
			if method != NoteExecOutput || json.Unmarshal(params, &o) != nil {
				return
			}
			w := stdout
			if o.Stream == "stderr" {
				w = stderr
			}
			if w != nil {
				_, _ = w.Write(o.Data)
			}
		}))
	if err != nil {
		return nil, err
	}
	a.Session = s.id // the answer names the client's session, not the host's
	if a.Cancelled {
		err = ctx.Err()
		if err == nil {
			err = context.Canceled
		}
	}
	return &a.ExecAnswer, err
}

// Undo undoes the newest applied snapshot on the host.
func (s *Session) Undo(ctx context.Context) (*engine.RestoreResult, error) {
	r := s.own()
	return syncCall[engine.RestoreResult](ctx, s, MethodUndo, r, r)
}

// Redo puts the newest undone edit back on the host.
func (s *Session) Redo(ctx context.Context) (*engine.RestoreResult, error) {
	r := s.own()
	return syncCall[engine.RestoreResult](ctx, s, MethodRedo, r, r)
}

// RestoreTo undoes every snapshot down to and including snap.
func (s *Session) RestoreTo(ctx context.Context, snap string) (*engine.RestoreResult, error) {
	r := s.own()
	return syncCall[engine.RestoreResult](ctx, s, MethodSnapshotsRestore, r, SnapshotRestore{CallRef: r, Snapshot: snap})
}

// RevertFiles runs (apply) or previews, on the host, a file revert to
// the boundary p of the client's conversation (engine.Session.RevertPoint):
// the host keeps the change records, so it plans and applies it; the
// head is the client's to move.
func (s *Session) RevertFiles(ctx context.Context, p engine.RevertPoint, apply bool) (*engine.RevertResult, error) {
	if !apply {
		pv, _, err := s.PreviewRevert(ctx, p, 0)
		if err != nil {
			return nil, err
		}
		return &pv.RevertResult, nil
	}
	r := s.own()
	return syncCall[engine.RevertResult](ctx, s, MethodRevertApply, r, Revert{CallRef: r, Point: p})
}

// PreviewRevert previews a file revert to p on the host, with each file's
// content now (Before) and after the revert (After), each up to limit
// bytes (0: none; nil when the host could not read them), for its diffs.
func (s *Session) PreviewRevert(ctx context.Context, p engine.RevertPoint, limit int64) (*RevertPreview, []engine.FileChange, error) {
	r := s.own()
	pv, err := syncCall[RevertPreview](ctx, s, MethodRevertPreview, r, Revert{CallRef: r, Point: p, Limit: limit})
	if err != nil {
		return nil, nil, err
	}
	if !withSides(pv.Contents, pv.Sides) {
		return pv, nil, nil
	}
	return pv, pv.Contents, nil
}

// Diff reads what the selected calls changed from the host session's
// change records, each side of each file up to limit bytes.
func (s *Session) Diff(ctx context.Context, sel engine.ChangeSelection, limit int64) (*engine.Changes, error) {
	d, err := syncCall[DiffResult](ctx, s, MethodDiff, CallRef{}, Diff{SessionRef: SessionRef{Session: s.id}, Select: sel, Limit: limit})
	if err != nil {
		return nil, err
	}
	if !withSides(d.Changes.Files, d.Sides) {
		return nil, fmt.Errorf("the answer to %s: %d files and %d contents", MethodDiff, len(d.Changes.Files), len(d.Sides))
	}
	return &d.Changes, nil
}

// Unrevert puts back, on the host, the files of the file reverts since
// the last new work.
func (s *Session) Unrevert(ctx context.Context) (*engine.RevertResult, error) {
	r := s.own()
	return syncCall[engine.RevertResult](ctx, s, MethodUnrevert, r, r)
}

// Snapshots lists the session's snapshots on the host, as the client
// session's: the list names it, not the host session.
func (s *Session) Snapshots(ctx context.Context) (*engine.SnapshotList, error) {
	l, err := syncCall[engine.SnapshotList](ctx, s, MethodSnapshotsList, CallRef{}, SessionRef{Session: s.id})
	if err != nil {
		return nil, err
	}
	l.Session = s.id
	return l, nil
}

// Shells is the host session's shell history.
func (s *Session) Shells(ctx context.Context) ([]engine.ShellEntry, error) {
	ents, err := syncCall[[]engine.ShellEntry](ctx, s, MethodShellsList, CallRef{}, SessionRef{Session: s.id})
	return *ents, err
}

// ShellStart runs shell line on the host in the background as job (the
// id this session's ledger admitted it under), timeout seconds its hard
// deadline there: the answer is the host's receipt. Its end comes as a
// job.ended notification (Options.JobEnded) and is told by Jobs.
func (s *Session) ShellStart(ctx context.Context, call, item, job, line string, timeout int) (*engine.Receipt, error) {
	r := s.ref(call, item)
	return syncCall[engine.Receipt](ctx, s, MethodShellStart, r, ShellStart{CallRef: r, Job: job, Line: line, Timeout: timeout})
}

// Jobs tells how the host session's background jobs named stand there;
// a job absent from the answer never started there.
func (s *Session) Jobs(ctx context.Context, jobs []string) ([]engine.BackgroundWork, error) {
	l, err := syncCall[JobsList](ctx, s, MethodJobsList, CallRef{}, JobsQuery{SessionRef: SessionRef{Session: s.id}, Jobs: jobs})
	if err != nil {
		return nil, err
	}
	return l.Jobs, nil
}

// JobCancel asks the host to stop background job job; it shows
// cancelling until it has ended there.
func (s *Session) JobCancel(ctx context.Context, job string) (*engine.BackgroundWork, error) {
	return syncCall[engine.BackgroundWork](ctx, s, MethodJobCancel, CallRef{}, JobRef{SessionRef: SessionRef{Session: s.id}, Job: job})
}

// GoCommit sends the end of the client's turn; once Wait returns without
// error, what the turn's file tools changed is durable on the host.
func (s *Session) GoCommit(ctx context.Context) *Pending[struct{}] {
	return goCall[struct{}](ctx, s, MethodSessionCommit, 0, SessionRef{Session: s.id})
}

// Commit ends the client's turn on the host: what the turn's file tools
// changed is durable there on return.
func (s *Session) Commit(ctx context.Context) error {
	_, err := s.GoCommit(ctx).Wait()
	return err
}

// Close closes the host session.
func (s *Session) Close(ctx context.Context) error {
	s.mu.Lock()
	had := s.had
	s.mu.Unlock()
	_, err := syncCall[struct{}](ctx, s, MethodSessionClose, CallRef{}, SessionRef{Session: s.id, Had: had})
	return err
}

// tailBuffer keeps the last max bytes written to it, and passes them on
// to also.
type tailBuffer struct {
	mu   sync.Mutex
	max  int
	buf  []byte
	also io.Writer
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = t.buf[len(t.buf)-t.max:]
	}
	if t.also != nil {
		_, _ = t.also.Write(p)
	}
	return len(p), nil
}

// last is the last non-empty line written, trimmed.
func (t *tailBuffer) last() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := bytes.Split(bytes.TrimSpace(t.buf), []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(string(lines[i])); l != "" {
			return l
		}
	}
	return ""
}
