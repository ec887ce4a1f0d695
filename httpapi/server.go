package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"cairn/engine"
	"cairn/internal/usermsg"
)

// snapshotOps is the undo stack of one open session.
type snapshotOps interface {
	Snapshots(ctx context.Context) (*engine.SnapshotList, error)
	Undo(ctx context.Context) (*engine.RestoreResult, error)
	Redo(ctx context.Context) (*engine.RestoreResult, error)
	RestoreTo(ctx context.Context, id string) (*engine.RestoreResult, error)
}

// sessionSource finds the session a request names and lists its snapshots
// or runs an operation on it, serialized with whatever else writes it.
type sessionSource interface {
	// snapshots lists the snapshots of the session ref names among those
	// allow admits, taking no lock and writing nothing. Errors are as run's.
	snapshots(ctx context.Context, ref string, allow func(id string) bool) (*engine.SnapshotList, error)
	// run resolves ref among the sessions allow admits and calls fn with
	// the open session. Resolution errors are errNoSession, errAmbiguous or
	// a *engine.BusyError; fn's error is returned as it is, wrapped in
	// opError.
	run(ctx context.Context, ref string, allow func(id string) bool, fn func(snapshotOps) error) error
}

var (
	errNoSession = errors.New("no such session")
	errAmbiguous = errors.New("ambiguous session reference")
)

// opError is an error of the operation itself (not of finding the session).
type opError struct{ err error }

func (e *opError) Error() string { return e.err.Error() }
func (e *opError) Unwrap() error { return e.err }

// Server is the HTTP API over one source of sessions: a store's sessions
// no process owns (NewStoreServer) or the one session a REPL owns
// (NewSessionServer). Handler is its http.Handler.
type Server struct {
	auth *authority
	src  sessionSource
	logw io.Writer // internal errors are told here, not to the client

	logMu     sync.Mutex
	credsTold string // the credentials error last logged
}

// notFoundBody is the one answer for an unknown session and for a session
// outside a credential's allowlist: byte for byte the same.
var notFoundBody = []byte(`{"ok":false,"code":"not_found","error":"no such session"}` + "\n")

// NewStoreServer serves the sessions of every workspace of store that no
// process owns. gateway is the gateway token; paired credentials are read
// from the store's credentials.json on every request. Errors the client is
// not told go to log, with why credentials.json cannot be read, once for
// each reason (now, when it cannot be read already).
func NewStoreServer(store *engine.Store, gateway string, log io.Writer) *Server {
	a := &Server{auth: &authority{gateway: gateway, creds: func() ([]Credential, error) { return Credentials(store) }}, logw: log}
	a.src = &storeSource{store: store, warn: a.logf}
	a.checkCredentials()
	return a
}

// NewSessionServer serves the one session live holds. Paired credentials
// are those of creds's state folder (the persistent one, whatever store the
// session is in); gateway and log are as for NewStoreServer.
func NewSessionServer(live *Live, creds *engine.Store, gateway string, log io.Writer) *Server {
	a := &Server{auth: &authority{gateway: gateway, creds: func() ([]Credential, error) { return Credentials(creds) }}, src: live, logw: log}
	a.checkCredentials()
	return a
}

// checkCredentials tells the log at once when credentials.json cannot be
// read.
func (a *Server) checkCredentials() {
	if _, err := a.auth.creds(); err != nil {
		a.tellCredentials(err)
	}
}

// NewHTTPServer is the http.Server of both servers: bounded header reads
// and idle connections.
func NewHTTPServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    16 << 10,
	}
}

// Handler answers the API's requests.
func (a *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/sessions/{id}/snapshots", a.list)
	mux.HandleFunc("POST /api/sessions/{id}/snapshots/restore", a.restore)
	mux.HandleFunc("/api/sessions/{id}/snapshots", methodNotAllowed("GET, HEAD"))
	mux.HandleFunc("/api/sessions/{id}/snapshots/restore", methodNotAllowed("POST"))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "not_found", "no such endpoint", 0)
	})
	return checkBrowser(a.authenticate(mux))
}

func methodNotAllowed(allow string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", allow)
		writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", r.Method+" is not allowed here; use "+allow, 0)
	}
}

