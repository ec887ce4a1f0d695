// Package host is the host's side of a remote workspace: `cairn host
// /abs/path` runs Serve over its standard input and output. It answers
// the protocol of package remotews with the host's engine: it binds the
// workspace's identity and generation (engine/wsident), lowers the
// client's limits to its own, and runs each client session's file side
// in a host session of its own state folder.
//
// # Host sessions
//
// The host session of client session S, on a workspace of identity I
// at generation G, is the engine session of agent session
// {"agent":"cairn-remote","session":"S/I/G"} (engine.Workspace.OpenAgent):
// its id is derived from all three, so the records of another generation
// are in another session and are never applied to this one. The host
// holds its flock from session.open to session.close or the end of the
// connection; a second connection opening it is refused (busy).
//
// A connection that ends cancels the calls under way (a shell line's
// process group is killed, what it changed recorded), waits for them to
// return, and closes every host session durably.
package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"cairn/engine"
	"cairn/engine/wsident"
	"cairn/remotews"
	"cairn/remotews/rpc"
)

// Agent is the agent name of host sessions (engine.AgentSession).
const Agent = "cairn-remote"

// ownerWait is how long session.open waits for another owner of the host
// session to let it go: the cairn host of a connection just lost may
// still be closing it.
const ownerWait = 3 * time.Second

// Options set up a host.
type Options struct {
	// Store is the host's state folder.
	Store *engine.Store
	// Path is the workspace path cairn host was started with.
	Path string
	// Hostname is what the host calls itself in its answers ("" asks the
	// system).
	Hostname string
}

// host is one connection's state.
type host struct {
	opts Options
	sv   *Server
	conn *rpc.Conn

	mu       sync.Mutex
	welcome  *remotews.Welcome
	ws       *engine.Workspace
	sessions map[string]*hostSession // by client session id
}

// hostSession is a client session's host session on this connection and
// its call log (calls.go).
type hostSession struct {
	s   *engine.Session
	log *callLog // nil on a session open to be read only
	id  string   // the client session's
	gen int64    // the workspace generation it is bound to
	// readOnly: open to be read only (openRead): none of the rest is set.
	readOnly bool
	// bg is its background jobs' side (jobs.go).
	bg bgState
	// sock is its linger socket (linger.go); relay, in a host session
	// relayed to the process that owns it, is the connection to that one
	// (and the rest is unset).
	sock  string
	relay *rpc.Conn

	// calls runs the session's calls that change files one at a time, so
	// that place is the one of the call under way: the client's call and
	// newest item, which its change lines take (engine.SessionOptions.Elsewhere).
	calls sync.Mutex
	mu    sync.Mutex
	place engine.Place
}

func (hs *hostSession) where() engine.Place {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	return hs.place
}

// Serve answers the protocol on r and w until the connection ends, or
// ctx does, then closes the host sessions it opened. It returns the first
// error of the connection or of the closes; a connection whose input
// simply ended is no error.
//
// A host session whose background jobs still run when its connection
// ends (or the client closes it) is not closed: Serve then waits until
// they have ended (Server.Linger), or ctx ends.
func Serve(ctx context.Context, r io.ReadCloser, w io.WriteCloser, opts Options) error {
	sv := NewServer(opts)
	err := sv.Serve(ctx, r, w)
	if lerr := sv.Linger(ctx); err == nil {
		err = lerr
	}
	return err
}

