package host

import (
	"context"
	"errors"
	"net"
	"os"
	"sync"

	"cairn/engine"
	"cairn/remotews"
	"cairn/remotews/rpc"
)

// Background jobs on the host. A client's background shell line (its
// agent section answers it with a receipt) runs here in the host session
// (shell.start, engine.Session.ShellJob), under the id the client's
// session admitted it under; its shell history entry, output and change
// record are the host session's. Its end is told to the connection the
// host session is on (job.ended), and jobs.list tells how the jobs stand
// at any time, so a client that was away learns their outcomes when it
// connects again.
//
// A job outlives its connection: a host session whose jobs run when the
// client closes it or its connection ends is not closed but detached,
// still owned by this process (its flock held), and closed once the last
// job has ended. The process lingers meanwhile (Server.Linger); the next
// connection of this process takes it up again at session.open (attach),
// and a `cairn host` started for the next ssh connection reaches it
// through the linger socket (linger.go).

// Server is a host process's host sessions, across the connections it
// serves: the ssh connection that started it, and the ones that reach it
// while it lingers.
type Server struct {
	opts Options

	mu       sync.Mutex
	detached map[string]*hostSession // by client session id
	conns    int                     // connections served through linger sockets
	changed  chan struct{}           // told when a detached session closes or such a connection ends
}

func (sv *Server) begin() {
	sv.mu.Lock()
	sv.conns++
	sv.mu.Unlock()
}

func (sv *Server) end() {
	sv.mu.Lock()
	sv.conns--
	sv.mu.Unlock()
	sv.tell()
}

func (sv *Server) tell() {
	select {
	case sv.changed <- struct{}{}:
	default:
	}
}

// NewServer is a Server for the workspace of opts.
func NewServer(opts Options) *Server {
	if opts.Hostname == "" {
		opts.Hostname = hostname()
	}
	return &Server{opts: opts, detached: map[string]*hostSession{}, changed: make(chan struct{}, 1)}
}

// Lingering is how many host sessions are detached, their jobs running,
// and connections through their linger sockets are served.
func (sv *Server) Lingering() int {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	return len(sv.detached) + sv.conns
}

// Linger waits until no host session is detached (each closed as its
// last job ended) and no connection through a linger socket is left, or
// ctx ends: then the detached ones are closed, their jobs cancelled and
// recorded as a session's close cancels them.
func (sv *Server) Linger(ctx context.Context) error {
	for {
		if sv.Lingering() == 0 {
			return nil
		}
		select {
		case <-sv.changed:
		case <-ctx.Done():
			sv.mu.Lock()
			left := make([]*hostSession, 0, len(sv.detached))
			for id, hs := range sv.detached {
				left = append(left, hs)
				delete(sv.detached, id)
			}
			sv.mu.Unlock()
			var errs []error
			for _, hs := range left {
				errs = append(errs, hs.close())
			}
			return errors.Join(errs...)
		}
	}
}

// bgState is a host session's background side: the connection it is on
// (nil: detached) and the jobs started here whose end is still to tell.
type bgState struct {
	mu   sync.Mutex
	conn *rpc.Conn
	jobs map[string]bool
	ln   net.Listener // the linger socket, while detached or relayed to
}

func (b *bgState) on() *rpc.Conn {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.conn
}

// watch puts hs on conn and hooks its jobs' ends (once).
func (hs *hostSession) watch(sv *Server, conn *rpc.Conn) {
	hs.bg.mu.Lock()
	hs.bg.conn = conn
	if hs.bg.jobs == nil {
		hs.bg.jobs = map[string]bool{}
		hs.s.OnBackground(func() { hs.ended(sv) })
	}
	hs.bg.mu.Unlock()
}

// ended tells the jobs of hs that settled to its connection, and closes
// hs once detached with none left. It runs in the engine's goroutine of
// the job that settled, so the close is another goroutine's (it drains
// the jobs).
func (hs *hostSession) ended(sv *Server) {
	hs.bg.mu.Lock()
	var done []engine.BackgroundWork
	for id := range hs.bg.jobs {
		a, err := hs.s.TaskControl(context.Background(), engine.TaskControlRequest{Action: "status", TaskID: id})
		if err == nil && a.Status != nil && !a.Status.Live() {
			done = append(done, a.Status.Work)
			delete(hs.bg.jobs, id)
		}
	}
	conn, left := hs.bg.conn, len(hs.bg.jobs)
	hs.bg.mu.Unlock()
	for _, w := range done {
		if conn != nil {
			_ = conn.Notify(remotews.NoteJobEnded, remotews.JobEnded{Session: hs.id, Work: w})
		}
	}
	if conn == nil && left == 0 {
		go sv.closeDetached(hs)
	}
}

