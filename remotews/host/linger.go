package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"

	"cairn/engine"
	"cairn/engine/wsident"
	"cairn/engine/wskey"
	"cairn/remotews"
	"cairn/remotews/rpc"
)

// The linger socket. A host session detached with its jobs running is
// still owned by the process that ran them; that process listens on a
// unix socket beside the session's call log in the host's state folder
// (hosted/<key>.calls/<session>-<generation>.sock, in a folder only its
// user can enter) and serves the same protocol there. A `cairn host`
// started for a later ssh connection whose session.open finds that
// socket answering relays the session to it: it says hello and
// session.open there (the lingering process takes the session up again,
// and tells what the lost connection cut off), then passes every call
// of that session on, with its cancel and the notifications that come
// back (a shell line's output, job.ended, notices). The session's jobs,
// records and ownership stay with the one process that runs them. When
// the relayed connection ends, the session is detached again; when its
// last job ends while detached, it is closed, the socket removed, and
// the process ends once no connection is left.

// sockName is the linger socket of a host session, in the OS's names.
func (sv *Server) sockName(canon, session string, gen int64) string {
	return filepath.Join(sv.opts.Store.Home(), wsident.Folder, wskey.Key(canon)+".calls", session+"-"+strconv.FormatInt(gen, 10)+".sock")
}

// maxSock is the longest path a unix socket's address holds.
const maxSock = 100

// sockAddr is name as a socket address: itself when it is short enough,
// else its folder opened and named through /proc/self/fd (a socket's
// path has a length limit that a state folder's may pass); done closes
// the folder once the socket is bound or connected.
func sockAddr(name string) (addr string, done func(), err error) {
	if len(name) <= maxSock {
		return name, func() {}, nil
	}
	fd, err := unix.Open(filepath.Dir(name), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", nil, err
	}
	return fmt.Sprintf("/proc/self/fd/%d/%s", fd, filepath.Base(name)), func() { unix.Close(fd) }, nil
}

// listen makes hs's linger socket and serves each connection to it,
// until hs is closed (unlisten).
func (sv *Server) listen(hs *hostSession) {
	if hs.bg.ln != nil || hs.sock == "" {
		return
	}
	_ = os.Remove(hs.sock) // one a process that ended left
	addr, done, err := sockAddr(hs.sock)
	if err != nil {
		return
	}
	old := unix.Umask(0o077)
	ln, err := net.Listen("unix", addr)
	unix.Umask(old)
	done()
	if err != nil {
		return // not reachable: a later connection finds the session busy until its jobs end
	}
	hs.bg.ln = ln
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			if !sameUser(c) {
				c.Close()
				continue
			}
			sv.begin()
			go func() {
				defer sv.end()
				_ = sv.Serve(context.Background(), c, c)
			}()
		}
	}()
}

// unlisten removes hs's linger socket; hs.bg.mu is held.
func (hs *hostSession) unlisten() {
	if hs.bg.ln != nil {
		hs.bg.ln.Close()
		hs.bg.ln = nil
		_ = os.Remove(hs.sock)
	}
}

// sameUser reports whether the peer of c runs as this process's user.
func sameUser(c net.Conn) bool {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return false
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return false
	}
	var cred *unix.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) { cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED) }); err != nil || cerr != nil {
		return false
	}
	return int(cred.Uid) == os.Getuid()
}

// relayTo opens session p through the linger socket of the process that
// owns it, if one answers: the session is then relayed there. nil, nil
// when no process answers.
func (h *host) relayTo(ctx context.Context, sock string, p remotews.SessionOpen) (*remotews.SessionOpened, error) {
	addr, done, err := sockAddr(sock)
	if err != nil {
		return nil, nil
	}
	c, err := net.Dial("unix", addr)
	done()
	if err != nil {
		return nil, nil
	}
	relay := rpc.New(c, c, rpc.Options{Handler: func(_ context.Context, in *rpc.Incoming) (any, error) {
		if in.IsCall() {
			return nil, &rpc.Error{Code: -32601, Message: "the relay serves no calls"}
		}
		_ = h.conn.Notify(in.Method, in.Params) // job.ended, notice
		return nil, nil
	}})
	var w remotews.Welcome
	if err := relay.Call(ctx, remotews.MethodHello, remotews.Hello{Protocol: remotews.Protocol, Format: engine.Format,
		Version: engine.Version, Path: h.opts.Path}, &w); err != nil {
		relay.Close()
		return nil, nil // not one that can take it: open it here, or find it busy
	}
	var opened remotews.SessionOpened
	if err := relay.Call(ctx, remotews.MethodSessionOpen, p, &opened); err != nil {
		relay.Close()
		var lost *rpc.LostError
		if errors.As(err, &lost) {
			return nil, nil
		}
		return nil, err
	}
	h.mu.Lock()
	h.sessions[p.Session] = &hostSession{id: p.Session, relay: relay}
	h.mu.Unlock()
	return &opened, nil
}

// relayed is the relay of the session a call names, nil when the call
// is not one of a relayed session.
func (h *host) relayed(in *rpc.Incoming) *rpc.Conn {
	var ref struct {
		Session string `json:"session"`
	}
	if json.Unmarshal(in.Params, &ref) != nil || ref.Session == "" {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if hs := h.sessions[ref.Session]; hs != nil {
		return hs.relay
	}
	return nil
}

// forward passes call in on to the relay, with its cancel and its call
// notifications, and answers with what comes back.
func (h *host) forward(ctx context.Context, relay *rpc.Conn, in *rpc.Incoming) (any, error) {
	var res json.RawMessage
	err := relay.Go(ctx, in.Method, in.Params, rpc.OnNotify(func(method string, params json.RawMessage) {
		_ = in.Notify(method, params)
	})).Wait(&res)
	var lost *rpc.LostError
	if errors.As(err, &lost) {
		return nil, remotews.Errorf(remotews.CodeFailed, "failed", nil,
			"the cairn host process that runs the session's background jobs ended during %s: %v", in.Method, lost.Err)
	}
	if err != nil {
		return nil, err
	}
	if in.Method == remotews.MethodSessionClose {
		relay.Close()
		var ref remotews.SessionRef
		_ = json.Unmarshal(in.Params, &ref)
		h.mu.Lock()
		delete(h.sessions, ref.Session)
		h.mu.Unlock()
	}
	return res, nil
}