// Serve answers one connection, as the package's Serve does, but leaves
// the host sessions whose background jobs run open, detached: Linger
// waits for them.
func (sv *Server) Serve(ctx context.Context, r io.ReadCloser, w io.WriteCloser) error {
	opts := sv.opts
	h := &host{opts: opts, sv: sv, sessions: map[string]*hostSession{}}
	// Every call runs in the order sent, each answered before the next
	// begins: a client may send a turn's calls without waiting for each
	// answer, and they run as if it had waited.
	// The handler starts with the connection: it waits until h.conn is
	// set, which it reads.
	ready := make(chan struct{})
	handle := func(ctx context.Context, in *rpc.Incoming) (any, error) {
		<-ready
		return h.handle(ctx, in)
	}
	h.conn = rpc.New(r, w, rpc.Options{Handler: handle, Ordered: true})
	close(ready)
	defer context.AfterFunc(ctx, func() { h.conn.Close() })()
	err := h.conn.Wait()
	if ctx.Err() != nil && errors.Is(err, rpc.ErrClosed) {
		err = nil // told to stop
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for id, hs := range h.sessions {
		if cerr := sv.release(hs); cerr != nil && err == nil {
			err = fmt.Errorf("close the host session of %s: %w", id, cerr)
		}
		delete(h.sessions, id)
	}
	return err
}

func (h *host) handle(ctx context.Context, in *rpc.Incoming) (any, error) {
	if !in.IsCall() {
		return nil, nil
	}
	res, err := h.dispatch(ctx, in)
	if err != nil {
		return nil, remotews.HostError(err)
	}
	return res, nil
}

func decode[T any](in *rpc.Incoming) (T, error) {
	var v T
	if err := json.Unmarshal(in.Params, &v); err != nil {
		return v, remotews.Errorf(remotews.CodeBadInput, "bad_input", nil, "%s: params: %v", in.Method, err)
	}
	return v, nil
}

func (h *host) dispatch(ctx context.Context, in *rpc.Incoming) (any, error) {
	if in.Method == remotews.MethodHello {
		p, err := decode[remotews.Hello](in)
		if err != nil {
			return nil, err
		}
		return h.hello(p)
	}
	h.mu.Lock()
	ready := h.welcome != nil
	h.mu.Unlock()
	if !ready {
		return nil, remotews.Errorf(remotews.CodeNotReady, "not_ready", nil, "%s before hello", in.Method)
	}
	if relay := h.relayed(in); relay != nil && in.Method != remotews.MethodSessionOpen {
		return h.forward(ctx, relay, in)
	}
	switch in.Method {
	case remotews.MethodSessionOpen:
		p, err := decode[remotews.SessionOpen](in)
		if err != nil {
			return nil, err
		}
		return h.open(ctx, p)
	case remotews.MethodSessionClose:
		p, err := decode[remotews.SessionRef](in)
		if err != nil {
			return nil, err
		}
		return struct{}{}, h.close(p.Session, p.Had)
	case remotews.MethodSessionCommit:
		p, err := decode[remotews.SessionRef](in)
		if err != nil {
			return nil, err
		}
		return withSession(h, p.Session, func(s *engine.Session) (struct{}, error) {
			return struct{}{}, s.Commit(ctx)
		})
	case remotews.MethodToolWrite:
		p, err := decode[remotews.ToolWrite](in)
		if err != nil {
			return nil, err
		}
		return logged(h, ctx, in.Method, p.CallRef, p.Path, func(s *engine.Session) (*engine.ToolAnswer, error) {
			return s.ToolWrite(ctx, p.Path, p.Content)
		})
	case remotews.MethodToolEdit:
		p, err := decode[remotews.ToolEdit](in)
		if err != nil {
			return nil, err
		}
		return logged(h, ctx, in.Method, p.CallRef, p.Path, func(s *engine.Session) (*engine.ToolAnswer, error) {
			return s.ToolEdit(ctx, p.Path, p.Old, p.New, engine.ToolOptions{ReplaceAll: p.All})
		})
	case remotews.MethodToolRm:
		p, err := decode[remotews.ToolRm](in)
		if err != nil {
			return nil, err
		}
		return logged(h, ctx, in.Method, p.CallRef, p.Path, func(s *engine.Session) (*engine.ToolAnswer, error) {
			return s.ToolRm(ctx, p.Path)
		})
	case remotews.MethodToolPatch:
		p, err := decode[remotews.ToolPatch](in)
		if err != nil {
			return nil, err
		}
		return logged(h, ctx, in.Method, p.CallRef, "", func(s *engine.Session) (*engine.ToolAnswer, error) {
			return s.ToolPatch(ctx, p.Patch)
		})
	case remotews.MethodExec:
		p, err := decode[remotews.Exec](in)
		if err != nil {
			return nil, err
		}
		return logged(h, ctx, in.Method, p.CallRef, p.Line, func(s *engine.Session) (*remotews.ExecResult, error) {
			a, err := s.Exec(ctx, p.Line, engine.ExecOptions{Own: p.Own,
				Stdout: &streamWriter{in: in, stream: "stdout"}, Stderr: &streamWriter{in: in, stream: "stderr"}})
			if a != nil && (err == nil || errors.Is(err, context.Canceled)) {
				// A cancelled line is answered with what it did.
				return &remotews.ExecResult{ExecAnswer: *a, Cancelled: err != nil}, nil
			}
			return nil, err
		})
	case remotews.MethodUndo, remotews.MethodRedo:
		p, err := decode[remotews.CallRef](in)
		if err != nil {
			return nil, err
		}
		return logged(h, ctx, in.Method, p, "", func(s *engine.Session) (*engine.RestoreResult, error) {
			if in.Method == remotews.MethodUndo {
				return s.Undo(ctx)
			}
			return s.Redo(ctx)
		})
	case remotews.MethodSnapshotsRestore:
		p, err := decode[remotews.SnapshotRestore](in)
		if err != nil {
			return nil, err
		}
		return logged(h, ctx, in.Method, p.CallRef, p.Snapshot, func(s *engine.Session) (*engine.RestoreResult, error) {
			return s.RestoreTo(ctx, p.Snapshot)
		})
	case remotews.MethodRevertPreview, remotews.MethodRevertApply:
		p, err := decode[remotews.Revert](in)
		if err != nil {
			return nil, err
		}
		apply := in.Method == remotews.MethodRevertApply
		if !apply {
			return withSession(h, p.Session, func(s *engine.Session) (*remotews.RevertPreview, error) {
				res, err := s.RevertFilesAt(ctx, p.Point, false)
				if err != nil {
					return nil, err
				}
				pv := &remotews.RevertPreview{RevertResult: *res}
				if res.Files != nil && p.Limit > 0 {
					// The preview's diffs: what each file holds now and
					// would hold after; none when they cannot be read.
					if cs, err := res.Files.Contents(ctx, p.Limit); err == nil && len(cs) == len(res.Files.Files) {
						pv.Contents, pv.Sides = cs, remotews.SidesOf(cs, remotews.SideBudget)
					}
				}
				return pv, nil
			})
		}
		return logged(h, ctx, in.Method, p.CallRef, p.Point.Item, func(s *engine.Session) (*engine.RevertResult, error) {
			return s.RevertFilesAt(ctx, p.Point, true)
		})
	case remotews.MethodUnrevert:
		p, err := decode[remotews.CallRef](in)
		if err != nil {
			return nil, err
		}
		return logged(h, ctx, in.Method, p, "", func(s *engine.Session) (*engine.RevertResult, error) {
			fr, err := s.UnrevertFiles(ctx)
			if err != nil {
				return nil, err
			}
			return &engine.RevertResult{Session: s.ID(), Files: fr}, nil
		})
	case remotews.MethodShellsList:
		p, err := decode[remotews.SessionRef](in)
		if err != nil {
			return nil, err
		}
		h.mu.Lock()
		ws := h.ws
		h.mu.Unlock()
		return withSession(h, p.Session, func(s *engine.Session) ([]engine.ShellEntry, error) {
			return ws.ShellHistory(ctx, s.ID())
		})
	case remotews.MethodDiff:
		p, err := decode[remotews.Diff](in)
		if err != nil {
			return nil, err
		}
		return withSession(h, p.Session, func(s *engine.Session) (*remotews.DiffResult, error) {
			ch, err := s.ChangesOf(ctx, p.Select, p.Limit)
			if err != nil {
				return nil, err
			}
			return &remotews.DiffResult{Changes: *ch, Sides: remotews.SidesOf(ch.Files, remotews.SideBudget)}, nil
		})
	case remotews.MethodShellStart, remotews.MethodJobsList, remotews.MethodJobCancel:
		return h.jobCall(ctx, in)
	case remotews.MethodSnapshotsList:
		p, err := decode[remotews.SessionRef](in)
		if err != nil {
			return nil, err
		}
		return withSession(h, p.Session, func(s *engine.Session) (*engine.SnapshotList, error) {
			return s.Snapshots(ctx)
		})
	}
	return nil, &rpc.Error{Code: -32601, Message: "method not found: " + in.Method}
}

// hello binds the workspace and answers with what the host accepts.
func (h *host) hello(p remotews.Hello) (*remotews.Welcome, error) {
	st := h.opts.Store
	if p.Protocol != remotews.Protocol || p.Format != engine.Format {
		return nil, remotews.Errorf(remotews.CodeVersion, "version",
			remotews.VersionData{Kind: "version", Protocol: remotews.Protocol, Format: engine.Format, Version: engine.Version},
			"this host's cairn %s speaks protocol %d and format %d, the client's %s protocol %d and format %d",
			engine.Version, remotews.Protocol, engine.Format, p.Version, p.Protocol, p.Format)
	}
	if p.Path != h.opts.Path {
		return nil, remotews.Errorf(remotews.CodeBadInput, "bad_input", nil, "hello names %q; this host serves %q", p.Path, h.opts.Path)
	}
	canon, err := engine.Canonical(p.Path)
	if err != nil {
		return nil, remotews.Errorf(remotews.CodeNotFound, "not_found", nil, "no folder %s on %s", p.Path, h.opts.Hostname)
	}
	if p.Bound != "" && canon != p.Bound {
		// A session resumed on another folder than its own: refused
		// before anything is bound, so the wrong folder gets no identity.
		return nil, remotews.Errorf(remotews.CodeRefused, "path", remotews.PathData{Kind: "path", Path: canon},
			"%s on %s is the folder %s, not the session's %s", p.Path, h.opts.Hostname, canon, p.Bound)
	}
	ws, err := st.Workspace(canon)
	if err != nil {
		return nil, err
	}
	stamp, err := wsident.StampOf(canon)
	if err != nil {
		return nil, err
	}
	id, moved, err := wsident.Bind(st.FS(), canon, stamp, false, st.Now())
	if err != nil {
		return nil, err
	}
	cfg, err := st.Config()
	if err != nil {
		return nil, err
	}
	limits, lowered := remotews.LimitsOf(cfg), []remotews.LimitLower(nil)
	if p.Limits != nil {
		limits, lowered = remotews.Lower(*p.Limits, limits)
	}
	w := &remotews.Welcome{Protocol: remotews.Protocol, Format: engine.Format, Version: engine.Version,
		Host: h.opts.Hostname, Path: canon, Identity: id.ID, Generation: id.N, Since: id.Since, Why: id.Why,
		Moved: moved, Limits: limits, Lowered: lowered}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.welcome != nil {
		return nil, remotews.Errorf(remotews.CodeBadInput, "bad_input", nil, "a second hello")
	}
	h.welcome, h.ws = w, ws
	return w, nil
}

// open opens the host session of a client session bound to the
// workspace's identity and generation.
func (h *host) open(ctx context.Context, p remotews.SessionOpen) (*remotews.SessionOpened, error) {
	if !engine.IsSessionID(p.Session) {
		return nil, remotews.Errorf(remotews.CodeBadInput, "bad_input", nil, "%q is not a session id", p.Session)
	}
	h.mu.Lock()
	w, ws := h.welcome, h.ws
	_, open := h.sessions[p.Session]
	h.mu.Unlock()
	if open {
		return nil, remotews.Errorf(remotews.CodeBadInput, "bad_input", nil, "session %s is open already", p.Session)
	}
	// The generation as it is now, not as the hello saw it.
	cur, ok, err := wsident.Read(h.opts.Store.FS(), w.Path)
	if err != nil {
		return nil, err
	}
	if !ok || cur.ID != p.Identity || cur.N != p.Generation {
		return nil, remotews.Errorf(remotews.CodeGeneration, "generation",
			remotews.GenerationData{Kind: "generation", Identity: cur.ID, Generation: cur.N, Since: cur.Since, Why: cur.Why},
			"%s on %s is identity %s generation %d; the session is bound to identity %s generation %d",
			w.Path, w.Host, cur.ID, cur.N, p.Identity, p.Generation)
	}
	a := engine.AgentSession{Agent: Agent, ID: fmt.Sprintf("%s/%s/%d", p.Session, p.Identity, p.Generation)}
	if p.ReadOnly {
		// Read from the records as they are, whoever owns the session
		// (a process lingering for its jobs included).
		return h.openRead(ctx, ws, w, a, p)
	}
	if hs := h.sv.attach(p.Session, p.Generation, h.conn); hs != nil {
		return h.reopened(ctx, hs, w.Path, p)
	}
	sock := h.sv.sockName(w.Path, p.Session, p.Generation)
	if opened, err := h.relayTo(ctx, sock, p); opened != nil || err != nil {
		return opened, err
	}
	hs := &hostSession{id: p.Session, sock: sock}
	s, err := ws.OpenAgent(ctx, a, engine.SessionOptions{
		Elsewhere: hs.where,
		Limit: func(c engine.Config) engine.Config {
			return remotews.Apply(c, w.Limits)
		},
		NoSnapshots: p.NoSnapshots || !w.Limits.SnapshotsEnabled,
		Notice: func(text string) {
			if c := hs.bg.on(); c != nil {
				_ = c.Notify(remotews.NoteNotice, remotews.Notice{Session: p.Session, Text: text})
			}
		},
	}, true, ownerWait)
	if err != nil {
		return nil, err
	}
	// What became of the calls the connection before lost is told before
	// anything else runs: the engine settled their change records as the
	// session opened.
	log, old, err := openCallLog(h.opts.Store.FS(), callLogName(w.Path, p.Session, p.Generation))
	if err != nil {
		s.Close()
		return nil, err
	}
	var snaps *engine.SnapshotList
	if len(old) > 0 {
		snaps, _ = s.Snapshots(ctx)
	}
	h.mu.Lock()
	hs.s, hs.log = s, log
	hs.gen = p.Generation
	h.sessions[p.Session] = hs
	h.mu.Unlock()
	hs.watch(h.sv, h.conn)
	return &remotews.SessionOpened{Session: p.Session, HostSession: s.ID(), Pending: pendingOf(old, snaps)}, nil
}

// openRead opens the host session a of a client session to be read only
// (remotews.SessionOpen.ReadOnly), as a local read opens a session:
// without taking it, writing nothing, settling nothing (the owner does,
// at its next open), so it works while another connection holds it. It
// has no call log: its calls that change files are refused (logged).
func (h *host) openRead(ctx context.Context, ws *engine.Workspace, w *remotews.Welcome, a engine.AgentSession, p remotews.SessionOpen) (*remotews.SessionOpened, error) {
	s, err := ws.OpenAgent(ctx, a, engine.SessionOptions{ReadOnly: true, NoSnapshots: p.NoSnapshots}, false, 0)
	if errors.Is(err, engine.ErrNotFound) {
		return nil, remotews.Errorf(remotews.CodeNotFound, "not_found", nil,
			"%s on %s holds no records of session %s", w.Path, w.Host, p.Session)
	}
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	h.sessions[p.Session] = &hostSession{s: s, readOnly: true}
	h.mu.Unlock()
	return &remotews.SessionOpened{Session: p.Session, HostSession: s.ID(), Pending: []remotews.PendingCall{}}, nil
}

func (h *host) close(id string, had int64) error {
	h.mu.Lock()
	hs := h.sessions[id]
	delete(h.sessions, id)
	h.mu.Unlock()
	if hs == nil {
		return remotews.Errorf(remotews.CodeNotReady, "not_ready", nil, "session %s is not open", id)
	}
	if hs.log == nil {
		return hs.close() // open to be read only
	}
	hs.log.closed(had)
	return h.sv.release(hs)
}

func (hs *hostSession) close() error {
	hs.bg.mu.Lock()
	hs.unlisten()
	hs.bg.mu.Unlock()
	err := hs.s.Close()
	if hs.log == nil {
		return err
	}
	if lerr := hs.log.close(); err == nil {
		err = lerr
	}
	return err
}

// withSession runs fn on the open host session of client session id.
func withSession[T any](h *host, id string, fn func(*engine.Session) (T, error)) (T, error) {
	h.mu.Lock()
	hs := h.sessions[id]
	h.mu.Unlock()
	if hs == nil {
		var zero T
		return zero, remotews.Errorf(remotews.CodeNotReady, "not_ready", nil, "session %s is not open on this connection", id)
	}
	return fn(hs.s)
}

// logged runs fn, a call that changes files, on the open host session of
// ref.Session, with its beginning and end in the session's call log: a
// call whose answer cannot reach the client (the connection ended during
// it) is told at the next session.open.
func logged[T any](h *host, ctx context.Context, method string, ref remotews.CallRef, what string, fn func(*engine.Session) (T, error)) (T, error) {
	h.mu.Lock()
	hs := h.sessions[ref.Session]
	h.mu.Unlock()
	if hs == nil {
		var zero T
		return zero, remotews.Errorf(remotews.CodeNotReady, "not_ready", nil, "session %s is not open on this connection", ref.Session)
	}
	if hs.readOnly {
		var zero T
		return zero, remotews.Errorf(remotews.CodeRefused, "refused", nil, "session %s is open read-only on this connection: %s changes files", ref.Session, method)
	}
	hs.calls.Lock()
	defer hs.calls.Unlock()
	hs.mu.Lock()
	hs.place = engine.Place{Call: ref.Call, Item: ref.Item}
	hs.mu.Unlock()
	seq := hs.log.begin(method, ref, what, h.opts.Store.Now())
	res, err := fn(hs.s)
	hs.log.end(seq, h.conn.Err() == nil, res, err)
	return res, err
}

// streamWriter sends what a shell line prints as exec.output call
// notifications. A notification that cannot be sent (the connection is
// gone) is dropped: the line's output is kept in the host's outputs.
type streamWriter struct {
	in     *rpc.Incoming
	stream string
}

func (w *streamWriter) Write(p []byte) (int, error) {
	_ = w.in.Notify(remotews.NoteExecOutput, remotews.ExecOutput{Stream: w.stream, Data: append([]byte(nil), p...)})
	return len(p), nil
}