// list answers GET /api/sessions/{id}/snapshots.
func (a *Server) list(w http.ResponseWriter, r *http.Request) {
	g, ok := a.attach(w, r)
	if !ok {
		return
	}
	out, err := a.src.snapshots(r.Context(), r.PathValue("id"), g.allows)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// restore answers POST /api/sessions/{id}/snapshots/restore.
func (a *Server) restore(w http.ResponseWriter, r *http.Request) {
	g, ok := a.attach(w, r)
	if !ok {
		return
	}
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRestoreBody))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		writeError(w, http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("the body is over %d bytes", maxRestoreBody), 0)
		return
	case err != nil:
		writeError(w, http.StatusBadRequest, "bad_request", "cannot read the body", 0)
		return
	}
	req, err := decodeRestoreBody(b)
	if err != nil {
		writeError(w, http.StatusBadRequest, "bad_request", usermsg.Error(err), 0)
		return
	}
	var out *engine.RestoreResult
	err = a.src.run(r.Context(), r.PathValue("id"), g.allows, func(s snapshotOps) error {
		var err error
		switch req.Action {
		case "undo":
			out, err = s.Undo(r.Context())
		case "redo":
			out, err = s.Redo(r.Context())
		default:
			out, err = s.RestoreTo(r.Context(), req.ID)
		}
		if n, ok := a.src.(restoreNotifier); ok && err == nil {
			n.restored(out)
		}
		return err
	})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// attach checks that the request's grant holds the attach scope (403).
func (a *Server) attach(w http.ResponseWriter, r *http.Request) (grant, bool) {
	g := grantOf(r.Context())
	if !g.has(ScopeAttach) {
		writeError(w, http.StatusForbidden, "forbidden", "this credential lacks the attach scope", 0)
		return g, false
	}
	return g, true
}

// fail answers err.
func (a *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	var busy *engine.BusyError
	var op *opError
	var damaged *workspaceError
	switch {
	case errors.As(err, &damaged):
		writeError(w, http.StatusConflict, "damaged", usermsg.Error(err), 0)
	case errors.As(err, &busy):
		writeError(w, http.StatusConflict, "busy", usermsg.Error(busy), busy.PID)
	case errors.Is(err, errNoSession):
		writeBody(w, http.StatusNotFound, notFoundBody)
	case errors.Is(err, errAmbiguous):
		writeError(w, http.StatusConflict, "ambiguous", "the session reference matches more than one session; give more of its id", 0)
	case errors.As(err, &op) && (errors.Is(err, engine.ErrRefused) || errors.Is(err, engine.ErrNotFound) || errors.Is(err, engine.ErrBadInput)):
		writeError(w, http.StatusConflict, "refused", usermsg.Error(err), 0)
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		writeError(w, http.StatusServiceUnavailable, "cancelled", "the request was cancelled", 0)
	default:
		a.logf("%s %s: %s", r.Method, r.URL.Path, usermsg.Error(err))
		writeError(w, http.StatusInternalServerError, "failed", "internal error; the server's log says more", 0)
	}
}

func (a *Server) logf(format string, args ...any) {
	if a.logw == nil {
		return
	}
	a.logMu.Lock()
	defer a.logMu.Unlock()
	fmt.Fprintf(a.logw, "cairn: http: "+format+"\n", args...)
}

// errorBody is every error answer, its keys in the order the success
// answers start with ("ok" first) whatever the status.
type errorBody struct {
	OK    bool   `json:"ok"`
	Code  string `json:"code"`
	Error string `json:"error"`
	PID   int    `json:"pid,omitempty"` // busy: the owner's pid
}

// writeError answers {"ok":false,"code","error"}, and the owner's pid when
// pid is not 0; msg is worded as the cairn command words its errors
// (internal/usermsg), never with a package's name.
func writeError(w http.ResponseWriter, status int, code, msg string, pid int) {
	writeJSON(w, status, errorBody{Code: code, Error: usermsg.Text(msg), PID: pid})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		writeBody(w, http.StatusInternalServerError, []byte(`{"ok":false,"code":"failed","error":"cannot encode the answer"}`+"\n"))
		return
	}
	writeBody(w, status, buf.Bytes())
}

func writeBody(w http.ResponseWriter, status int, b []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(b)
}