// release ends a connection's hold on hs (session.close, or the
// connection's end): closed, or detached while its jobs run.
func (sv *Server) release(hs *hostSession) error {
	if hs.relay != nil {
		return hs.relay.Close() // the process that owns it detaches it
	}
	hs.bg.mu.Lock()
	hs.bg.conn = nil
	running := len(hs.bg.jobs) > 0
	if running {
		sv.mu.Lock()
		sv.detached[hs.id] = hs
		sv.mu.Unlock()
		sv.listen(hs)
	}
	hs.bg.mu.Unlock()
	if running {
		return nil
	}
	return hs.close()
}

// closeDetached closes hs if it is still detached.
func (sv *Server) closeDetached(hs *hostSession) {
	sv.mu.Lock()
	if sv.detached[hs.id] != hs {
		sv.mu.Unlock()
		return
	}
	delete(sv.detached, hs.id)
	sv.mu.Unlock()
	_ = hs.close()
	sv.tell()
}

// attach takes up detached host session id, bound to generation gen, on
// conn; nil when there is none.
func (sv *Server) attach(id string, gen int64, conn *rpc.Conn) *hostSession {
	sv.mu.Lock()
	hs := sv.detached[id]
	if hs == nil || hs.gen != gen {
		sv.mu.Unlock()
		return nil
	}
	delete(sv.detached, id)
	sv.mu.Unlock() // hs.bg.mu is taken before sv.mu (release)
	hs.bg.mu.Lock()
	hs.bg.conn = conn
	hs.bg.mu.Unlock()
	return hs
}

// reopened answers session.open with hs, detached before: what the
// connection before cut off is told as at any open (the call log read
// again), and the jobs that ended meanwhile are told by jobs.list.
func (h *host) reopened(ctx context.Context, hs *hostSession, canon string, p remotews.SessionOpen) (*remotews.SessionOpened, error) {
	_ = hs.log.close()
	log, old, err := openCallLog(h.opts.Store.FS(), callLogName(canon, p.Session, p.Generation))
	if err != nil {
		h.sv.release(hs)
		return nil, err
	}
	var snaps *engine.SnapshotList
	if len(old) > 0 {
		snaps, _ = hs.s.Snapshots(ctx)
	}
	h.mu.Lock()
	hs.log = log
	h.sessions[p.Session] = hs
	h.mu.Unlock()
	return &remotews.SessionOpened{Session: p.Session, HostSession: hs.s.ID(), Pending: pendingOf(old, snaps)}, nil
}

// jobCall answers shell.start, jobs.list and job.cancel.
func (h *host) jobCall(ctx context.Context, in *rpc.Incoming) (any, error) {
	switch in.Method {
	case remotews.MethodShellStart:
		p, err := decode[remotews.ShellStart](in)
		if err != nil {
			return nil, err
		}
		h.mu.Lock()
		hs := h.sessions[p.Session]
		h.mu.Unlock()
		return logged(h, ctx, in.Method, p.CallRef, p.Line, func(s *engine.Session) (*engine.Receipt, error) {
			rc, err := s.ShellJob(ctx, p.Job, p.Line, engine.ShellOptions{ExecOptions: engine.ExecOptions{Call: p.Call}, TimeoutSecs: p.Timeout})
			if err == nil && hs != nil {
				hs.bg.mu.Lock()
				hs.bg.jobs[rc.Work] = true
				hs.bg.mu.Unlock()
				hs.ended(h.sv) // one that ended at once is told too
			}
			return rc, err
		})
	case remotews.MethodJobsList:
		p, err := decode[remotews.JobsQuery](in)
		if err != nil {
			return nil, err
		}
		return withSession(h, p.Session, func(s *engine.Session) (*remotews.JobsList, error) {
			out := &remotews.JobsList{Jobs: []engine.BackgroundWork{}}
			if len(p.Jobs) == 0 {
				for _, w := range s.RunningWork() {
					if w.Type == "shell" {
						out.Jobs = append(out.Jobs, w)
					}
				}
				return out, nil
			}
			for _, id := range p.Jobs {
				a, err := s.TaskControl(ctx, engine.TaskControlRequest{Action: "status", TaskID: id})
				switch {
				case errors.Is(err, engine.ErrNotFound):
					continue
				case err != nil:
					return nil, err
				}
				out.Jobs = append(out.Jobs, a.Status.Work)
			}
			return out, nil
		})
	default: // job.cancel
		p, err := decode[remotews.JobRef](in)
		if err != nil {
			return nil, err
		}
		return withSession(h, p.Session, func(s *engine.Session) (*engine.BackgroundWork, error) {
			a, err := s.TaskControl(ctx, engine.TaskControlRequest{Action: "cancel", TaskID: p.Job})
			if err != nil {
				return nil, err
			}
			return a.Work, nil
		})
	}
}

func hostname() string {
	n, _ := os.Hostname()
	return n
}
