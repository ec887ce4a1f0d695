// Package httpapitest is for tests only: it holds the fixture the tests of
// package httpapi and of the cairn command share to run the HTTP API over a
// state folder. It imports package testing, so only test code may import
// it.
package httpapitest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"cairn/engine"
	"cairn/httpapi"
)

// Fixture is a state folder with a workspace and the `cairn serve` handler
// over it. A test may make more workspaces through Store.
type Fixture struct {
	T       *testing.T
	Home    string // the state folder
	Store   *engine.Store
	Dir     string // the first workspace's directory
	WS      *engine.Workspace
	Gateway string // the gateway token
	Srv     *httptest.Server
	Log     *SyncBuffer // the server's log
}

// SyncBuffer is a bytes.Buffer the server's handlers and the test share.
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// NewFixture opens a store in a temporary folder and serves it; both are
// closed when the test ends.
func NewFixture(t *testing.T) *Fixture {
	t.Helper()
	f := &Fixture{T: t, Home: t.TempDir(), Dir: t.TempDir()}
	s, err := engine.Open(f.Home)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	f.Store = s
	if f.WS, err = s.Workspace(f.Dir); err != nil {
		t.Fatal(err)
	}
	if f.Gateway, _, err = httpapi.GatewayToken(s); err != nil {
		t.Fatal(err)
	}
	f.Log = &SyncBuffer{}
	f.Srv = httptest.NewServer(httpapi.NewStoreServer(s, f.Gateway, f.Log).Handler())
	t.Cleanup(f.Srv.Close)
	return f
}

// Session makes a recorded session titled title in ws and returns its id.
func (f *Fixture) Session(ws *engine.Workspace, title string) string {
	f.T.Helper()
	ctx := context.Background()
	s := ws.Create(engine.SessionOptions{})
	if _, err := s.Append(ctx, engine.Item{Type: engine.User, Text: "hello"}); err != nil {
		f.T.Fatal(err)
	}
	if err := s.EndTurn(ctx, engine.Turn{}); err != nil {
		f.T.Fatal(err)
	}
	if err := s.Rename(ctx, title); err != nil {
		f.T.Fatal(err)
	}
	if err := s.Close(); err != nil {
		f.T.Fatal(err)
	}
	return s.ID()
}

// Write changes file name of the first workspace through the file tools of
// session id, so the session gets a snapshot.
func (f *Fixture) Write(id, name, content string) {
	f.T.Helper()
	ctx := context.Background()
	s, err := f.WS.Open(ctx, id, engine.SessionOptions{})
	if err != nil {
		f.T.Fatal(err)
	}
	defer s.Close()
	if _, err := s.ToolWrite(ctx, name, []byte(content)); err != nil {
		f.T.Fatal(err)
	}
}

// Read returns file name of the first workspace, or "<absent>".
func (f *Fixture) Read(name string) string {
	f.T.Helper()
	b, err := os.ReadFile(filepath.Join(f.Dir, name))
	if os.IsNotExist(err) {
		return "<absent>"
	}
	if err != nil {
		f.T.Fatal(err)
	}
	return string(b)
}

// Answer is an HTTP answer, read whole.
type Answer struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into v.
func (a Answer) JSON(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(a.Body, v); err != nil {
		t.Fatalf("answer %d %q: %v", a.Status, a.Body, err)
	}
}

// Code returns the code of an error answer.
func (a Answer) Code(t *testing.T) string {
	t.Helper()
	var e struct {
		OK   bool   `json:"ok"`
		Code string `json:"code"`
	}
	a.JSON(t, &e)
	if e.OK {
		t.Fatalf("error answer with ok true: %s", a.Body)
	}
	return e.Code
}

// Do sends a request to the server at base, with token as the bearer token
// unless it is empty, and body unless it is empty.
func Do(t *testing.T, base, method, path, token, body string) Answer {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return Answer{resp.StatusCode, resp.Header, b}
}

// Do sends a request to the fixture's server.
func (f *Fixture) Do(method, path, token, body string) Answer {
	f.T.Helper()
	return Do(f.T, f.Srv.URL, method, path, token, body)
}

// Want fails the test unless a has status and, when code is not empty, is
// an error answer with that code, its keys in the one order every error
// answer has: {"ok":false,"code":…,"error":…}.
func (f *Fixture) Want(a Answer, status int, code string) {
	f.T.Helper()
	if a.Status != status {
		f.T.Fatalf("status %d, want %d: %s", a.Status, status, a.Body)
	}
	if code != "" {
		if got := a.Code(f.T); got != code {
			f.T.Fatalf("code %q, want %q: %s", got, code, a.Body)
		}
		if prefix := `{"ok":false,"code":"` + code + `","error":`; !bytes.HasPrefix(a.Body, []byte(prefix)) {
			f.T.Fatalf("error answer %s does not start %s", a.Body, prefix)
		}
	}
}

// Pair pairs a token with scopes for the sessions ids and returns it.
func (f *Fixture) Pair(scopes []string, ids ...string) string {
	f.T.Helper()
	tok, _, err := httpapi.Pair(context.Background(), f.Store, scopes, ids)
	if err != nil {
		f.T.Fatal(err)
	}
	return tok
}

// SnapshotsPath is the path of the snapshot listing of session ref.
func SnapshotsPath(ref string) string { return "/api/sessions/" + ref + "/snapshots" }

// RestorePath is the path that restores a snapshot of session ref.
func RestorePath(ref string) string { return "/api/sessions/" + ref + "/snapshots/restore" }
